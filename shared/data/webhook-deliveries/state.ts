import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type DeliveryState,
  FAILED,
  type FinishedState,
  PENDING,
  SENDING,
} from '../../domain/delivery-states.ts';
import { dynamo, tableName } from '../dynamo.ts';
import { writtenIf } from '../items.ts';
import { TABLE_SCHEMA } from '../table-schema.ts';
import { plainItem } from '../transactions.ts';
import { dueAtLeaseEnd, dueKeys, STATUS_AND_DUE_NAMES } from './due.ts';
import { expiryOf, keyOf } from './item-keys.ts';

/**
 * Webhook deliveries: one item per (endpoint, event). The stream consumer writes none: the deliverer's first
 * try writes the item, as its claim (claimDelivery: a put only if absent, status `sending`, with a lease),
 * so an event handed over twice (a stream record read again) is sent once, and the success path is three
 * writes of one unit each: the claim, the settle, the attempt. Only a delivery that is due later is in the
 * due index (due.ts), where the sweeper finds it. A claim's lease means no two deliverers send it at once,
 * and a restart (redeliver, recover) never takes a live lease away: it marks the delivery to run again after
 * the try. A deliverer that dies mid-try leaves the lease to expire; Lambda's retry of its invocation (or,
 * once those are spent, its on-failure destination: markDue) makes it due again, and it is tried again (the
 * receiver sees the same webhook-id twice: at least once). Each try is also kept as an attempt item for the
 * attempts list (attempts.ts). Both expire with the event. Restarts and parking: restarts.ts.
 */

const { dueIndex, ttlAttribute } = TABLE_SCHEMA;

/** A claim outlives the longest try (15 s) and the writes around it. */
export const LEASE_MS = 60_000;

export interface Delivery {
  teamId: number;
  endpointId: number;
  eventId: string;
  status: DeliveryState;
  /** Tries made so far (a redelivery starts again from 0). */
  tries: number;
  nextTryAt: number;
  /** The claim a deliverer holds while it tries (its token). */
  claim?: string;
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
  status: typeof PENDING | typeof FAILED = PENDING,
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
          ...(status === PENDING ? dueKeys(teamId, endpointId, eventId, dueAt) : { settled_at: dueAt }),
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
          status: PENDING,
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
  if (old?.status !== SENDING || old[dueIndex.partitionKey] !== undefined) return;
  await dueAtLeaseEnd(teamId, endpointId, eventId, old);
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
      status: SENDING,
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
      if (old.status === SENDING && leaseUntil > nowMs) {
        if (old[dueIndex.partitionKey] === undefined) await dueAtLeaseEnd(teamId, endpointId, eventId, old);
        return undefined;
      }
      const due = old.status === SENDING || (old.status === PENDING && Number(old.next_try_at) <= nowMs);
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
          ':pending': PENDING,
          ':sending': SENDING,
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
  outcome: { status: FinishedState } | { nextTryAt: number },
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
        ExpressionAttributeNames: STATUS_AND_DUE_NAMES,
        ExpressionAttributeValues: {
          ':claim': delivery.claim,
          ...(due
            ? {
                ':pending': PENDING,
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
        ExpressionAttributeNames: STATUS_AND_DUE_NAMES,
        ExpressionAttributeValues: {
          ':claim': delivery.claim,
          ':pending': PENDING,
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

/** A delivery no try holds at `:at`: pending, or `sending` with its lease run out (its deliverer died). */
export const UNHELD =
  '#status = :pending OR (#status = :sending AND (attribute_not_exists(lease_until) OR lease_until <= :at))';
export const unheldValues = (atMs: number) => ({ ':pending': PENDING, ':sending': SENDING, ':at': atMs });

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
        ConditionExpression: UNHELD,
        ExpressionAttributeNames: STATUS_AND_DUE_NAMES,
        ExpressionAttributeValues: {
          ':failed': FAILED,
          ...unheldValues(atMs),
        },
      }),
    ),
  );
}

function deliveryOf(item: Record<string, unknown>): Delivery {
  return {
    teamId: item.team_id as number,
    endpointId: item.endpoint_id as number,
    eventId: item.event_id as string,
    status: item.status as DeliveryState,
    tries: item.tries as number,
    nextTryAt: item.next_try_at as number,
    claim: item.claim as string | undefined,
  };
}
