import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { WEBHOOK_LIMITS } from '../limits.ts';
import { dynamo, tableName } from './dynamo.ts';
import { writtenIf } from './items.ts';
import { webhookSendersKey } from './keys.ts';
import { plainItem } from './transactions.ts';

/**
 * Sender leases: which of a team's endpoints a deliverer is sending to now. One item per team holds a lease
 * per endpoint being sent to (`lease_<endpoint>`: until when, and the holder's token), so that one deliverer
 * per endpoint sends at a time, and at most WEBHOOK_LIMITS.delivererRunsPerTeam of the team's endpoints
 * are sent to at once: the team's bound is one conditional write on one item, no per-team AWS resource.
 * A deliverer that finds its endpoint held hands its deliveries to the holder (`waiting_<endpoint>`, a set
 * of event ids, bounded), which tries them before it lets go; one that finds the team at its bound leaves
 * them due, for the sweep. The item also keeps each endpoint's count of attempts (`attempts_<endpoint>`),
 * which only the holder writes, so that the oldest attempts past the bound can be found and deleted.
 */

/**
 * A lease outlives the deliverer's invocation (Lambda ends it at 120 s: lib/cdk/webhook-deliveries.ts), so
 * a lease still running means its holder is alive; one killed mid-run leaves its lease to run out.
 */
export const SENDER_LEASE_MS = 180_000;
/** Reads and conditional writes an acquirer tries when other deliverers of the team write at once. */
const ACQUIRE_ATTEMPTS = 8;

export type Acquired =
  | { held: true; token: string; attempts: number }
  /** Another deliverer holds the endpoint and took the deliveries over. */
  | { held: false; reason: 'handed-off' }
  /** The team is at its bound (or the holder's hand-off set is full): the deliveries wait for the sweep. */
  | { held: false; reason: 'busy' };

const leaseOf = (endpointId: number) => `lease_${endpointId}`;
const waitingOf = (endpointId: number) => `waiting_${endpointId}`;
const attemptsOf = (endpointId: number) => `attempts_${endpointId}`;

interface Lease {
  until: number;
  token: string;
}

/**
 * Takes the endpoint for one deliverer (one read and one conditional write), or hands `eventIds` to the
 * deliverer that holds it. Leases that ran out (their holder died) are removed on the way.
 */
export async function acquireSender(
  teamId: number,
  endpointId: number,
  eventIds: readonly string[],
  nowMs: number,
): Promise<Acquired> {
  const key = webhookSendersKey(teamId);
  for (let attempt = 1; attempt <= ACQUIRE_ATTEMPTS; attempt++) {
    const { Item = {} } = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
    );
    const held = Item[leaseOf(endpointId)] as Lease | undefined;
    if (held && held.until > nowMs) {
      const waiting = Item[waitingOf(endpointId)] as Set<string> | undefined;
      if (eventIds.length === 0 || (waiting?.size ?? 0) >= WEBHOOK_LIMITS.handedOffPerEndpoint) {
        return { held: false, reason: 'busy' };
      }
      if (await handOver(teamId, endpointId, held, eventIds, nowMs))
        return { held: false, reason: 'handed-off' };
      continue;
    }
    const leases = Object.entries(Item).filter(([name]) => name.startsWith('lease_')) as Array<
      [string, Lease]
    >;
    const live = leases.filter(([name, lease]) => lease.until > nowMs && name !== leaseOf(endpointId));
    if (live.length >= WEBHOOK_LIMITS.delivererRunsPerTeam) return { held: false, reason: 'busy' };
    const token = randomUUID();
    const stale = leases.filter(([name, lease]) => lease.until <= nowMs && name !== leaseOf(endpointId));
    const names = Object.fromEntries(stale.map(([name], index) => [`#stale${index}`, name]));
    const version = (Item.version as number | undefined) ?? 0;
    const written = await writtenIf(
      dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: `SET #lease = :lease, version = :next${
            stale.length > 0 ? ` REMOVE ${Object.keys(names).join(', ')}` : ''
          }`,
          ConditionExpression: version === 0 ? 'attribute_not_exists(version)' : 'version = :version',
          ExpressionAttributeNames: { '#lease': leaseOf(endpointId), ...names },
          ExpressionAttributeValues: {
            ':lease': { until: nowMs + SENDER_LEASE_MS, token } satisfies Lease,
            ':next': version + 1,
            ...(version > 0 && { ':version': version }),
          },
        }),
      ),
    );
    if (written) return { held: true, token, attempts: (Item[attemptsOf(endpointId)] as number) ?? 0 };
    // Another deliverer of the team wrote first: read again, after a moment.
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * attempt));
  }
  return { held: false, reason: 'busy' };
}

/** Adds the event ids to what the live holder tries before it lets go. False when that holder is gone. */
function handOver(
  teamId: number,
  endpointId: number,
  holder: Lease,
  eventIds: readonly string[],
  nowMs: number,
): Promise<boolean> {
  return writtenIf(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: webhookSendersKey(teamId),
        UpdateExpression: 'ADD #waiting :ids',
        ConditionExpression: '#lease.#token = :token AND #lease.#until > :now',
        ExpressionAttributeNames: {
          '#waiting': waitingOf(endpointId),
          '#lease': leaseOf(endpointId),
          '#token': 'token',
          '#until': 'until',
        },
        ExpressionAttributeValues: { ':ids': new Set(eventIds), ':token': holder.token, ':now': nowMs },
      }),
    ),
  );
}

/**
 * Lets go of the endpoint, keeping its attempt count, unless deliveries were handed over meanwhile: then
 * they are returned (and taken off the item) and the lease stays the caller's. `dropWaiting` lets go
 * anyway (the caller's time is up): what was handed over stays due, for the sweep. Empty when let go.
 */
export async function releaseSender(
  teamId: number,
  endpointId: number,
  held: { token: string; attempts: number },
  { dropWaiting = false }: { dropWaiting?: boolean } = {},
): Promise<string[]> {
  const names = {
    '#lease': leaseOf(endpointId),
    '#waiting': waitingOf(endpointId),
    '#attempts': attemptsOf(endpointId),
    '#token': 'token',
  };
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: webhookSendersKey(teamId),
        UpdateExpression: `SET #attempts = :attempts REMOVE #lease${dropWaiting ? ', #waiting' : ''}`,
        ConditionExpression: `#lease.#token = :token${dropWaiting ? '' : ' AND attribute_not_exists(#waiting)'}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':token': held.token, ':attempts': held.attempts },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return [];
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const old = plainItem(error.Item);
    // The lease ran out and is another's (or gone): nothing of this endpoint is the caller's any more.
    if ((old?.[leaseOf(endpointId)] as Lease | undefined)?.token !== held.token) return [];
    return takeWaiting(teamId, endpointId, held.token);
  }
}

/** What was handed over, taken off the item while the lease is still the caller's. */
async function takeWaiting(teamId: number, endpointId: number, token: string): Promise<string[]> {
  try {
    const { Attributes = {} } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: webhookSendersKey(teamId),
        UpdateExpression: 'REMOVE #waiting',
        ConditionExpression: '#lease.#token = :token',
        ExpressionAttributeNames: {
          '#lease': leaseOf(endpointId),
          '#waiting': waitingOf(endpointId),
          '#token': 'token',
        },
        ExpressionAttributeValues: { ':token': token },
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    return [...((Attributes[waitingOf(endpointId)] as Set<string> | undefined) ?? [])];
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return [];
    throw error;
  }
}
