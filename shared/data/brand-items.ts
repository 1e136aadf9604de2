import {
  BRAND_FIELD_NAMES,
  type Brand,
  type BrandChanges,
  type BrandFields,
  brandFieldKind,
  emptyBrandValue,
  IMAGE_FIELDS,
  STORED_BRAND_FIELDS,
} from '../domain/brand.ts';
import { isBrandImageKey, renderedImage, storedImage } from '../domain/public-urls.ts';
import { requestStampUpdate } from './items.ts';

/**
 * A brand's item and the brand the API answers from it (the fields are declared in domain/brand.ts). An
 * image the API copied to the public library is stored as its key and rendered as a URL on every read, so
 * a new public base URL (a replaced CloudFront distribution, s3rver on another port) breaks no brand; other
 * URLs, and absolute ones stored before, are kept as given (domain/public-urls.ts).
 */

/** The response shape, in the order of spec 2.1; keys and internal counters stay behind. */
export function fromItem(item: Record<string, unknown>, defaultId: number | undefined): Brand {
  return withImages(shapeOf(item, defaultId), renderedImage);
}

/** A brand's representation from its stored item, as the API answers it (change events render it so). */
export const brandOfItem = (item: Record<string, unknown>, isDefault: boolean): Brand =>
  fromItem(item, isDefault ? (item.id as number) : undefined);

/** The fields of the response in its order (the declaration's), with their defaults; images as stored. */
export function shapeOf(item: Record<string, unknown>, defaultId: number | undefined): Brand {
  const shaped: Record<string, unknown> = {};
  for (const field of BRAND_FIELD_NAMES) {
    const empty = emptyBrandValue(brandFieldKind(field));
    if (field === 'is_default') shaped[field] = item.id === defaultId;
    else shaped[field] = empty === undefined ? item[field] : (item[field] ?? empty);
  }
  return shaped as Brand;
}

/** The object with each image field that holds a string mapped (keys stay in place, so the JSON's order does). */
export function withImages<T>(brand: T, map: (image: string) => string): T {
  if (typeof brand !== 'object' || brand === null || Array.isArray(brand)) return brand;
  const mapped = { ...brand } as Record<string, unknown>;
  for (const field of IMAGE_FIELDS) {
    const image = mapped[field];
    if (typeof image === 'string') mapped[field] = map(image);
  }
  return mapped as T;
}

/**
 * A brand's body as an idempotency record keeps it (its images as the brand stores them) and as a replay
 * answers it (rendered under the base of the replay's time): the same bytes while the base is the same.
 */
export const brandBodyRecord = {
  keep: (body: unknown, teamId: number): unknown => withImages(body, (url) => storedImage(teamId, url)),
  replay: (body: unknown): unknown => withImages(body, renderedImage),
};

/** The public-library keys one stored brand item names. */
export const brandImageKeysOf = (item: Record<string, unknown> | undefined): string[] =>
  IMAGE_FIELDS.map((field) => item?.[field]).filter(
    (image): image is string => typeof image === 'string' && isBrandImageKey(image),
  );

/** SET of the given attributes and `updated_at`, and a version bump. */
export function brandUpdate(attributes: Record<string, unknown>, now: string) {
  const stamp = requestStampUpdate();
  const names: Record<string, string> = { '#updated_at': 'updated_at', '#version': 'version' };
  const values: Record<string, unknown> = { ':updated_at': now, ':one': 1, ...stamp.values };
  const sets = ['#updated_at = :updated_at', ...stamp.set];
  for (const [name, value] of Object.entries(attributes)) {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  return {
    UpdateExpression: `SET ${sets.join(', ')} ADD #version :one${stamp.remove}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * The supplied stored fields, nothing else (the body is validated, but a data module trusts no caller),
 * images as a brand stores them.
 */
export function storedFields(teamId: number, changes: BrandChanges): Partial<BrandFields> {
  const fields = Object.fromEntries(
    STORED_BRAND_FIELDS.filter((field) => changes[field] !== undefined).map((field) => [
      field,
      changes[field],
    ]),
  );
  return withImages(fields, (url) => storedImage(teamId, url));
}
