import { updateBrand } from '../../shared/data/brands.ts';
import { updateBrandSchema } from '../../shared/domain/brand-input.ts';
import { promoteImagePaths } from '../../shared/files/brand-images.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';
import { ifMatchOf, tagged } from '../../shared/http/preconditions.ts';
import { validate } from '../../shared/http/validation.ts';

/** Only the supplied fields change; images given as library paths are copied first. */
export const handler = httpHandler(async (req) => {
  const id = pathId(req, 'Brand');
  const expected = ifMatchOf(req.headers, 'brand');
  const changes = await promoteImagePaths(req.teamId, validate(updateBrandSchema, req.body));
  const { brand, version } = await updateBrand(req.teamId, id, changes, expected);
  return tagged(ok(brand), 'brand', { version, isDefault: brand.is_default });
});
