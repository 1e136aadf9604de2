import { deleteBrand } from '../../shared/data/brands.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';

/** Lists that named the brand keep existing with `brand_id` null. */
export const handler = httpHandler(async (req) => {
  await deleteBrand(req.teamId, pathId(req, 'Brand'));
  return ok({ message: 'Brand deleted.' });
});
