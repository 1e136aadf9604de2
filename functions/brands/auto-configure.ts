import { autoConfigureForTeam } from '../../shared/autoconfigure/team-share.ts';
import { autoConfigureRequest } from '../../shared/domain/requests.ts';
import { validate } from '../../shared/domain/validation.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';
import { FetchRefusal } from '../../shared/outbound/refusal.ts';

export const handler = httpHandler(async (req) => {
  const { url } = validate(autoConfigureRequest, req.body);
  const configuration = await autoConfigureForTeam(req.teamId, url).catch((error: unknown) => {
    if (error instanceof FetchRefusal) req.metrics.count('AutoConfigureRefused', 1, { reason: error.reason });
    throw error;
  });
  req.metrics.count('AutoConfigureSuggested');
  return ok(configuration);
});
