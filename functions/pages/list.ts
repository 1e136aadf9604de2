import { listPages } from '../../shared/data/pages.ts';
import { isNamePosition } from '../../shared/domain/ordering.ts';
import { pagesQuery } from '../../shared/domain/requests.ts';
import { validate } from '../../shared/domain/validation.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import { pageResponse, requestedPage } from '../../shared/http/pagination.ts';

export const handler = httpHandler(async (req) => {
  const { site_id } = validate(pagesQuery, req.query);
  // The same sites in any order or repetition are the same filter (for the cursor and the Link).
  const siteIds = site_id && [...new Set(site_id)].sort((a, b) => a - b);
  const paging = requestedPage(req, 'pages', { site_id: siteIds?.map(String) }, isNamePosition);
  return pageResponse(req, paging, await listPages(req.teamId, siteIds, paging.options));
});
