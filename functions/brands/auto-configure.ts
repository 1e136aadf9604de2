import * as z from 'zod';
import { autoConfigure } from '../../shared/autoconfigure/index.ts';
import { FetchRefusal } from '../../shared/autoconfigure/refusal.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';
import { validate } from '../../shared/http/validation.ts';

const request = z.object({ url: z.string().trim().min(1).max(2048) });

export const handler = httpHandler(async (req) => {
  const { url } = validate(request, req.body);
  const suggestions = await autoConfigure(url).catch((error: unknown) => {
    if (error instanceof FetchRefusal) req.metrics.count('AutoConfigureRefused', 1, { reason: error.reason });
    throw error;
  });
  req.metrics.count('AutoConfigureSuggested');
  return ok({ suggestions });
});
