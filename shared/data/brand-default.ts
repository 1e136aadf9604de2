import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { brandUpdate } from './brand-items.ts';
import { dynamo, type TransactItem, tableName } from './dynamo.ts';
import { brandKey, defaultBrandKey } from './keys.ts';
import type { Cancellation, LabelledTransaction } from './transactions.ts';

/**
 * The team's default brand is whatever one pointer item per team names (`BRAND#DEFAULT`, in the brands'
 * key range so that listing reads it with the brands): `is_default` is derived on read, so "at most one
 * default" holds by construction and making a brand the default writes two items, the brand and the
 * pointer. A brand the pointer has ever named carries `may_be_default`, so a write that returns a brand
 * without it knows the answer without reading the pointer. Brand ids never return, so a pointer left naming
 * a deleted brand reads as "no default". This module reads the pointer and builds its writes.
 */

/**
 * On a brand item: whether the brand was the default as of that version. Every write that moves the
 * default writes it on both brands (the one that wins it and the one that loses it, a new version of
 * each), so each brand's own stream record tells its change event the brand's state at the change
 * (change-events.ts). The API's reads go by the pointer, which stays the source of truth. Items written
 * before it existed lack it (`admin migrate` stamps the defaults).
 */
export const DEFAULT_AT_VERSION = 'default_at_version';

/** The brand id a pointer item names, if any: possibly a deleted brand's. */
export const pointedId = (pointer: Record<string, unknown> | undefined): number | undefined =>
  typeof pointer?.brand_id === 'number' ? pointer.brand_id : undefined;

/** The id of the team's default brand, if it has one (strongly consistent; a pointer to a deleted brand is none). */
export async function getDefaultBrandId(teamId: number): Promise<number | undefined> {
  const candidate = await readPointer(teamId);
  if (candidate === undefined) return undefined;
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: brandKey(teamId, candidate), ConsistentRead: true }),
  );
  return Item ? candidate : undefined;
}

/** What the pointer names, possibly a deleted brand (strongly consistent). */
export async function readPointer(teamId: number): Promise<number | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: defaultBrandKey(teamId), ConsistentRead: true }),
  );
  return pointedId(Item);
}

/**
 * Moves of one team's default made by this process, one at a time. Each move is conditioned on the
 * pointer naming the brand it takes the default from (so that it can write that brand too), so parallel
 * moves of one team go one after another whatever this does; queued, a process's own moves do not spend
 * failed transactions (and write units) on each other. Another process's are settled by the conditions.
 */
const defaultMoves = new Map<number, Promise<unknown>>();
export function oneMoveAtATime<T>(teamId: number, move: () => Promise<T>): Promise<T> {
  const previous = defaultMoves.get(teamId) ?? Promise.resolve();
  const result = previous.then(move, move);
  const settled = result.catch(() => {});
  defaultMoves.set(teamId, settled);
  void settled.then(() => {
    if (defaultMoves.get(teamId) === settled) defaultMoves.delete(teamId);
  });
  return result;
}

/**
 * How many times one write may find the default moved by others since it learned where it was: each time
 * another request's move succeeded, so moves make progress; past this many it counts as a conflict.
 */
export const MAX_DEFAULT_MOVES = 200;

/**
 * The brand that loses the default to a new one: the pointer's brand, if it names one, and whether it
 * still exists (a pointer to a deleted brand names none that can lose anything).
 */
export interface Loser {
  id: number | undefined;
  exists: boolean;
}

/**
 * The default moves to `winnerId` from `loser`: the pointer, on condition that it still names the loser
 * (a create first assumes no default; a failed condition tells it which), and the loser written as no
 * longer the default, as a new version made by this request. So the loser's own stream record carries the
 * change, its request and its state then, which its `brand.updated` event reports (change-events.ts).
 */
export function addDefaultMove(
  transaction: LabelledTransaction,
  teamId: number,
  winnerId: number,
  loser: Loser,
  now: string,
): void {
  transaction.add('pointer', {
    Put: {
      TableName: tableName(),
      Item: { ...defaultBrandKey(teamId), brand_id: winnerId },
      ...(loser.id === undefined
        ? { ConditionExpression: 'attribute_not_exists(brand_id)' }
        : { ConditionExpression: 'brand_id = :loser', ExpressionAttributeValues: { ':loser': loser.id } }),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  });
  if (loser.id === undefined || !loser.exists) return;
  const update = brandUpdate({ [DEFAULT_AT_VERSION]: false }, now);
  transaction.add('loser', {
    Update: {
      TableName: tableName(),
      Key: brandKey(teamId, loser.id),
      ...update,
      ConditionExpression: 'attribute_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  });
}

/** What a default move's failed conditions taught: the pointer names another brand, or the loser is gone. */
export function learnedLoser(cancellation: Cancellation, loser: Loser): Loser | undefined {
  if (cancellation.conditionFailed('pointer')) {
    return { id: pointedId(cancellation.oldItem('pointer')), exists: true };
  }
  if (cancellation.conditionFailed('loser') && !cancellation.oldItem('loser')) {
    return { id: loser.id, exists: false };
  }
  return undefined;
}

/**
 * Names the brand as the default, whatever the pointer named before: the last writer wins; `ifNotYet`
 * also requires that it did not name the brand already (an If-Match read it so).
 */
export function pointerPut(teamId: number, brandId: number, ifNotYet = false): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...defaultBrandKey(teamId), brand_id: brandId },
      ...(ifNotYet && {
        ConditionExpression: 'attribute_not_exists(brand_id) OR brand_id <> :brand',
        ExpressionAttributeValues: { ':brand': brandId },
      }),
    },
  };
}

/** Requires the pointer to name the brand, or not to: its `is_default` as an If-Match read it. */
export function pointerIs(teamId: number, brandId: number, isDefault: boolean): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: defaultBrandKey(teamId),
      ConditionExpression: isDefault
        ? 'brand_id = :brand'
        : 'attribute_not_exists(brand_id) OR brand_id <> :brand',
      ExpressionAttributeValues: { ':brand': brandId },
    },
  };
}

/** Leaves no default, if the pointer still names the brand (otherwise the transaction is retried). */
export function pointerDelete(teamId: number, brandId: number): TransactItem {
  return {
    Delete: {
      TableName: tableName(),
      Key: defaultBrandKey(teamId),
      ConditionExpression: 'brand_id = :brand',
      ExpressionAttributeValues: { ':brand': brandId },
    },
  };
}

/** The pointer names `restored` again, if it still names the brand. */
export function pointerPutIfNames(teamId: number, brandId: number, restored: number): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...defaultBrandKey(teamId), brand_id: restored },
      ConditionExpression: 'brand_id = :brand',
      ExpressionAttributeValues: { ':brand': brandId },
    },
  };
}
