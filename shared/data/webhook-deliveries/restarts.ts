import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { FAILED, PENDING } from '../../domain/delivery-states.ts';
import { dynamo, tableName } from '../dynamo.ts';
import { queryAll, writtenIf } from '../items.ts';
import { DELIVERY_PREFIX, endpointPk, PARKED_PREFIX, parkedKey } from '../keys.ts';
import { TABLE_SCHEMA } from '../table-schema.ts';
import { plainItem } from '../transactions.ts';
import { dueKeys, STATUS_AND_DUE_NAMES } from './due.ts';
import { expiryOf, keyOf, positionOf } from './item-keys.ts';
import { UNHELD, unheldValues } from './state.ts';

/**
 * Deliveries sent again from the start of their schedule (redeliver, recover), and retries parked while
 * their endpoint is disabled, resumed when it is enabled again.
 */
const { dueIndex, ttlAttribute } = TABLE_SCHEMA;

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
            ':pending': PENDING,
            ':zero': 0,
            ':due': dueAt,
            ':duePk': due[dueIndex.partitionKey],
            ':dueSk': due[dueIndex.sortKey],
            ':expires': expiryOf(eventId),
            ':restart': restart,
            ...(onlyIfFailed && { ':failed': FAILED }),
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
        ConditionExpression: UNHELD,
        ExpressionAttributeNames: STATUS_AND_DUE_NAMES,
        ExpressionAttributeValues: {
          ':true': true,
          ...unheldValues(atMs),
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
            ExpressionAttributeNames: STATUS_AND_DUE_NAMES,
            ExpressionAttributeValues: {
              ':pending': PENDING,
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
      ':failed': FAILED,
      ':since': sinceMs,
    },
    ProjectionExpression: 'event_id',
    ConsistentRead: true,
  });
  return items.map((item) => item.event_id as string);
}
