import { PreconditionFailedError } from '../domain/errors.ts';
import type { VersionTag } from '../domain/version-tag.ts';
import { pointerIs } from './brand-default.ts';
import { nowIso, type TransactItem, tableName } from './dynamo.ts';
import { deletionStamp, queryAll, throwMissing } from './items.ts';
import { brandKey, LIST_PREFIX, teamPk } from './keys.ts';
import { releaseQuota } from './quotas.ts';
import { beforeRetry, LabelledTransaction } from './transactions.ts';

/** Brands: their deletes, and the lists a delete unlinks (`linked_lists` counts them on the brand). */

const UNLINK_BATCH = 98; // + the brand's link counter + the If-Match pointer check = 100 items, DynamoDB's cap
const LAST_UNLINK_BATCH = 96; // + the brand's delete, the pointer check, the quota's release, the tombstone

/**
 * Deletes a brand for good. Every list that names it keeps existing with `brand_id` null: the lists are
 * found with one Query and unlinked 98 per transaction (each also lowers the brand's link counter); the
 * last transaction unlinks the rest and deletes the brand only if its counter says no other list links it,
 * so a list linked meanwhile sends us back to the Query. A pointer naming the brand is left to read as "no
 * default" (brand ids never return). Two round trips plus one per 98 lists.
 */
export async function deleteBrand(teamId: number, brandId: number, expected?: VersionTag): Promise<void> {
  let lists: Array<Record<string, unknown>> | undefined;
  for (let attempt = 1; ; ) {
    lists ??= await listsLinkedTo(teamId, brandId);
    const now = nowIso();
    const last = lists.length <= LAST_UNLINK_BATCH;
    const batch = last ? lists : lists.slice(0, UNLINK_BATCH);
    // An If-Match is checked by every batch, so a stale one is refused before any list is unlinked.
    const version = expected?.version;
    const transaction = new LabelledTransaction()
      .add(
        'brand',
        last
          ? brandDelete(teamId, brandId, batch.length, version)
          : counterDown(teamId, brandId, batch.length, version),
      )
      .add('list', ...batch.map((key) => unlinkList(key, brandId, now)));
    if (expected) transaction.add('pointer', pointerIs(teamId, brandId, expected.isDefault === true));
    if (last) {
      transaction.add('quota release', releaseQuota(teamId, 'brands'));
      transaction.add('tombstone', ...deletionStamp(brandKey(teamId, brandId), teamId));
    }
    const cancellation = await transaction.commit();
    if (!cancellation) {
      if (last) return;
      lists = lists.slice(batch.length);
      continue;
    }
    const old = cancellation.oldItem('brand');
    if (cancellation.conditionFailed('brand') && !old) return throwMissing('BRAND', 'Brand', brandId);
    if (expected && (cancellation.conditionFailed('pointer') || old?.version !== expected.version)) {
      throw new PreconditionFailedError();
    }
    // Lists changed since the Query (one was linked, or one of ours changed): find them again.
    if (cancellation.conditionFailed('list') || (old && (old.linked_lists ?? 0) !== batch.length)) {
      lists = undefined;
    }
    await beforeRetry(attempt++, 'brand');
  }
}

/** The keys of the lists linked to a brand. One Query. */
async function listsLinkedTo(teamId: number, brandId: number) {
  return queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    FilterExpression: 'brand_id = :brand',
    ProjectionExpression: 'pk, sk',
    ExpressionAttributeValues: { ':pk': teamPk(teamId), ':prefix': LIST_PREFIX, ':brand': brandId },
    ConsistentRead: true,
  });
}

function unlinkList(key: Record<string, unknown>, brandId: number, now: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET brand_id = :none, updated_at = :now',
      ConditionExpression: 'brand_id = :brand',
      ExpressionAttributeValues: { ':none': null, ':now': now, ':brand': brandId },
    },
  };
}

/** `version`: the one an If-Match names, then also required of the brand. */
const versionCondition = (version: number | undefined) =>
  version === undefined
    ? { condition: '', values: {} }
    : { condition: ' AND version = :expected', values: { ':expected': version } };

function counterDown(teamId: number, brandId: number, unlinked: number, version?: number): TransactItem {
  const expected = versionCondition(version);
  return {
    Update: {
      TableName: tableName(),
      Key: brandKey(teamId, brandId),
      UpdateExpression: 'ADD linked_lists :minus',
      ConditionExpression: `attribute_exists(pk)${expected.condition}`,
      ExpressionAttributeValues: { ':minus': -unlinked, ...expected.values },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

function brandDelete(teamId: number, brandId: number, unlinked: number, version?: number): TransactItem {
  const expected = versionCondition(version);
  return {
    Delete: {
      TableName: tableName(),
      Key: brandKey(teamId, brandId),
      ConditionExpression:
        'attribute_exists(pk) AND (attribute_not_exists(linked_lists) OR linked_lists = :unlinked)' +
        expected.condition,
      ExpressionAttributeValues: { ':unlinked': unlinked, ...expected.values },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}
