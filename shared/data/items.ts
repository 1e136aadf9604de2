import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ForbiddenError, NotFoundError } from '../http/errors.ts';
import { currentRequestId } from '../request-context.ts';
import { dynamo, ID_INDEX, nowIso, type TransactItem, tableName } from './dynamo.ts';
import { tombstoneKey } from './keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** Attributes that only address an item; they never reach a response. */
export const KEY_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk'] as const;

/**
 * Called after an id missed in the caller's own partition: 403 when the id belongs to another team,
 * 404 when it belongs to none. One Query on the id index.
 */
export async function throwMissing(kind: string, model: string, id: number): Promise<never> {
  const { Count } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: ID_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': `${kind}#${id}` },
      Select: 'COUNT',
      Limit: 1,
    }),
  );
  throw (Count ?? 0) > 0 ? new ForbiddenError() : new NotFoundError(model, id);
}

/**
 * Sends a conditional write: true when written, false when its condition did not hold (nothing written);
 * any other failure is thrown.
 */
export async function writtenIf(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Every item of one Query, following pagination. */
export async function queryAll(
  input: ConstructorParameters<typeof QueryCommand>[0],
): Promise<Record<string, unknown>[]> {
  return queryUntil(input, () => false);
}

/**
 * The items of one Query from its `ExclusiveStartKey` on, following pagination until DynamoDB has no more
 * or `enough` says the items read so far are.
 */
export async function queryUntil(
  input: ConstructorParameters<typeof QueryCommand>[0],
  enough: (items: Record<string, unknown>[]) => boolean,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let { ExclusiveStartKey } = input;
  do {
    const page = await dynamo().send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && !enough(items));
  return items;
}

/** The items of the whole table that `sk` names, page by page: for operator commands (a Scan reads it all). */
export async function* scanSortKey(sk: string, projection?: string): AsyncGenerator<Record<string, unknown>> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'sk = :sk',
        ExpressionAttributeValues: { ':sk': sk },
        ...(projection && { ProjectionExpression: projection }),
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    yield* page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/**
 * The API request writing an item, stamped on it so that the change event of the write names it (a whole
 * item written: its `request_id`; undefined, none, is left out by the marshaller).
 */
export const requestStamp = (): { request_id: string | undefined } => ({ request_id: currentRequestId() });

/** The same for an UpdateItem: SET the writing request, or REMOVE the previous writer's (the admin CLI). */
export function requestStampUpdate(): { set: string[]; remove: string; values: Record<string, unknown> } {
  const requestId = currentRequestId();
  return requestId === undefined
    ? { set: [], remove: ' REMOVE request_id', values: {} }
    : { set: ['request_id = :request_id'], remove: '', values: { ':request_id': requestId } };
}

/** How long a tombstone is kept: longer than the stream keeps the delete's record (24 hours). */
const TOMBSTONE_SECONDS = 2 * 24 * 60 * 60;

/**
 * The transaction item that records which request deletes the item at `key` (tombstoneKey), when a request
 * does, and when: the delete's change event reads it. None for the admin CLI.
 */
export function deletionStamp(key: { pk: string; sk: string }, teamId: number): TransactItem[] {
  const requestId = currentRequestId();
  if (requestId === undefined) return [];
  const expiresAt = Math.floor(Date.now() / 1000) + TOMBSTONE_SECONDS;
  return [
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...tombstoneKey(teamId, key.sk),
          request_id: requestId,
          // The delete's time: its change event's (a delete's record has only the item as it was).
          deleted_at: nowIso(),
          [TABLE_SCHEMA.ttlAttribute]: expiresAt,
        },
      },
    },
  ];
}
