import { releaseAutoConfigureSlot, takeAutoConfigureSlot } from '../data/auto-configure-slots.ts';
import { TeamShareFullError } from '../http/errors.ts';
import { LIMITS, TIMEOUTS } from '../limits.ts';
import { describeError, logger } from '../telemetry.ts';
import { type AutoConfiguration, type AutoConfigureOptions, autoConfigure } from './index.ts';

/** What a caller whose team is at its share is told. */
export const SHARE_FULL_MESSAGE =
  `Your team already has ${LIMITS.autoConfigurePerTeam} auto-configure requests running, its share of ` +
  'auto-configure at once; retry when one of them ends.';

/**
 * Auto-configure for a team, within its share (shared/data/auto-configure-slots.ts). The slot is taken beside
 * the page's fetch, not before it: the site's DNS and connection go ahead while the slot's write is answered,
 * and the request is sent only once the slot is held, so a call over its share sends the site nothing and is
 * answered 429 as soon as the write is. The slot is let go once the fetches end, while the page is read.
 * A table that cannot answer is the 503 (shared/http/handler.ts), never a fetch without a slot.
 */
export async function autoConfigureForTeam(
  teamId: number,
  url: string,
  options: AutoConfigureOptions = {},
): Promise<AutoConfiguration> {
  const taking = takeAutoConfigureSlot(teamId, Date.now());
  const admitted = taking.then((slot) => {
    if (!slot.held) throw new TeamShareFullError(SHARE_FULL_MESSAGE, TIMEOUTS.retryAfterSeconds);
  });
  let releasing: Promise<void> | undefined;
  const release = () => {
    releasing ??= taking.then(
      (slot) =>
        slot.held
          ? releaseAutoConfigureSlot(teamId, slot.token).catch((error: unknown) =>
              // The answer stands; the lease runs out by itself (AUTO_CONFIGURE_LEASE_MS).
              logger().warn('auto-configure slot not released', describeError(error)),
            )
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
    await release();
  }
}
