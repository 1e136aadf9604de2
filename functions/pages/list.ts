import { listPages } from '../../shared/data/pages.ts';
import { pagesQuery } from '../../shared/domain/requests.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';
import { validate } from '../../shared/http/validation.ts';

export const handler = httpHandler(async (req) => {
  const { site_id } = validate(pagesQuery, req.query);
  return ok(await listPages(req.teamId, site_id));
});
