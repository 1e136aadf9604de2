import { type Brand, brandBodyRecord, createBrand } from '../../shared/data/brands.ts';
import { createBrandSchema } from '../../shared/domain/brand-input.ts';
import { promoteImagePaths } from '../../shared/files/brand-images.ts';
import { created } from '../../shared/http/handler.ts';
import { idempotentHandler } from '../../shared/http/idempotency.ts';
import { tagged } from '../../shared/http/preconditions.ts';
import { validate } from '../../shared/http/validation.ts';

/** A new brand is at version 1. */
const respond = (brand: Brand) =>
  tagged(created(brand), 'brand', { version: 1, isDefault: brand.is_default });

/**
 * Images given as library paths are copied to the public library before the brand is written; a replay
 * renders the brand's images under the public base URL of its time, as a GET does.
 */
export const handler = idempotentHandler(async (req, idempotency) => {
  const input = await promoteImagePaths(req.teamId, validate(createBrandSchema, req.body));
  return respond(await createBrand(req.teamId, input, idempotency.commitsWith(respond)));
}, brandBodyRecord);
