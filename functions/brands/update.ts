import { updateBrand } from '../../shared/data/brand-writes.ts';
import { updateBrandSchema } from '../../shared/domain/brand-input.ts';
import { validate } from '../../shared/domain/validation.ts';
import { checkImagePaths } from '../../shared/files/brand-images.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';
import { ifMatchOf, tagged } from '../../shared/http/preconditions.ts';

/**
 * Only the supplied fields change; images given as library paths are judged first and copied once the
 * brand is written (a copy that fails then undoes the update).
 */
export const handler = httpHandler(async (req) => {
  const id = pathId(req, 'Brand');
  const expected = ifMatchOf(req.headers, 'brand');
  const images = await checkImagePaths(req.teamId, validate(updateBrandSchema, req.body));
  const { brand, version, undo } = await updateBrand(req.teamId, id, images.input, expected);
  await images.publish(undo);
  return tagged(ok(brand), 'brand', { version, isDefault: brand.is_default });
});
