import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DeleteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_AT_VERSION, pointedId } from '../../../shared/data/brand-default.ts';
import { dynamo, type TransactItem, tableName } from '../../../shared/data/dynamo.ts';
import { scanSortKey } from '../../../shared/data/items.ts';
import { brandKey, defaultBrandKey, LEGACY_DEFAULT_BRAND_SK } from '../../../shared/data/keys.ts';
import { beforeRetry, LabelledTransaction } from '../../../shared/data/transactions.ts';

/**
 * `admin migrate`'s one-off migrations of brands: each reads the whole table (a Scan), so it is an
 * operator's command, never a request's, and each is safe to run again and while the API serves.
 */

/** Set on a pointer `admin migrate` moved from where older tables kept it; the API's writes drop it. */
export const MOVED_POINTER = 'moved_by_migration';

/**
 * Moves each team's default-brand pointer from where tables made before it moved keep it (with an
 * `is_default` flag on the brand) to `BRAND#DEFAULT`, marking the brand. Safe to run again and while the
 * API serves: a pointer the API already wrote at the new place is newer and wins. Returns how many teams
 * it moved. Reads the whole table once (a Scan), so it is an operator's command, never a request's.
 */
export async function migrateDefaultPointers(): Promise<{ moved: number; dropped: number }> {
  const counts = { moved: 0, dropped: 0 };
  for await (const legacy of scanSortKey(LEGACY_DEFAULT_BRAND_SK)) {
    counts[(await movePointer(legacy)) ? 'moved' : 'dropped']++;
  }
  return counts;
}

/**
 * Marks each team's default brand as the default at its version (DEFAULT_AT_VERSION), where it was made
 * the default before brands said so: its change events then need no read of the pointer. Only a brand
 * without the mark is written, and not as a new version (nothing a caller sees changes, so no event); a
 * default moved meanwhile wrote the mark itself. Safe to run again. Returns how many it marked. A Scan.
 */
export async function stampDefaultBrands(): Promise<number> {
  let stamped = 0;
  for await (const pointer of scanSortKey(defaultBrandKey(0).sk)) {
    const brandId = pointedId(pointer);
    if (brandId === undefined) continue;
    const teamId = Number(String(pointer.pk).slice('TEAM#'.length));
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: brandKey(teamId, brandId),
          UpdateExpression: 'SET #stated = :true',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#stated)',
          ExpressionAttributeNames: { '#stated': DEFAULT_AT_VERSION },
          ExpressionAttributeValues: { ':true': true },
        }),
      );
      stamped++;
    } catch (error) {
      // Marked already, or deleted (the pointer names a deleted brand): nothing to do.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
  return stamped;
}

/** One team's legacy pointer: moved with its brand marked, or only dropped when it is no longer needed. */
async function movePointer(legacy: Record<string, unknown>): Promise<boolean> {
  const teamId = Number(String(legacy.pk).slice('TEAM#'.length));
  const brandId = pointedId(legacy);
  const dropLegacy: TransactItem = {
    Delete: { TableName: tableName(), Key: { pk: legacy.pk, sk: LEGACY_DEFAULT_BRAND_SK } },
  };
  for (let attempt = 1; brandId !== undefined; attempt++) {
    const transaction = new LabelledTransaction()
      .add('legacy', dropLegacy)
      .add('pointer', {
        Put: {
          TableName: tableName(),
          // Marked: the default did not change, its pointer moved, so it is no change event (change-events.ts).
          Item: { ...defaultBrandKey(teamId), brand_id: brandId, [MOVED_POINTER]: true },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      })
      .add('brand', {
        Update: {
          TableName: tableName(),
          Key: brandKey(teamId, brandId),
          UpdateExpression: `SET may_be_default = :true, ${DEFAULT_AT_VERSION} = :true REMOVE is_default`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':true': true },
        },
      });
    const cancellation = await transaction.commit();
    if (!cancellation) return true;
    // The API has set a newer pointer, or the brand was deleted: nothing to move.
    if (cancellation.conditionFailed('pointer') || cancellation.conditionFailed('brand')) break;
    await beforeRetry(attempt, 'default brand');
  }
  await dynamo().send(new DeleteCommand(dropLegacy.Delete as DeleteCommandInput));
  return false;
}
