import { getTeamLimits } from '../../shared/data/teams.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';

/** The team's quotas with their usage, and the rate limit its requests are held to. */
export const handler = httpHandler(async (req) => {
  const { quotas, rateLimit } = await getTeamLimits(req.teamId);
  const { dailyQuota, ...plan } = rateLimit;
  return ok({ quotas, rate_limit: { ...plan, daily_quota: dailyQuota ?? null } });
});
