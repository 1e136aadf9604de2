import { listBrands } from '../../shared/data/brands.ts';
import { isNamePosition } from '../../shared/domain/ordering.ts';
import { brandsQuery } from '../../shared/domain/requests.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import { pageResponse, requestedPage } from '../../shared/http/pagination.ts';
import { validate } from '../../shared/http/validation.ts';

export const handler = httpHandler(async (req) => {
  const paging = requestedPage(req, 'brands', {}, validate(brandsQuery, req.query), isNamePosition);
  return pageResponse(req, paging, await listBrands(req.teamId, paging.options));
});
