import { releaseAutoConfigureSlot, takeAutoConfigureSlot } from '../data/auto-configure-slots.ts';
import { TeamShareFullError } from '../domain/errors.ts';
import { LIMITS, TIMEOUTS } from '../limits.ts';
import { describeError, logger } from '../telemetry.ts';
import { type AutoConfiguration, type AutoConfigureOptions, autoConfigure } from './index.ts';

/** What a caller whose team is at its share is told. */
export const SHARE_FULL_MESSAGE =
  `Your team already has ${LIMITS.autoConfigurePerTeam} auto-configure requests running, its share of ` +
  'auto-configure at once; retry when one of them ends.';

/**
 * Leases of calls that ended in this process, by team (token → the time it was cut to): the team's next take
 * from here removes them in its own write, so that calls one after another never wait out a lease's reading
 * time. Another process's ended calls are let go when their reading time runs out.
 */
const endedHere = new Map<number, Record<string, number>>();
/** Teams remembered at most (each entry is dropped by the team's next take, or makes way for newer ones). */
const TEAMS_REMEMBERED = 100;

function rememberEnded(teamId: number, token: string, until: number): void {
  const ended = endedHere.get(teamId) ?? {};
  ended[token] = until;
  endedHere.delete(teamId);
  endedHere.set(teamId, ended);
  if (endedHere.size > TEAMS_REMEMBERED) endedHere.delete(endedHere.keys().next().value as number);
}

/**
 * Auto-configure for a team, within its share (shared/data/auto-configure-slots.ts). The slot is taken beside
 * the page's fetch, not before it: the site's DNS and connection go ahead while the slot's write is answered,
 * and the request is sent only once the slot is held, so a call over its share sends the site nothing and is
 * answered 429 as soon as the write is. Once the fetches end, the lease is cut to the reading of the page
 * (AUTO_CONFIGURE_READ_MS), by a write sent while the page is read: the answer waits for it only when it
 * takes longer than the reading (a fetch that failed lets go after it, on the way to its 422).
 * A table that cannot answer is the 503 (shared/http/handler.ts), never a fetch without a slot.
 */
export async function autoConfigureForTeam(
  teamId: number,
  url: string,
  options: AutoConfigureOptions = {},
): Promise<AutoConfiguration> {
  const ended = endedHere.get(teamId);
  endedHere.delete(teamId);
  const taking = takeAutoConfigureSlot(teamId, Date.now(), { ...(ended && { ended }) });
  const admitted = taking.then((slot) => {
    if (!slot.held) throw new TeamShareFullError(SHARE_FULL_MESSAGE, TIMEOUTS.retryAfterSeconds);
  });
  let releasing: Promise<number | undefined> | undefined;
  const release = () => {
    releasing ??= taking.then(
      (slot) =>
        slot.held
          ? releaseAutoConfigureSlot(teamId, slot.token, Date.now()).catch((error: unknown) => {
              // The answer stands; the lease runs out by itself (AUTO_CONFIGURE_LEASE_MS).
              logger().warn('auto-configure slot not released', describeError(error));
              return undefined;
            })
          : undefined,
      () => undefined,
    );
    return releasing;
  };
  const work = autoConfigure(url, { ...options, admitted, onFetched: release });
  // Once refused (or the table failed), what the fetch ends with is no one's answer: not left unhandled.
  for (const settled of [admitted, work]) settled.catch(() => undefined);
  const slot = await taking;
  if (!slot.held) throw new TeamShareFullError(SHARE_FULL_MESSAGE, TIMEOUTS.retryAfterSeconds);
  try {
    return await work;
  } finally {
    const cutTo = await release();
    if (cutTo !== undefined) rememberEnded(teamId, slot.token, cutTo);
  }
}
