import { BatchWriteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ListPage, PageOptions } from '../../domain/pagination.ts';
import { dynamo, isoMicros, tableName } from '../dynamo.ts';
import { itemSize } from '../item-size.ts';
import { queryPage, queryPages } from '../items.ts';
import { ATTEMPT_PREFIX, attemptKey, endpointAttempts, endpointPk } from '../keys.ts';
import { TABLE_SCHEMA } from '../table-schema.ts';
import { expiryOf, positionOf } from './item-keys.ts';

/**
 * Each try of a delivery, kept as an attempt item under its endpoint for the attempts list
 * (GET /webhook-endpoints/{id}/attempts), newest first; pruned to the endpoint's newest.
 */
const { ttlAttribute } = TABLE_SCHEMA;

/** One try as the attempts list shows it. */
export interface Attempt {
  event_id: string;
  attempted_at: string;
  /** The answer's status, or null when none came (then `error` says why). */
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** The first 1 KB of the answer. */
  response: string;
  succeeded: boolean;
}

/** What an attempt item of a successful try holds at most: one write unit (1 KB). */
export const ATTEMPT_ITEM_BYTES = 1024;

/**
 * Records a try for the attempts list, under the time it started (`startedAtMs`); kept as long as its
 * event, or until it is no longer among the endpoint's newest (pruneAttempts). `seq` numbers the endpoint's
 * attempts (a deliverer holding the endpoint's sender lease counts them; a run without it leaves them
 * unnumbered). A successful try's answer is cut so that the item fits one write unit; a failed one keeps
 * the first 1 KB of its answer, which is what an integrator reads to see why.
 */
export async function recordAttempt(
  teamId: number,
  endpointId: number,
  startedAtMs: number,
  attempt: Omit<Attempt, 'attempted_at'>,
  seq?: number,
): Promise<void> {
  const { position } = positionOf(attempt.event_id);
  const item: Record<string, unknown> = {
    ...attemptKey(teamId, endpointId, startedAtMs, position),
    ...attempt,
    attempted_at: isoMicros(new Date(startedAtMs)),
    ...(seq !== undefined && { seq }),
    [ttlAttribute]: expiryOf(attempt.event_id),
  };
  if (attempt.succeeded) {
    item.response = cutToBytes(attempt.response, ATTEMPT_ITEM_BYTES - itemSize({ ...item, response: '' }));
  }
  await dynamo().send(new PutCommand({ TableName: tableName(), Item: item }));
}

/** The longest start of `text` within `bytes` UTF-8 bytes, never cutting a character in two. */
function cutToBytes(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  if (bytes <= 0) return '';
  return Buffer.from(text)
    .subarray(0, bytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

/** Attempts one prune reads (and deletes) at most; what is left goes at the deliverer's next run. */
const PRUNE_READ_LIMIT = 100;

/**
 * Deletes the endpoint's oldest attempts numbered `upToSeq` or lower (attempts written before they were
 * numbered count as oldest): one Query of what goes, oldest first, and a batch delete per 25 items.
 * How many were deleted.
 */
export async function pruneAttempts(teamId: number, endpointId: number, upToSeq: number): Promise<number> {
  if (upToSeq < 1) return 0;
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': endpointPk(teamId, endpointId), ':prefix': ATTEMPT_PREFIX },
      ProjectionExpression: 'pk, sk, seq',
      Limit: PRUNE_READ_LIMIT,
    }),
  );
  const stale = Items.filter((item) => ((item.seq as number | undefined) ?? 0) <= upToSeq);
  await deleteAttempts(stale);
  return stale.length;
}

/**
 * Deletes attempt items, 25 to a BatchWriteItem, the batches side by side. What a throttled batch leaves
 * is still among the oldest: the next prune deletes it.
 */
async function deleteAttempts(items: readonly Record<string, unknown>[]): Promise<void> {
  const batches: Array<readonly Record<string, unknown>[]> = [];
  for (let start = 0; start < items.length; start += 25) batches.push(items.slice(start, start + 25));
  await Promise.all(
    batches.map((batch) =>
      dynamo().send(
        new BatchWriteCommand({
          RequestItems: {
            [tableName()]: batch.map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } })),
          },
        }),
      ),
    ),
  );
}

/**
 * What one prune past the newest deletes at most: prunes come about once per
 * WEBHOOK_LIMITS.attemptsPrunedEvery attempts, so this catches up on runs of bad luck.
 */
const PRUNE_PAST_LIMIT = 250;

/**
 * Deletes an endpoint's attempts older than its newest `keep`, at most PRUNE_PAST_LIMIT of them, for runs
 * that number none (a healthy endpoint's first tries take no sender item to count on): reads the newest
 * `keep` keys to find where the oldest kept one is (pages of up to 1 MB), then the older ones after it.
 * Read units, not write units, find them; each one deleted is a write. How many were deleted.
 */
export async function pruneAttemptsPast(teamId: number, endpointId: number, keep: number): Promise<number> {
  const { pk, skPrefix } = endpointAttempts(teamId, endpointId);
  const newestFirst = {
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
    ProjectionExpression: 'pk, sk',
    ScanIndexForward: false,
  };
  // No filter: each page reads what it returns, so the reading stops at `keep` read.
  let pastKept: Record<string, unknown> | undefined;
  for await (const page of queryPages(newestFirst, { limit: keep, nextLimit: (_, read) => keep - read })) {
    pastKept = page.next;
  }
  if (keep > 0 && pastKept === undefined) return 0;
  const { items: stale } = await queryPage(newestFirst, {
    ...(pastKept && { start: pastKept }),
    limit: PRUNE_PAST_LIMIT,
  });
  await deleteAttempts(stale);
  return stale.length;
}

/** The attempts position: the sort key after the endpoint's prefix. */
export const isAttemptPosition = (value: unknown): value is string =>
  typeof value === 'string' && /^[0-9]{13}#[0-9]{12}#[0-9]{40}#[0-9]$/.test(value);

/** An endpoint's attempts, newest first, a page at a time. */
export async function listAttempts(
  teamId: number,
  endpointId: number,
  { limit, after }: Required<Pick<PageOptions<string>, 'limit'>> & PageOptions<string>,
): Promise<ListPage<Attempt, string>> {
  const { pk, skPrefix: prefix } = endpointAttempts(teamId, endpointId);
  const { items } = await queryPage(
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
      ScanIndexForward: false,
    },
    { ...(after !== undefined && { start: { pk, sk: `${prefix}${after}` } }), limit: limit + 1 },
  );
  const attempts = items.map((item) => ({ sk: item.sk as string, attempt: attemptOf(item) }));
  if (attempts.length <= limit) return { items: attempts.map((entry) => entry.attempt) };
  const page = attempts.slice(0, limit);
  const last = page[page.length - 1] as { sk: string };
  return { items: page.map((entry) => entry.attempt), next: last.sk.slice(prefix.length) };
}

function attemptOf(item: Record<string, unknown>): Attempt {
  return {
    event_id: item.event_id as string,
    attempted_at: item.attempted_at as string,
    status_code: (item.status_code as number | null | undefined) ?? null,
    error: (item.error as string | null | undefined) ?? null,
    duration_ms: item.duration_ms as number,
    response: (item.response as string | undefined) ?? '',
    succeeded: item.succeeded === true,
  };
}
