import * as z from 'zod/mini';

/**
 * Misspelled keys in request bodies. A body's unknown keys are ignored, as they always were (clients that
 * send extra keys keep working), except a key that is plainly a misspelling of one of the body's fields:
 * that one is a 422 naming the key as sent and the field it probably meant, since ignoring it would
 * silently drop the value the client meant to write.
 *
 * The rule. A body knows its schema's keys and the keys of the representation its route answers (a brand
 * read and sent back carries `id`, `created_at`, …: those are known, and ignored as before). A key that is
 * not known is a probable misspelling of the known key F nearest to it when, both in their normal form
 * (lower case, without `_`, `-`, `.` or white space: `primaryColor`, `primary-color` and `PRIMARY_COLOR`
 * are all `primarycolor`), they are at most this many edits apart (Damerau-Levenshtein, optimal string
 * alignment: an insertion, a deletion, a substitution or the swap of two neighbours is one edit):
 *
 * - F of 1 to 3 characters (`id`, `tag`, `url`, `x`): 0, only another case or separator (`URL`, `Tag`);
 * - F of 4 to 7 characters (`name`, `tags`, `path`, `options`): 1 (`nmae`, `tag` for `tags`, `option`);
 * - F of 8 characters or more (`primary_color`, `is_default`, `max_length`): 2 (`primary_colour`,
 *   `primery_colour`, `default` for `is_default`).
 *
 * Two edits in fewer than 8 characters make a different word as often as a typo (`gitlab` and `github`,
 * `phone` and `phone_id`, `photo_id` and `phone_id`), and one edit in 3 (`id` and `ip`, `url` and `uri`).
 * The nearest known key decides (a writable one on a tie): a key nearest to a read-only
 * field (`createdAt`, `teamId`) is ignored as that field itself would be, since it would change nothing.
 *
 * The distance is this file's own short function rather than a package: the widely used npm package with
 * transpositions (damerau-levenshtein, 1.2 KB minified) is CommonJS without types and always fills a
 * matrix as long as the longer string (a key of 100,000 characters costs that much for every field),
 * whereas here a length check and an early exit once a row exceeds the allowance keep any body cheap.
 */

/** The form two spellings of one field share: lower case, without `_`, `-`, `.` or white space. */
export function normalFieldName(key: string): string {
  return key.toLowerCase().replace(/[\s_.-]+/g, '');
}

/** How many edits apart a key may be from a field (both normalised) to be taken as a misspelling of it. */
export function editsAllowed(normalField: string): number {
  if (normalField.length <= 3) return 0;
  return normalField.length <= 7 ? 1 : 2;
}

/**
 * The optimal string alignment distance of two strings (Damerau-Levenshtein where a swapped pair is not
 * edited again), by UTF-16 code unit; any value above `max` is answered as `max + 1`.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (before[j - 2] as number) + 1);
      }
      current[j] = best;
      rowMin = Math.min(rowMin, best);
    }
    // No later row has a smaller minimum (a swap reaching back two rows costs at least a diagonal step).
    if (rowMin > max) return max + 1;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length] as number, max + 1);
}

/** The keys a body knows: those it writes (a misspelling of one is refused) and read-only ones (ignored). */
export interface BodyKeys {
  writable: readonly string[];
  readOnly: readonly string[];
}

/**
 * The writable field `key` is a probable misspelling of, by the rule above; undefined when the key is
 * known, or near no field, or nearest to a read-only one.
 */
export function probableField(key: string, keys: BodyKeys): string | undefined {
  if (keys.writable.includes(key) || keys.readOnly.includes(key)) return undefined;
  const form = normalFieldName(key);
  if (form === '') return undefined;
  let nearest: { field: string; distance: number; writable: boolean } | undefined;
  for (const [fields, writable] of [
    [keys.writable, true],
    [keys.readOnly, false],
  ] as const) {
    for (const field of fields) {
      const fieldForm = normalFieldName(field);
      const allowed = editsAllowed(fieldForm);
      const distance = editDistance(form, fieldForm, allowed);
      if (distance <= allowed && (!nearest || distance < nearest.distance)) {
        nearest = { field, distance, writable };
      }
    }
  }
  return nearest?.writable ? nearest.field : undefined;
}

/** How a 422 says it, under the key as sent (`path` is where the key is: `social_links.` for a nested one). */
export const misspelledKeyMessage = (key: string, field: string, path = ''): string =>
  `Unknown field ${path}${key}: did you mean ${path}${field}?`;

/** The body's probable misspellings in its order, each with the field meant; [] for a body not an object. */
export function misspelledKeys(body: unknown, keys: BodyKeys): Array<{ key: string; field: string }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  return Object.keys(body).flatMap((key) => {
    const field = probableField(key, keys);
    return field === undefined ? [] : [{ key, field }];
  });
}

/**
 * Request body schemas, each with the keys of the representation its route answers that it does not take
 * (a test holds them to the OpenAPI document's): `validate` refuses a registered body's misspelled keys
 * with its other errors (shared/http/validation.ts).
 */
export const requestBodies = z.registry<BodyKeys>();

/** Registers an object schema as a request body that also knows these read-only keys. */
export function requestBody<S extends z.ZodMiniObject>(schema: S, readOnly: readonly string[] = []): S {
  requestBodies.add(schema, { writable: Object.keys(schema.shape), readOnly });
  return schema;
}

/**
 * A registered body's keys: its schema's, writable, and the read-only keys it was registered with. (`z.core`
 * only as a type here: as a value it would bundle all of zod, locales included.)
 */
export function bodyKeysOf(schema: z.core.$ZodType): BodyKeys | undefined {
  return requestBodies.get(schema);
}
