import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LIMITS, TIMEOUTS } from '../limits.ts';
import { dynamo, tableName } from './dynamo.ts';
import { writtenIf } from './items.ts';
import { autoConfigureSlotsKey } from './keys.ts';
import { plainItem } from './transactions.ts';

/**
 * A team's share of auto-configure (docs/tenant-isolation.md, "Concurrency"): the calls of one team that
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
/**
 * What a lease keeps once the call's fetches have ended: the reading of the page that follows (the tests' 5 MiB
 * hostile pages take at most 264 ms after their last fetch on a development machine; Lambda gives 1,024 MB
 * about 0.6 of a vCPU). Let go at the very end instead, the answer would wait for one more write; kept
 * this long, a team's calls reading pages count against its share too. A call that ended is let go sooner by
 * the next take of the team from the same process (`ended`), which knows it ended.
 */
export const AUTO_CONFIGURE_READ_MS = 1_000;
/** Writes a taker tries while other calls of the team change the item (each miss means another's write). */
const TAKE_ATTEMPTS = 5;

export type Slot = { held: true; token: string } | { held: false };

type Leases = Record<string, number>;

/**
 * Takes one of the team's slots: one conditional write when one is free, another when the item is new or
 * leases are to be taken over (run out: their holder gone); refused at once when `share` leases are live.
 * `ended`: leases of the team's calls this process knows have ended (token → the time it was cut to), removed
 * in the same write.
 */
export async function takeAutoConfigureSlot(
  teamId: number,
  nowMs: number,
  { share = LIMITS.autoConfigurePerTeam, ended = {} }: { share?: number; ended?: Leases } = {},
): Promise<Slot> {
  const token = randomUUID();
  const until = nowMs + AUTO_CONFIGURE_LEASE_MS;
  const key = autoConfigureSlotsKey(teamId);
  // First: a slot free now (once the ended leases are gone), no read needed. Then what the item as it was says.
  let write = takeOver(key, token, until, share, Object.entries(ended));
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
    const gone = entries.filter(
      ([holder, leaseUntil]) => leaseUntil <= nowMs || ended[holder] === leaseUntil,
    );
    if (entries.length - gone.length >= share) return { held: false };
    write = takeOver(key, token, until, share, gone);
  }
  // Every write met another's first: the team's calls are taking the slots now.
  return { held: false };
}

/**
 * Takes a slot in place of leases that are gone (run out, or ended), if they are still as read: with them
 * removed the item holds fewer than `share`, so the new lease keeps it at `share` at most. None gone: the
 * plain take of a free slot.
 */
function takeOver(
  key: ReturnType<typeof autoConfigureSlotsKey>,
  token: string,
  until: number,
  share: number,
  gone: Array<[string, number]>,
): UpdateCommand {
  const names: Record<string, string> = { '#token': token };
  const values: Record<string, number> = { ':until': until, ':limit': share + gone.length };
  // size() of a missing map is no number: the condition fails, and the item as it was says there is none.
  const unchanged = gone.map(([holder, leaseUntil], index) => {
    names[`#gone${index}`] = holder;
    values[`:gone${index}`] = leaseUntil;
    return `leases.#gone${index} = :gone${index}`;
  });
  return new UpdateCommand({
    TableName: tableName(),
    Key: key,
    UpdateExpression: `SET leases.#token = :until${
      gone.length > 0 ? ` REMOVE ${gone.map((_, index) => `leases.#gone${index}`).join(', ')}` : ''
    }`,
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
 * The call's fetches have ended: its lease is cut to the reading that follows (AUTO_CONFIGURE_READ_MS from
 * `nowMs`, returned), after which the slot is free. A lease already gone (it ran out and was taken over) stays gone; a
 * retried write that had gone through writes the same again.
 */
export async function releaseAutoConfigureSlot(
  teamId: number,
  token: string,
  nowMs: number,
): Promise<number> {
  const until = nowMs + AUTO_CONFIGURE_READ_MS;
  await writtenIf(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: autoConfigureSlotsKey(teamId),
        UpdateExpression: 'SET leases.#token = :until',
        ConditionExpression: 'attribute_exists(leases.#token)',
        ExpressionAttributeNames: { '#token': token },
        ExpressionAttributeValues: { ':until': until },
      }),
    ),
  );
  return until;
}
