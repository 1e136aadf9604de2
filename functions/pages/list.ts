import * as z from 'zod';
import { listPages } from '../../shared/data/pages.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';
import { validate } from '../../shared/http/validation.ts';

/** `?site_id=3` or `?site_id[]=3&site_id[]=4`; ids that name no site of the team simply match nothing. */
const listQuery = z.object({
  site_id: z
    .array(z.string())
    .refine((ids) => ids.every((id) => /^-?\d{1,15}$/.test(id)), {
      message: 'The site id field must be an integer.',
    })
    .transform((ids) => ids.map(Number))
    .optional(),
});

export const handler = httpHandler(async (req) => {
  const { site_id } = validate(listQuery, req.query);
  return ok(await listPages(req.teamId, site_id));
});
