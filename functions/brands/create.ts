import { brandBodyRecord } from '../../shared/data/brand-items.ts';
import { undoCreateBrand } from '../../shared/data/brand-undos.ts';
import { createBrand } from '../../shared/data/brand-writes.ts';
import type { Brand } from '../../shared/domain/brand.ts';
import { createBrandSchema } from '../../shared/domain/brand-input.ts';
import { validate } from '../../shared/domain/validation.ts';
import { checkImagePaths } from '../../shared/files/brand-images.ts';
import { created } from '../../shared/http/handler.ts';
import { idempotentHandler } from '../../shared/http/idempotency.ts';
import { tagged } from '../../shared/http/preconditions.ts';

/** A new brand is at version 1. */
const respond = (brand: Brand) =>
  tagged(created(brand), 'brand', { version: 1, isDefault: brand.is_default });

/**
 * Images given as library paths are judged first and copied to the public library once the brand is
 * written (a copy that fails then undoes the create); a replay renders the brand's images under the
 * public base URL of its time, as a GET does.
 */
export const handler = idempotentHandler(async (req, idempotency) => {
  const images = await checkImagePaths(req.teamId, validate(createBrandSchema, req.body));
  const brand = await createBrand(req.teamId, images.input, idempotency.commitsWith(respond));
  await images.publish(() => undoCreateBrand(req.teamId, brand, idempotency.forgetItems()));
  return respond(brand);
}, brandBodyRecord);
