import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LIMITS, TIMEOUTS } from '../limits.ts';
import { dynamo, tableName } from './dynamo.ts';
import { writtenIf } from './items.ts';
import { autoConfigureSlotsKey } from './keys.ts';
import { plainItem } from './transactions.ts';

/**
 * A team's share of auto-configure (README, "Tenant isolation", "Concurrency"): the calls of one team that
 * fetch at once, at most LIMITS.autoConfigurePerTeam, whatever the pool every team shares. One item per team
 * holds a lease per call (`leases`: the call's token to the time its lease runs out), so taking a slot is one
 * conditional write that needs no read first (the map's size is the condition), and the write that is
 * refused answers the item as it was, which says why: the share full, or leases run out to be taken over.
 */

/**
 * A lease runs out when Lambda would have ended its call (the function's timeout, counted from before the
 * lease was written), so a call that crashed or was killed frees its slot by then.
 */
export const AUTO_CONFIGURE_LEASE_MS = TIMEOUTS.webFunctionSeconds * 1000;
/** Writes a taker tries while other calls of the team change the item (each miss means another's write). */
const TAKE_ATTEMPTS = 5;

export type Slot = { held: true; token: string } | { held: false };

type Leases = Record<string, number>;

/**
 * Takes one of the team's slots: one conditional write when one is free, another when the item is new or
 * a lease ran out (taken over, its holder gone); refused at once when `share` leases are live.
 */
export async function takeAutoConfigureSlot(
  teamId: number,
  nowMs: number,
  share: number = LIMITS.autoConfigurePerTeam,
): Promise<Slot> {
  const token = randomUUID();
  const until = nowMs + AUTO_CONFIGURE_LEASE_MS;
  const key = autoConfigureSlotsKey(teamId);
  const free = new UpdateCommand({
    TableName: tableName(),
    Key: key,
    UpdateExpression: 'SET leases.#token = :until',
    ConditionExpression: 'size(leases) < :share',
    ExpressionAttributeNames: { '#token': token },
    ExpressionAttributeValues: { ':until': until, ':share': share },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
  // First: a slot free now, no read needed. Then whatever the item as it was says.
  let write = free;
  for (let attempt = 1; attempt <= TAKE_ATTEMPTS; attempt++) {
    const refusal = await refusedItem(write);
    if (refusal === 'written') return { held: true, token };
    const leases = refusal?.leases as Leases | undefined;
    // A retried write that had gone through (the SDK's retry after a lost answer): it is ours.
    if (leases?.[token] !== undefined) return { held: true, token };
    if (leases === undefined) {
      write = new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET leases = :leases',
        ConditionExpression: 'attribute_not_exists(leases)',
        ExpressionAttributeValues: { ':leases': { [token]: until } },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      continue;
    }
    const entries = Object.entries(leases);
    const expired = entries.filter(([, leaseUntil]) => leaseUntil <= nowMs);
    if (entries.length - expired.length >= share) return { held: false };
    // A slot was freed since (or others took and let go meanwhile): free again, or free once taken over.
    write = expired.length === 0 ? free : takeOver(key, token, until, share, expired);
  }
  // Every write met another's first: the team's calls are taking the slots now.
  return { held: false };
}

/**
 * Takes a slot in place of leases that ran out, if they are still as read: with them removed the item holds
 * fewer than `share`, so the new lease keeps it at `share` at most.
 */
function takeOver(
  key: ReturnType<typeof autoConfigureSlotsKey>,
  token: string,
  until: number,
  share: number,
  expired: Array<[string, number]>,
): UpdateCommand {
  const names: Record<string, string> = { '#token': token };
  const values: Record<string, number> = { ':until': until, ':limit': share + expired.length };
  const unchanged = expired.map(([holder, leaseUntil], index) => {
    names[`#gone${index}`] = holder;
    values[`:gone${index}`] = leaseUntil;
    return `leases.#gone${index} = :gone${index}`;
  });
  return new UpdateCommand({
    TableName: tableName(),
    Key: key,
    UpdateExpression: `SET leases.#token = :until REMOVE ${expired.map((_, index) => `leases.#gone${index}`).join(', ')}`,
    ConditionExpression: ['size(leases) < :limit', ...unchanged].join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
}

/** 'written', or the item as it was when the condition failed (undefined: there was none). */
async function refusedItem(write: UpdateCommand): Promise<'written' | Record<string, unknown> | undefined> {
  try {
    await dynamo().send(write);
    return 'written';
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return plainItem(error.Item);
  }
}

/**
 * Lets the slot go. Already gone (it ran out and was taken over, or a retried release had gone through) is
 * let go as well.
 */
export async function releaseAutoConfigureSlot(teamId: number, token: string): Promise<void> {
  await writtenIf(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: autoConfigureSlotsKey(teamId),
        UpdateExpression: 'REMOVE leases.#token',
        ConditionExpression: 'attribute_exists(leases.#token)',
        ExpressionAttributeNames: { '#token': token },
      }),
    ),
  );
}
