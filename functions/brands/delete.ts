import { deleteBrand } from '../../shared/data/brand-deletes.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';
import { ifMatchOf } from '../../shared/http/preconditions.ts';

/** Lists that named the brand keep existing with `brand_id` null. */
export const handler = httpHandler(async (req) => {
  await deleteBrand(req.teamId, pathId(req, 'Brand'), ifMatchOf(req.headers, 'brand'));
  return ok({ message: 'Brand deleted.' });
});
