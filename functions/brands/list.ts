import { listBrands } from '../../shared/data/brands.ts';
import { isNamePosition } from '../../shared/domain/ordering.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import { pageResponse, requestedPage } from '../../shared/http/pagination.ts';

export const handler = httpHandler(async (req) => {
  const paging = requestedPage(req, 'brands', {}, isNamePosition);
  return pageResponse(req, paging, await listBrands(req.teamId, paging.options));
});
