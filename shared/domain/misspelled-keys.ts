import * as z from 'zod/mini';
import { LIMITS } from '../limits.ts';

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
 * A key of more than LIMITS.misspelledKeyLength characters is no misspelling, and one 422 names the first
 * LIMITS.misspelledKeysNamed (a body of 1 MiB may hold 50,000 spellings of one field).
 *
 * The distance is this file's own short function rather than a package: the widely used npm package with
 * transpositions (damerau-levenshtein, 1.2 KB minified) is CommonJS without types and always fills a
 * matrix as long as the longer string (a key of 100,000 characters costs that much for every field),
 * whereas here a length check and an early exit once a row exceeds the allowance keep any body cheap.
 */

/**
 * Common other names of fields, which no edit distance finds (`colour` is 9 edits from `primary_color`): a
 * body's key that is, in its normal form, one of these names for one of the body's writable fields gets the
 * same 422 and suggestion as a misspelling. Short on purpose: names callers of brand and form APIs use for
 * the same thing, none a name of another field (README, "Unknown and misspelled keys", lists them).
 */
export const FIELD_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  // Brands.
  primary_color: ['color', 'colour', 'brand_color', 'brand_colour', 'main_color', 'main_colour'],
  secondary_color: ['accent_color', 'accent_colour'],
  logo_image: ['logo', 'logo_url', 'logo_image_url'],
  logo_image_path: ['logo_path'],
  short_description: ['description', 'summary', 'tagline'],
  website_url: ['website', 'site', 'site_url', 'homepage', 'homepage_url', 'url'],
  social_links: ['social', 'socials', 'social_media', 'social_profiles'],
  // Contact fields.
  allow_multiple: ['multiple', 'multi', 'multi_select', 'multiselect', 'allow_multiple_values'],
  options: ['choices', 'values', 'pick_list_options'],
  name: ['label', 'title'],
  type: ['field_type', 'kind'],
  // Webhook endpoints, recovery, redelivery.
  event_types: ['events', 'types', 'event'],
  since: ['from', 'after', 'start'],
  endpoint_id: ['endpoint', 'webhook_endpoint_id'],
  // Auto-configure: the site's address.
  url: ['website', 'website_url', 'site', 'site_url', 'homepage'],
  // Uploads.
  content_type: ['mime_type', 'media_type'],
  size: ['file_size', 'bytes', 'length'],
};

/** The form two spellings of one field share: lower case, without `_`, `-`, `.` or white space. */
export function normalFieldName(key: string): string {
  return key.toLowerCase().replace(/[\s_.-]+/g, '');
}

/** How many edits apart a key may be from a field (both normalised) to be taken as a misspelling of it. */
export function editsAllowed(normalField: string): number {
  if (normalField.length <= 3) return 0;
  return normalField.length <= 7 ? 1 : 2;
}

/** Three rows of the distance's matrix, reused by every call (a body may have tens of thousands of keys). */
let rows = [new Uint32Array(32), new Uint32Array(32), new Uint32Array(32)];

/**
 * The optimal string alignment distance of two strings (Damerau-Levenshtein where a swapped pair is not
 * edited again), by UTF-16 code unit; any value above `max` is answered as `max + 1`.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  const over = max + 1;
  if (Math.abs(a.length - b.length) > max) return over;
  // Rows as long as the shorter string, down the longer one.
  const [down, across] = a.length >= b.length ? [a, b] : [b, a];
  if ((rows[0] as Uint32Array).length <= across.length) {
    rows = rows.map(() => new Uint32Array(2 * across.length + 2));
  }
  let [before, previous, current] = rows as [Uint32Array, Uint32Array, Uint32Array];
  for (let j = 0; j <= across.length; j++) previous[j] = j;
  for (let i = 1; i <= down.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= across.length; j++) {
      const deletion = (previous[j] as number) + 1;
      const insertion = (current[j - 1] as number) + 1;
      const substitution = (previous[j - 1] as number) + (down[i - 1] === across[j - 1] ? 0 : 1);
      let best = deletion < insertion ? deletion : insertion;
      if (substitution < best) best = substitution;
      if (i > 1 && j > 1 && down[i - 1] === across[j - 2] && down[i - 2] === across[j - 1]) {
        const swap = (before[j - 2] as number) + 1;
        if (swap < best) best = swap;
      }
      current[j] = best;
      if (best < rowMin) rowMin = best;
    }
    // No later row has a smaller minimum (a swap reaching back two rows costs at least a diagonal step).
    if (rowMin > max) return over;
    [before, previous, current] = [previous, current, before];
  }
  const distance = previous[across.length] as number;
  return distance < over ? distance : over;
}

/** The keys a body knows: those it writes (a misspelling of one is refused) and read-only ones (ignored). */
export interface BodyKeys {
  writable: readonly string[];
  readOnly: readonly string[];
}

interface Candidate {
  field: string;
  form: string;
  allowed: number;
  writable: boolean;
  counts: Int32Array;
}

/**
 * How often each character occurs, by character code modulo 32. An edit changes these counts by 2 at most
 * (a swap not at all), so two strings whose counts differ by more than 2d are more than d edits apart:
 * most fields are ruled out for a key without working out the distance.
 */
function characterCounts(text: string, counts = new Int32Array(32)): Int32Array {
  counts.fill(0);
  for (let i = 0; i < text.length; i++) (counts[text.charCodeAt(i) & 31] as number)++;
  return counts;
}

function countsDiffer(a: Int32Array, b: Int32Array, limit: number): boolean {
  let difference = 0;
  for (let i = 0; i < 32; i++) {
    difference += Math.abs((a[i] as number) - (b[i] as number));
    if (difference > limit) return true;
  }
  return false;
}

const keyCounts = new Int32Array(32);

/** The known keys in their normal forms, worked out once per set of keys (a body may have many keys). */
const candidatesOf = (() => {
  const cache = new WeakMap<
    BodyKeys,
    { known: Set<string>; candidates: Candidate[]; synonyms: Map<string, string> }
  >();
  return (keys: BodyKeys) => {
    let entry = cache.get(keys);
    if (!entry) {
      const candidates = [
        ...keys.writable.map((field) => ({ field, writable: true })),
        ...keys.readOnly.map((field) => ({ field, writable: false })),
      ].map(({ field, writable }) => {
        const form = normalFieldName(field);
        return { field, form, allowed: editsAllowed(form), writable, counts: characterCounts(form) };
      });
      // Each synonym of a writable field, in its normal form (a key known to the body stays known).
      const synonyms = new Map<string, string>();
      for (const field of keys.writable) {
        for (const synonym of FIELD_SYNONYMS[field] ?? []) synonyms.set(normalFieldName(synonym), field);
      }
      entry = { known: new Set([...keys.writable, ...keys.readOnly]), candidates, synonyms };
      cache.set(keys, entry);
    }
    return entry;
  };
})();

/**
 * The writable field `key` is a probable misspelling of, by the rule above, or a synonym of (FIELD_SYNONYMS);
 * undefined when the key is known, or near no field, or nearest to a read-only one.
 */
export function probableField(key: string, keys: BodyKeys): string | undefined {
  const { known, candidates, synonyms } = candidatesOf(keys);
  if (known.has(key) || key.length > LIMITS.misspelledKeyLength) return undefined;
  const form = normalFieldName(key);
  if (form === '') return undefined;
  const synonymOf = synonyms.get(form);
  if (synonymOf !== undefined) return synonymOf;
  let nearest: { candidate: Candidate; distance: number } | undefined;
  characterCounts(form, keyCounts);
  for (const candidate of candidates) {
    if (Math.abs(form.length - candidate.form.length) > candidate.allowed) continue;
    if (countsDiffer(keyCounts, candidate.counts, 2 * candidate.allowed)) continue;
    const distance = editDistance(form, candidate.form, candidate.allowed);
    if (distance <= candidate.allowed && (!nearest || distance < nearest.distance)) {
      nearest = { candidate, distance };
    }
  }
  return nearest?.candidate.writable ? nearest.candidate.field : undefined;
}

/** How a 422 says it, under the key as sent (`path` is where the key is: `social_links.` for a nested one). */
export const misspelledKeyMessage = (key: string, field: string, path = ''): string =>
  `Unknown field ${path}${key}: did you mean ${path}${field}?`;

/**
 * The body's first probable misspellings in its order (LIMITS.misspelledKeysNamed at most), each with the
 * field meant; [] for a body that is not an object.
 */
export function misspelledKeys(body: unknown, keys: BodyKeys): Array<{ key: string; field: string }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const found: Array<{ key: string; field: string }> = [];
  for (const key of Object.keys(body)) {
    const field = probableField(key, keys);
    if (field !== undefined) found.push({ key, field });
    if (found.length === LIMITS.misspelledKeysNamed) break;
  }
  return found;
}

/**
 * Request body schemas, each with the keys of the representation its route answers that it does not take
 * (a test holds them to the OpenAPI document's): `validate` refuses a registered body's misspelled keys
 * with its other errors (shared/domain/validation.ts).
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
