import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  ScanCommand,
  type ScanCommandInput,
  type ScanCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { ForbiddenError, NotFoundError } from '../domain/errors.ts';
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

type Key = Record<string, unknown>;

/** One page of a Query or Scan, as the paging helper hands it over. */
export interface ItemPage {
  items: Record<string, unknown>[];
  /** Where the next page starts; undefined after the last page. */
  next?: Key;
  /** The items this page read before any filter (what it cost). */
  scanned: number;
  /** The items it matched (with `Select: 'COUNT'`, all it gives). */
  count: number;
}

/** How a paged read goes: where it starts and how much each page reads. */
export interface PageReading {
  /** Where the first page starts: a list cursor's key, or an earlier page's `next`. */
  start?: Key;
  /** The first page's Limit (items read before any filter); none: pages of up to 1 MB. */
  limit?: number;
  /**
   * Each further page's Limit, from the one before and the items read so far (a filter that matches few
   * reads larger pages; a budget ends the reading: 0 or less). None: the first page's Limit again.
   */
  nextLimit?: (limit: number, scanned: number) => number;
}

/**
 * The one place a paged read follows DynamoDB's LastEvaluatedKey: the pages in order, each read only when
 * the caller asks for it, so a caller that stops early (`break`, `return`) reads nothing more.
 */
async function* pagesOf(
  read: (page: {
    ExclusiveStartKey?: Key;
    Limit?: number;
  }) => Promise<QueryCommandOutput | ScanCommandOutput>,
  { start, limit, nextLimit }: PageReading,
): AsyncGenerator<ItemPage> {
  let ExclusiveStartKey = start;
  let Limit = limit;
  let scanned = 0;
  do {
    if (Limit !== undefined && Limit <= 0) return;
    const page = await read({ ExclusiveStartKey, ...(Limit !== undefined && { Limit }) });
    scanned += page.ScannedCount ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
    yield {
      items: page.Items ?? [],
      ...(ExclusiveStartKey && { next: ExclusiveStartKey }),
      scanned: page.ScannedCount ?? 0,
      count: page.Count ?? 0,
    };
    if (Limit !== undefined && nextLimit) Limit = nextLimit(Limit, scanned);
  } while (ExclusiveStartKey);
}

/** A Query's pages (PageReading says where from and how large). */
export const queryPages = (input: QueryCommandInput, reading: PageReading = {}): AsyncGenerator<ItemPage> =>
  pagesOf((page) => dynamo().send(new QueryCommand({ ...input, ...page })), reading);

/** A Scan's pages (PageReading says where from and how large). */
export const scanPages = (input: ScanCommandInput, reading: PageReading = {}): AsyncGenerator<ItemPage> =>
  pagesOf((page) => dynamo().send(new ScanCommand({ ...input, ...page })), reading);

/** A Query's first page from `start`: one list page (a cursor's), one round trip. */
export async function queryPage(input: QueryCommandInput, reading: PageReading = {}): Promise<ItemPage> {
  for await (const page of queryPages(input, reading)) return page;
  return { items: [], scanned: 0, count: 0 };
}

/** Every item of one Query (from `start`, when given), following pagination. */
export async function queryAll(
  input: QueryCommandInput,
  reading: Pick<PageReading, 'start'> = {},
): Promise<Record<string, unknown>[]> {
  return queryUntil(input, () => false, reading);
}

/**
 * The items of one Query (from `start`, when given), following pagination until DynamoDB has no more or
 * `enough` says the items read so far are.
 */
export async function queryUntil(
  input: QueryCommandInput,
  enough: (items: Record<string, unknown>[]) => boolean,
  reading: PageReading = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages(input, reading)) {
    items.push(...page.items);
    if (enough(items)) break;
  }
  return items;
}

/** The items of the whole table that `sk` names, page by page: for operator commands (a Scan reads it all). */
export async function* scanSortKey(sk: string, projection?: string): AsyncGenerator<Record<string, unknown>> {
  const pages = scanPages({
    TableName: tableName(),
    FilterExpression: 'sk = :sk',
    ExpressionAttributeValues: { ':sk': sk },
    ...(projection && { ProjectionExpression: projection }),
    ConsistentRead: true,
  });
  for await (const page of pages) yield* page.items;
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
