import { getTeamLimits } from '../../shared/data/teams.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';
import { bearerToken } from '../../shared/token-form.ts';

/** The team's quotas with their usage, and the rate limit the caller's token is held to. */
export const handler = httpHandler(async (req) => {
  const token = bearerToken(req.headers.authorization) ?? '';
  const { quotas, rateLimit } = await getTeamLimits(req.teamId, token);
  const { plan, limit, windowSeconds } = rateLimit;
  return ok({ quotas, rate_limit: { plan, limit, window_seconds: windowSeconds } });
});
