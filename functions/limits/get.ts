import { getQuotas } from '../../shared/data/quotas.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';

/** The team's quotas with their usage. */
export const handler = httpHandler(async (req) => ok({ quotas: await getQuotas(req.teamId) }));
