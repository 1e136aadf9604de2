import { getBrand } from '../../shared/data/brands.ts';
import { unlessNotModified } from '../../shared/http/conditional.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';
import { tagged } from '../../shared/http/preconditions.ts';

/** With its ETag; If-None-Match naming it answers 304. */
export const handler = httpHandler(async (req) => {
  const { brand, version } = await getBrand(req.teamId, pathId(req, 'Brand'));
  return unlessNotModified(req, tagged(ok(brand), 'brand', { version, isDefault: brand.is_default }));
});
