import { createHash, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import type { DeliveryState } from '../domain/delivery-states.ts';
import { eventPosition } from '../domain/event-shape.ts';
import type { ListPage, PageOptions } from '../domain/pagination.ts';
import { LIMITS } from '../limits.ts';
import { dynamo, isoMicros, tableName } from './dynamo.ts';
import { EVENT_RETENTION_SECONDS, eventTypesOf } from './events.ts';
import { itemSize } from './item-size.ts';
import { queryAll, writtenIf } from './items.ts';
import {
  ATTEMPT_PREFIX,
  attemptKey,
  DELIVERY_PREFIX,
  deliveryKey,
  endpointAttempts,
  endpointDeliveries,
  endpointPk,
  LEGACY_ENDPOINT_ITEM,
  PARKED_PREFIX,
  parkedKey,
} from './keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';
import { plainItem } from './transactions.ts';

/**
 * Webhook deliveries: one item per (endpoint, event). The stream consumer writes none: the deliverer's
 * first try writes the item, as its claim (claimDelivery: a put only if absent, status `sending`, with a
 * lease), so an event handed over twice (a stream record read again) is sent once, and the success path
 * is three writes of one unit each: the claim, the settle, the attempt. Only a delivery that is due later
 * (a retry, a restart, one left for the sweep) is in the `byDueTime` index, under one of DUE_SHARDS
 * partitions chosen by hashing it (no hot partition however many are due), sorted by due time: the
 * sweeper reads each shard up to now, in pages. A claim's lease means no two deliverers send it at once,
 * and a restart (redeliver, recover) never takes a live lease away: it marks the delivery to run again
 * after the try. A deliverer that dies mid-try leaves the lease to expire; Lambda's retry of its invocation
 * (or, once those are spent, its on-failure destination: markDue) makes it due again, and it is tried
 * again (the receiver sees the same webhook-id twice: at least once). Each try is also kept as an attempt
 * item for the attempts list (pruneAttempts). Both expire with the event.
 */
/**
 * The due index's shards: DUE_SHARDS in AWS, sized for every delivery failing at 1,000,000 a minute for
 * the schedule's 3 days: 300,000 index writes a second at steady state, 586 a shard, under a partition's
 * 1,000 (docs/webhooks.md, "Scale"). Locally fewer (WEBHOOK_DUE_SHARDS): `npm start` sweeps every second,
 * and 512 Queries a second would keep DynamoDB Local busy for nothing.
 */
export const DUE_SHARDS = 512;
export const dueShards = (): number => config.webhookDueShards() ?? DUE_SHARDS;
/** A claim outlives the longest try (15 s) and the writes around it. */
export const LEASE_MS = 60_000;

export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed';

export interface Delivery {
  teamId: number;
  endpointId: number;
  eventId: string;
  status: DeliveryStatus;
  /** Tries made so far (a redelivery starts again from 0). */
  tries: number;
  nextTryAt: number;
  /** The claim a deliverer holds while it tries (its token). */
  claim?: string;
}

/** A delivery as the sweeper finds it in the index: enough to start it. */
export interface DueDelivery {
  teamId: number;
  endpointId: number;
  eventId: string;
  dueAt: number;
}

const { dueIndex, ttlAttribute } = TABLE_SCHEMA;
const MS_DIGITS = 13;
const padMs = (ms: number) => String(Math.max(0, Math.floor(ms))).padStart(MS_DIGITS, '0');

function positionOf(eventId: string): { teamId: number; position: string } {
  const located = eventPosition(eventId);
  if (!located) throw new Error(`not an event id: ${eventId}`);
  return located;
}

const keyOf = (teamId: number, endpointId: number, eventId: string) =>
  deliveryKey(teamId, endpointId, positionOf(eventId).position);

/** Its shard: a hash of the delivery, so one endpoint's backlog spreads over every shard. */
export function shardOf(endpointId: number, eventId: string): number {
  return createHash('sha256').update(`${endpointId}#${eventId}`).digest().readUInt32BE(0) % dueShards();
}

/** The index keys of a delivery due at `dueAt` (its sort key names it, so the index is keys only). */
function dueKeys(teamId: number, endpointId: number, eventId: string, dueAt: number) {
  return {
    [dueIndex.partitionKey]: `DUE#${shardOf(endpointId, eventId)}`,
    [dueIndex.sortKey]: `${padMs(dueAt)}#${teamId}#${endpointId}#${eventId}`,
  };
}

/** The event's expiry: a delivery is kept as long as its event. */
function expiryOf(eventId: string): number {
  // The position starts with the event's seconds (event-shape.ts).
  return Number(positionOf(eventId).position.split('#')[0]) + EVENT_RETENTION_SECONDS;
}

/**
 * Writes a delivery of the event to the endpoint, due at `dueAt` (or given up already: `failed`, for an
 * endpoint that is disabled, so that `recover` can send it once it is enabled). False when the delivery
 * already exists: nothing is written.
 */
export async function createDelivery(
  teamId: number,
  endpointId: number,
  eventId: string,
  dueAt: number,
  status: 'pending' | 'failed' = 'pending',
  eventType?: string,
): Promise<boolean> {
  return writtenIf(
    dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keyOf(teamId, endpointId, eventId),
          team_id: teamId,
          endpoint_id: endpointId,
          event_id: eventId,
          ...(eventType !== undefined && { event_type: eventType }),
          status,
          tries: 0,
          next_try_at: dueAt,
          ...(status === 'pending' ? dueKeys(teamId, endpointId, eventId, dueAt) : { settled_at: dueAt }),
          [ttlAttribute]: expiryOf(eventId),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

/**
 * Leaves a delivery where the sweeper finds it (the crash net: what a deliverer invocation could not start
 * or finish): a delivery not yet written is written due at `nowMs`; one claimed (`sending`) and not in the
 * index is put there at its lease's end, so that it is tried again if its holder never settles it. One
 * pending is in the index already; one settled stays settled.
 */
export async function markDue(
  teamId: number,
  endpointId: number,
  eventId: string,
  nowMs: number,
): Promise<void> {
  const key = keyOf(teamId, endpointId, eventId);
  let old: Record<string, unknown> | undefined;
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...key,
          team_id: teamId,
          endpoint_id: endpointId,
          event_id: eventId,
          status: 'pending',
          tries: 0,
          next_try_at: nowMs,
          ...dueKeys(teamId, endpointId, eventId, nowMs),
          [ttlAttribute]: expiryOf(eventId),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    old = plainItem(error.Item);
  }
  if (old?.status !== 'sending' || old[dueIndex.partitionKey] !== undefined) return;
  await dueAtLeaseEnd(teamId, endpointId, eventId, old);
}

/** A claimed delivery put in the index at its lease's end, while the claim is still the one seen. */
async function dueAtLeaseEnd(
  teamId: number,
  endpointId: number,
  eventId: string,
  claimed: Record<string, unknown>,
): Promise<void> {
  const due = dueKeys(teamId, endpointId, eventId, Number(claimed.lease_until ?? 0));
  await writtenIf(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(teamId, endpointId, eventId),
        UpdateExpression: 'SET #duePk = :duePk, #dueSk = :dueSk',
        ConditionExpression: 'claim = :claim AND #status = :sending',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#duePk': dueIndex.partitionKey,
          '#dueSk': dueIndex.sortKey,
        },
        ExpressionAttributeValues: {
          ':claim': claimed.claim,
          ':sending': 'sending',
          ':duePk': due[dueIndex.partitionKey],
          ':dueSk': due[dueIndex.sortKey],
        },
      }),
    ),
  );
}

/** What a restart did: due again now, or due again once the try in flight settles. */
export type Restarted = 'restarted' | 'after-try';

/**
 * Makes a delivery due again from the start of the schedule (a redelivery or a recovery). Only a delivery
 * that exists: the item is the record that the endpoint was sent the event (the deliverer's first try
 * writes it as its claim, or records it given up for a disabled endpoint; an event handed over that could
 * not start is written due), so an endpoint is never sent by a restart an event it was not subscribed to
 * when the event was made: `absent`, and nothing is written (the write's own condition: no read first). A
 * try in flight (a live lease) keeps its claim: the delivery is marked to run again (`rerun`), and the
 * try's settle makes it due again instead of settling it, so the delivery is never sent twice at once, and
 * any number of restarts during one try make one more run. `onlyIfFailed` (recover) restarts only a
 * delivery given up, which no try holds. False when nothing changed (recover: not given up).
 */
export async function restartDelivery(
  teamId: number,
  endpointId: number,
  eventId: string,
  dueAt: number,
  onlyIfFailed = false,
): Promise<Restarted | 'absent' | false> {
  const due = dueKeys(teamId, endpointId, eventId, dueAt);
  const key = keyOf(teamId, endpointId, eventId);
  const notInFlight = 'attribute_exists(pk) AND (attribute_not_exists(lease_until) OR lease_until <= :due)';
  // Names this restart: a write the SDK sent again (its answer was late) finds its own restart done.
  const restart = randomUUID();
  for (let attempt = 1; attempt <= 3; attempt++) {
    const restarted = await writtenOrOwn(
      restart,
      dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression:
            'SET team_id = :team, endpoint_id = :endpoint, event_id = :event, #status = :pending, tries = :zero, ' +
            'next_try_at = :due, #duePk = :duePk, #dueSk = :dueSk, #expires = :expires, restart = :restart ' +
            'REMOVE claim, lease_until, rerun',
          ConditionExpression: onlyIfFailed ? `#status = :failed AND ${notInFlight}` : notInFlight,
          ExpressionAttributeNames: {
            '#status': 'status',
            '#duePk': dueIndex.partitionKey,
            '#dueSk': dueIndex.sortKey,
            '#expires': ttlAttribute,
          },
          ExpressionAttributeValues: {
            ':team': teamId,
            ':endpoint': endpointId,
            ':event': eventId,
            ':pending': 'pending',
            ':zero': 0,
            ':due': dueAt,
            ':duePk': due[dueIndex.partitionKey],
            ':dueSk': due[dueIndex.sortKey],
            ':expires': expiryOf(eventId),
            ':restart': restart,
            ...(onlyIfFailed && { ':failed': 'failed' }),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    if (restarted === 'absent') return 'absent';
    if (restarted) return 'restarted';
    if (onlyIfFailed) return false;
    // A try holds it: run again after that try (the lease may end meanwhile: then restart it as above).
    const marked = await writtenIf(
      dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'SET rerun = :true',
          ConditionExpression: 'lease_until > :due',
          ExpressionAttributeValues: { ':true': true, ':due': dueAt },
        }),
      ),
    );
    if (marked) return 'after-try';
  }
  return false;
}

/**
 * True when written, or when the condition failed on the item as this same restart left it; `absent` when
 * it failed for want of an item (DynamoDB hands back no old item then).
 */
async function writtenOrOwn(restart: string, write: Promise<unknown>): Promise<boolean | 'absent'> {
  try {
    await write;
    return true;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const old = plainItem(error.Item);
    if (old === undefined) return 'absent';
    return old.restart === restart;
  }
}

/**
 * Claims a delivery for one try: status `sending`, a lease, its tries counted. `fresh` (a first try the
 * fan-out started) claims by writing the item only if absent: one write unit, and the dedup of an event
 * handed over again. Otherwise (or when the item exists) it must be pending and due by `nowMs`, or
 * `sending` with its lease run out (its deliverer died), and not claimed by a live lease. A live claim seen
 * by a fresh claim (a retried invocation while its first run still tries) is left to its holder, and put
 * in the due index at its lease's end in case that holder never settles it. The delivery as claimed, or
 * undefined when it is not this caller's to try.
 */
export async function claimDelivery(
  teamId: number,
  endpointId: number,
  eventId: string,
  nowMs: number,
  { fresh = false, eventType }: { fresh?: boolean; eventType?: string } = {},
): Promise<Delivery | undefined> {
  const claim = randomUUID();
  const lease = nowMs + LEASE_MS;
  if (fresh) {
    const item = {
      ...keyOf(teamId, endpointId, eventId),
      team_id: teamId,
      endpoint_id: endpointId,
      event_id: eventId,
      ...(eventType !== undefined && { event_type: eventType }),
      status: 'sending',
      tries: 1,
      next_try_at: nowMs,
      claim,
      lease_until: lease,
      [ttlAttribute]: expiryOf(eventId),
    };
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return deliveryOf(item);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const old = plainItem(error.Item);
      if (!old) return undefined;
      const leaseUntil = Number(old.lease_until ?? 0);
      if (old.status === 'sending' && leaseUntil > nowMs) {
        if (old[dueIndex.partitionKey] === undefined) await dueAtLeaseEnd(teamId, endpointId, eventId, old);
        return undefined;
      }
      const due = old.status === 'sending' || (old.status === 'pending' && Number(old.next_try_at) <= nowMs);
      if (!due || leaseUntil > nowMs) return undefined;
    }
  }
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(teamId, endpointId, eventId),
        UpdateExpression:
          'SET #status = :sending, claim = :claim, lease_until = :lease, tries = tries + :one' +
          (eventType !== undefined ? ', event_type = if_not_exists(event_type, :type)' : ''),
        ConditionExpression:
          '((#status = :pending AND next_try_at <= :now) OR #status = :sending) AND ' +
          '(attribute_not_exists(lease_until) OR lease_until <= :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':claim': claim,
          ':lease': lease,
          ':one': 1,
          ':pending': 'pending',
          ':sending': 'sending',
          ':now': nowMs,
          ...(eventType !== undefined && { ':type': eventType }),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return deliveryOf(Attributes as Record<string, unknown>);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/**
 * What settling a try did: `settled` as asked, `rerun` (a restart came during the try: due again now, from
 * the start of the schedule), or `lost` (the claim is no longer the caller's: its lease ran out).
 */
export type Settled = 'settled' | 'rerun' | 'lost';

/**
 * The outcome of a claimed try at `atMs`: succeeded, failed for good, or due again at `nextTryAt`, only
 * while the claim is still the caller's. A restart asked for during the try wins over the outcome: the
 * delivery is due again at `atMs` with its tries from 0 (a second write, only then). Leaves the index
 * unless due again. `ignoreRerun`: the event is gone, there is nothing to run again.
 */
export async function settleDelivery(
  delivery: Delivery,
  outcome: { status: 'succeeded' | 'failed' } | { nextTryAt: number },
  atMs: number,
  {
    ignoreRerun = false,
    attempt,
  }: { ignoreRerun?: boolean; attempt?: { startedAt: number; statusCode: number | null } } = {},
): Promise<Settled> {
  const again = 'nextTryAt' in outcome;
  const due = again && dueKeys(delivery.teamId, delivery.endpointId, delivery.eventId, outcome.nextTryAt);
  const key = keyOf(delivery.teamId, delivery.endpointId, delivery.eventId);
  const tried = attempt ? ', last_attempt_at = :tried, last_status_code = :code' : '';
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: again
          ? `SET #status = :pending, next_try_at = :next, #duePk = :duePk, #dueSk = :dueSk${tried} REMOVE claim, lease_until`
          : `SET #status = :status, settled_at = :at${tried} REMOVE claim, lease_until, rerun, #duePk, #dueSk`,
        ConditionExpression: ignoreRerun
          ? 'claim = :claim'
          : 'claim = :claim AND attribute_not_exists(rerun)',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#duePk': dueIndex.partitionKey,
          '#dueSk': dueIndex.sortKey,
        },
        ExpressionAttributeValues: {
          ':claim': delivery.claim,
          ...(due
            ? {
                ':pending': 'pending',
                ':next': outcome.nextTryAt,
                ':duePk': due[dueIndex.partitionKey],
                ':dueSk': due[dueIndex.sortKey],
              }
            : { ':status': (outcome as { status: string }).status, ':at': atMs }),
          ...(attempt && { ':tried': attempt.startedAt, ':code': attempt.statusCode }),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'settled';
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const old = plainItem(error.Item);
    if (old?.claim !== delivery.claim || old?.rerun !== true) return 'lost';
  }
  const rerun = dueKeys(delivery.teamId, delivery.endpointId, delivery.eventId, atMs);
  const restarted = await writtenIf(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression:
          'SET #status = :pending, tries = :zero, next_try_at = :at, #duePk = :duePk, #dueSk = :dueSk ' +
          'REMOVE claim, lease_until, rerun',
        ConditionExpression: 'claim = :claim',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#duePk': dueIndex.partitionKey,
          '#dueSk': dueIndex.sortKey,
        },
        ExpressionAttributeValues: {
          ':claim': delivery.claim,
          ':pending': 'pending',
          ':zero': 0,
          ':at': atMs,
          ':duePk': rerun[dueIndex.partitionKey],
          ':dueSk': rerun[dueIndex.sortKey],
        },
      }),
    ),
  );
  return restarted ? 'rerun' : 'lost';
}

/** Gives up a delivery that cannot be tried (its endpoint is gone or disabled, its event expired). */
export async function abandonDelivery(
  teamId: number,
  endpointId: number,
  eventId: string,
  atMs: number,
): Promise<void> {
  // Already settled (or restarted and claimed) by another deliverer: nothing to give up.
  await writtenIf(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(teamId, endpointId, eventId),
        UpdateExpression: 'SET #status = :failed, settled_at = :at REMOVE claim, lease_until, #duePk, #dueSk',
        ConditionExpression:
          '#status = :pending OR (#status = :sending AND (attribute_not_exists(lease_until) OR lease_until <= :at))',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#duePk': dueIndex.partitionKey,
          '#dueSk': dueIndex.sortKey,
        },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':pending': 'pending',
          ':sending': 'sending',
          ':at': atMs,
        },
      }),
    ),
  );
}

/**
 * Parks a retry whose endpoint is disabled: it stays pending (its schedule and tries kept, `parked`) but
 * leaves the due index, and a marker under the endpoint's key (`PARKED#<position>`) lets enabling the
 * endpoint find it without reading its other deliveries (resumeParked). The marker is written first: one
 * left without a parked delivery is only skipped and deleted by the resume. False when it was not pending.
 */
export async function parkDelivery(
  teamId: number,
  endpointId: number,
  eventId: string,
  atMs: number,
): Promise<boolean> {
  const { position } = positionOf(eventId);
  await dynamo().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...parkedKey(teamId, endpointId, position),
        event_id: eventId,
        [ttlAttribute]: expiryOf(eventId),
      },
    }),
  );
  return writtenIf(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(teamId, endpointId, eventId),
        UpdateExpression: 'SET parked = :true REMOVE #duePk, #dueSk',
        ConditionExpression:
          '#status = :pending OR (#status = :sending AND (attribute_not_exists(lease_until) OR lease_until <= :at))',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#duePk': dueIndex.partitionKey,
          '#dueSk': dueIndex.sortKey,
        },
        ExpressionAttributeValues: {
          ':true': true,
          ':pending': 'pending',
          ':sending': 'sending',
          ':at': atMs,
        },
      }),
    ),
  );
}

/**
 * The endpoint's parked retries due again (enabling it: webhook-endpoints.ts): each at its own next try,
 * or now if that has passed, so its schedule goes on where it stopped. One Query of the markers, then per
 * parked delivery a read, an update and the marker's delete. How many were resumed.
 */
export async function resumeParked(teamId: number, endpointId: number, nowMs: number): Promise<number> {
  const markers = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': endpointPk(teamId, endpointId), ':prefix': PARKED_PREFIX },
    ProjectionExpression: 'pk, sk, event_id',
    ConsistentRead: true,
  });
  let resumed = 0;
  for (const marker of markers) {
    const eventId = marker.event_id as string;
    const key = keyOf(teamId, endpointId, eventId);
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
    );
    if (Item?.parked === true) {
      const due = dueKeys(teamId, endpointId, eventId, Math.max(Number(Item.next_try_at ?? 0), nowMs));
      const done = await writtenIf(
        dynamo().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: key,
            UpdateExpression: 'SET #status = :pending, #duePk = :duePk, #dueSk = :dueSk REMOVE parked',
            ConditionExpression: 'parked = :true',
            ExpressionAttributeNames: {
              '#status': 'status',
              '#duePk': dueIndex.partitionKey,
              '#dueSk': dueIndex.sortKey,
            },
            ExpressionAttributeValues: {
              ':pending': 'pending',
              ':true': true,
              ':duePk': due[dueIndex.partitionKey],
              ':dueSk': due[dueIndex.sortKey],
            },
          }),
        ),
      );
      if (done) resumed++;
    }
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: { pk: marker.pk, sk: marker.sk } }));
  }
  return resumed;
}

/** A page of the deliveries due in one shard, oldest first, and where the next page starts. */
export interface DuePage {
  items: DueDelivery[];
  next?: Record<string, unknown>;
}

/** The deliveries due by `nowMs` in one shard, oldest first: a page of at most `limit`, from `start`. */
export async function dueDeliveries(
  shard: number,
  nowMs: number,
  limit: number,
  start?: Record<string, unknown>,
): Promise<DuePage> {
  const { Items = [], LastEvaluatedKey } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: dueIndex.name,
      KeyConditionExpression: '#pk = :pk AND #sk < :upTo',
      ExpressionAttributeNames: { '#pk': dueIndex.partitionKey, '#sk': dueIndex.sortKey },
      ExpressionAttributeValues: { ':pk': `DUE#${shard}`, ':upTo': padMs(nowMs + 1) },
      Limit: limit,
      ...(start && { ExclusiveStartKey: start }),
    }),
  );
  const items = Items.map((item) => {
    const [due, team, endpoint, eventId] = String(item[dueIndex.sortKey]).split('#');
    return { dueAt: Number(due), teamId: Number(team), endpointId: Number(endpoint), eventId: eventId ?? '' };
  });
  return { items, ...(LastEvaluatedKey && { next: LastEvaluatedKey }) };
}

/**
 * An endpoint's deliveries given up at or after `sinceMs` (for `recover`). The endpoint's deliveries of
 * the event log's 30 days are read, a page at a time, and filtered: a rare request, so no index for it.
 */
export async function failedDeliveriesSince(
  teamId: number,
  endpointId: number,
  sinceMs: number,
): Promise<string[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    FilterExpression: '#status = :failed AND settled_at >= :since',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':pk': endpointPk(teamId, endpointId),
      ':prefix': DELIVERY_PREFIX,
      ':failed': 'failed',
      ':since': sinceMs,
    },
    ProjectionExpression: 'event_id',
    ConsistentRead: true,
  });
  return items.map((item) => item.event_id as string);
}

function deliveryOf(item: Record<string, unknown>): Delivery {
  return {
    teamId: item.team_id as number,
    endpointId: item.endpoint_id as number,
    eventId: item.event_id as string,
    status: item.status as DeliveryStatus,
    tries: item.tries as number,
    nextTryAt: item.next_try_at as number,
    claim: item.claim as string | undefined,
  };
}

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
  const query = (limit: number, start?: Record<string, unknown>) =>
    dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
        ProjectionExpression: 'pk, sk',
        ScanIndexForward: false,
        Limit: limit,
        ...(start && { ExclusiveStartKey: start }),
      }),
    );
  let kept = 0;
  let start: Record<string, unknown> | undefined;
  while (kept < keep) {
    const page = await query(keep - kept, start);
    kept += page.Items?.length ?? 0;
    start = page.LastEvaluatedKey;
    if (!start) return 0;
  }
  const { Items: stale = [] } = await query(PRUNE_PAST_LIMIT, start);
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
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
      ScanIndexForward: false,
      Limit: limit + 1,
      ...(after !== undefined && { ExclusiveStartKey: { pk, sk: `${prefix}${after}` } }),
    }),
  );
  const attempts = Items.map((item) => ({ sk: item.sk as string, attempt: attemptOf(item) }));
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

/**
 * Moves the deliveries and attempts of tables made before they had their endpoint's partition key (under
 * the team's, `DELIVERY#<endpoint>#<position>`) to it, due index keys and all, so pending retries stay
 * due. Each item is put at its new key only if none is there (one the deliverer wrote since is newer and
 * wins), then deleted at the old. Safe to run again and while deliveries run. Reads the whole table once
 * (a Scan): an operator's command (`npm run admin -- migrate`). How many it moved.
 */
export async function migrateDeliveryKeys(): Promise<{ deliveries: number; attempts: number }> {
  const moved = { deliveries: 0, attempts: 0 };
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression:
          'begins_with(pk, :team) AND (begins_with(sk, :delivery) OR begins_with(sk, :attempt))',
        ExpressionAttributeValues: {
          ':team': 'TEAM#',
          ':delivery': DELIVERY_PREFIX,
          ':attempt': ATTEMPT_PREFIX,
        },
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const legacy = LEGACY_ENDPOINT_ITEM.exec(String(item.sk));
      if (!legacy) continue;
      const [, prefix, endpoint, rest] = legacy;
      const teamId = Number(String(item.pk).slice('TEAM#'.length));
      const key = { pk: endpointPk(teamId, Number(endpoint)), sk: `${prefix}${rest}` };
      await writtenIf(
        dynamo().send(
          new PutCommand({
            TableName: tableName(),
            Item: { ...item, ...key },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      );
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk } }));
      moved[prefix === DELIVERY_PREFIX ? 'deliveries' : 'attempts']++;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return moved;
}

// Delivery state, as the API shows it (GET /webhook-endpoints/{id}/deliveries, GET /events/{id}/deliveries).

/** One delivery of an event to an endpoint, as the API shows it. */
export interface DeliveryView {
  event_id: string;
  event_type: string;
  status: DeliveryState;
  /** Tries made so far (a redelivery or a recovery starts again from 0). */
  tries: number;
  /** When the next try is due: only while pending. */
  next_try_at: string | null;
  last_attempt_at: string | null;
  /** When it succeeded or was given up; null while pending or sending. */
  finished_at: string | null;
}

export interface EventDeliveryView extends DeliveryView {
  endpoint_id: number;
}

/** A delivery list's position: the sort key after the endpoint's prefix (the cursor is signed: any text we made). */
export const isDeliveryPosition = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 200;

/**
 * What each state is in the item, with its values: a try is in flight while its claim's lease lasts (the
 * item `sending`, or `pending` as deliverers claimed it before); a `sending` whose lease ran out (its
 * deliverer died) is due again: pending.
 */
function stateFilter(
  state: DeliveryState,
  nowMs: number,
): { condition: string; values: Record<string, unknown> } {
  const claimed = { ':pending': 'pending', ':sending': 'sending', ':nowMs': nowMs };
  if (state === 'sending') {
    return {
      condition:
        '((#status IN (:sending, :pending) AND lease_until > :nowMs) OR ' +
        '(#status = :sending AND attribute_not_exists(lease_until)))',
      values: claimed,
    };
  }
  if (state === 'pending') {
    return {
      condition:
        '((#status = :pending AND NOT lease_until > :nowMs) OR (#status = :sending AND lease_until <= :nowMs))',
      values: claimed,
    };
  }
  return { condition: '#status = :state', values: { ':state': state } };
}

/** How much more each further Query page reads than the one before (a filter that matches few). */
const DELIVERY_READ_GROWTH = 8;
const DELIVERY_MAX_READ = 1000;
/** The deliveries one request reads at most (a few Query pages), rather than an endpoint's 30 days. */
export const DELIVERY_READ_BUDGET = LIMITS.deliveriesReadPerRequest;

/**
 * An endpoint's deliveries, newest event first, a page at a time, of one state when `state` is given (a
 * filter: further Query pages are read, each larger, until the page is full). Deliveries past their
 * event's 30 days (not yet deleted by the TTL) are left out. The types of events the items do not name
 * are read with one BatchGetItem of the event log per page.
 */
export async function listEndpointDeliveries(
  teamId: number,
  endpointId: number,
  state: DeliveryState | undefined,
  { limit, after }: Required<Pick<PageOptions<string>, 'limit'>> & PageOptions<string>,
): Promise<ListPage<DeliveryView, string>> {
  const { pk, skPrefix } = endpointDeliveries(teamId, endpointId);
  const nowMs = Date.now();
  const filter = state && stateFilter(state, nowMs);
  const conditions = ['(attribute_not_exists(#expires) OR #expires > :nowSeconds)'];
  if (filter) conditions.push(filter.condition);
  const values = {
    ':pk': pk,
    ':prefix': skPrefix,
    ':nowSeconds': Math.floor(nowMs / 1000),
    ...filter?.values,
  };
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined =
    after === undefined ? undefined : { pk, sk: `${skPrefix}${after}` };
  let readLimit = limit + 1;
  let read = 0;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: conditions.join(' AND '),
        ExpressionAttributeNames: {
          '#expires': TABLE_SCHEMA.ttlAttribute,
          ...(state && { '#status': 'status' }),
        },
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        ExclusiveStartKey: startKey,
        Limit: readLimit,
      }),
    );
    items.push(...(page.Items ?? []));
    read += page.ScannedCount ?? 0;
    startKey = page.LastEvaluatedKey;
    readLimit = Math.min(readLimit * DELIVERY_READ_GROWTH, DELIVERY_MAX_READ, DELIVERY_READ_BUDGET - read);
  } while (items.length <= limit && startKey !== undefined && readLimit > 0);
  const pageItems = items.slice(0, limit);
  const views = await withEventTypes(teamId, pageItems, nowMs);
  // More than a page matched: the next starts after its last item; the budget ran out: after the last read.
  const last = items.length > limit ? pageItems[pageItems.length - 1] : startKey;
  if (last === undefined) return { items: views };
  return { items: views, next: (last.sk as string).slice(skPrefix.length) };
}

/**
 * The event's delivery to each of the endpoints named that has one (by endpoint id): one BatchGetItem per
 * 100 endpoints (a team has at most its quota, 20).
 */
export async function eventDeliveries(
  teamId: number,
  event: { id: string; type: string },
  endpointIds: readonly number[],
): Promise<EventDeliveryView[]> {
  const located = eventPosition(event.id);
  if (!located) return [];
  const nowMs = Date.now();
  const found: Record<string, unknown>[] = [];
  for (let start = 0; start < endpointIds.length; start += 100) {
    let keys: Record<string, unknown>[] = endpointIds
      .slice(start, start + 100)
      .map((endpointId) => deliveryKey(teamId, endpointId, located.position));
    for (let attempt = 0; keys.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
      const { Responses, UnprocessedKeys } = await dynamo().send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: keys } } }),
      );
      found.push(...(Responses?.[tableName()] ?? []));
      keys = UnprocessedKeys?.[tableName()]?.Keys ?? [];
    }
  }
  return found
    .map((item) => ({
      endpoint_id: item.endpoint_id as number,
      ...deliveryView(item, nowMs, (item.event_type as string | undefined) ?? event.type),
    }))
    .sort((a, b) => a.endpoint_id - b.endpoint_id);
}

/** The views of a page's items; the types their items do not name, from the event log (gone: left out). */
async function withEventTypes(
  teamId: number,
  items: readonly Record<string, unknown>[],
  nowMs: number,
): Promise<DeliveryView[]> {
  const untyped = items
    .filter((item) => typeof item.event_type !== 'string')
    .map((item) => item.event_id as string);
  const types = untyped.length > 0 ? await eventTypesOf(teamId, untyped) : new Map<string, string>();
  return items.flatMap((item) => {
    const type = (item.event_type as string | undefined) ?? types.get(item.event_id as string);
    return type === undefined ? [] : [deliveryView(item, nowMs, type)];
  });
}

const isoOrNull = (ms: unknown): string | null =>
  typeof ms === 'number' && Number.isFinite(ms) ? isoMicros(new Date(ms)) : null;

/** A stored delivery as the API shows it at `nowMs` (the states as stateFilter reads them). */
function deliveryView(item: Record<string, unknown>, nowMs: number, eventType: string): DeliveryView {
  const stored = item.status as string;
  const lease = typeof item.lease_until === 'number' ? item.lease_until : undefined;
  const leased = lease !== undefined && lease > nowMs;
  // A `sending` whose lease ran out is due again from when it ran out (the sweep finds it then).
  const stale = stored === 'sending' && lease !== undefined && !leased;
  const status: DeliveryState =
    (stored === 'sending' && !stale) || (stored === 'pending' && leased)
      ? 'sending'
      : stored === 'succeeded' || stored === 'failed'
        ? stored
        : 'pending';
  const finished = status === 'succeeded' || status === 'failed';
  const due = stale ? Math.max(lease, Number(item.next_try_at ?? 0)) : item.next_try_at;
  return {
    event_id: item.event_id as string,
    event_type: eventType,
    status,
    tries: (item.tries as number | undefined) ?? 0,
    next_try_at: status === 'pending' ? isoOrNull(due) : null,
    last_attempt_at: isoOrNull(item.last_attempt_at),
    finished_at: finished ? isoOrNull(item.settled_at) : null,
  };
}
