import * as z from 'zod/mini';
import { LIMITS } from '../limits.ts';
import {
  BRAND_FIELDS,
  type BrandFieldKind,
  IMAGE_SLOTS,
  type ImagePathField,
  READ_ONLY_BRAND_FIELDS,
  WRITTEN_BRAND_FIELDS,
  type WrittenBrandField,
} from './brand.ts';
import { libraryPath } from './library-path.ts';
import { misspelledKeyMessage, probableField, requestBody } from './misspelled-keys.ts';
import { NETWORK_NAMES, socialNetworkOf } from './social-links.ts';
import { HAS_SPACE, URL_SPACES } from './url-hints.ts';

/**
 * The brand create/update bodies (spec 2.1, 4.1, 8). Unknown keys are dropped, so the read-only fields of a
 * GET body sent back (id, team_id, created_at, updated_at) are ignored, but a probable misspelling of a
 * field is refused (misspelled-keys.ts). Following Laravel's convention, an empty string on an optional
 * field means null.
 */

const MAX_LENGTH = LIMITS.textLength;

/** The URL's ASCII form when it has other characters (no trailing `/` added to a bare host); else as given. */
function asciiUrl(url: string): string {
  if (/^[\x20-\x7e]*$/.test(url)) return url;
  const parsed = new URL(url);
  const bare = parsed.pathname === '/' && !/^[a-z]+:\/\/[^/?#]*\//i.test(url);
  return bare ? parsed.href.replace(/\/(?=[?#]|$)/, '') : parsed.href;
}

const optional = <T extends z.ZodMiniType>(schema: T) =>
  z.optional(
    z.pipe(
      z.transform((value: unknown) => (value === '' ? null : value)),
      z.nullable(schema),
    ),
  );

/**
 * An http(s) URL as `format: uri` has it (RFC 3986): no white space or control character anywhere (refused,
 * a space in a path is `%20`); a URL with other non-ASCII characters (an IDN host, `ü` in a path) is stored
 * and answered in its ASCII form (the host in punycode, the rest percent-encoded), as a browser sends it.
 */
const httpUrl = z.pipe(
  z.url({ protocol: /^https?$/ }).check(
    z.maxLength(MAX_LENGTH),
    z.refine((url) => !URL.canParse(url) || !HAS_SPACE.test(url), { params: { rule: URL_SPACES } }),
  ),
  z.transform(asciiUrl),
);
/** `#rrggbb`, as given. */
export const COLOR = /^#[0-9a-fA-F]{6}$/;
const color = z.string().check(z.maxLength(7), z.regex(COLOR));
const identityId = z.int().check(z.minimum(1));
const tags = z.pipe(
  z.nullable(
    z.array(z.string().check(z.minLength(1), z.maxLength(MAX_LENGTH))).check(z.maxLength(LIMITS.brandTags)),
  ),
  z.transform((list) => [...new Set(list ?? [])]),
);

/** A network name given as a map key: what socialNetworkOf produces, or a similar short label. */
export const NETWORK_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * social_links comes as the spec has it (an array of URLs, each named by socialNetworkOf; two different
 * URLs of one network are refused) or as responses and auto-configure have it (a map: the given network
 * names are kept). Either way it is stored as a map; an empty one is null.
 */
/** The two forms social_links is accepted in (what the OpenAPI document shows for it). */
export const socialLinksForms = z.union([
  z.array(httpUrl).check(z.maxLength(LIMITS.brandSocialLinks)),
  // The map's limits are checked below (with their own messages); the metadata says them in the document.
  z
    .record(z.string().register(z.globalRegistry, { maxLength: 64, pattern: NETWORK_NAME.source }), httpUrl)
    .register(z.globalRegistry, { maxProperties: LIMITS.brandSocialLinks }),
]);

/**
 * A map key that is a probable misspelling of the known network its URL belongs to (`Facebook`, `face_book`
 * or `facebok` for a facebook.com profile). Any other name is the caller's label, kept as given: `gitlab`
 * for a gitlab.com profile is not `github`, nor is `twitter` for an x.com one.
 */
function misspelledNetwork(key: string, url: string): string | undefined {
  const network = socialNetworkOf(url);
  if (!NETWORK_NAMES.includes(network)) return undefined;
  return probableField(key, { writable: [network], readOnly: NETWORK_NAMES });
}

const socialLinks = z.pipe(
  z.pipe(
    z.custom<object>((value) => typeof value === 'object' && value !== null, {
      message: 'The social links field must be an array of URLs or an object of network names to URLs.',
    }),
    socialLinksForms,
  ),
  z.transform((input, ctx) => {
    const links: Record<string, string> = Object.create(null);
    const addIssue = (message: string, path: PropertyKey[] = []) =>
      ctx.issues.push({ code: 'custom', input, path, message });
    if (Array.isArray(input)) {
      input.forEach((url, i) => {
        const network = socialNetworkOf(url);
        if (links[network] !== undefined && links[network] !== url) {
          addIssue(`The social links field has more than one ${network} link.`, [i]);
        }
        links[network] = url;
      });
    } else {
      let misspelled = 0;
      for (const [network, url] of Object.entries(input)) {
        if (!NETWORK_NAME.test(network)) {
          addIssue(`The social links field has an invalid network name: ${network}.`);
        }
        const meant = misspelled < LIMITS.misspelledKeysNamed && misspelledNetwork(network, url);
        if (meant) {
          addIssue(misspelledKeyMessage(network, meant, 'social_links.'), [network]);
          misspelled++;
        }
        links[network] = url;
      }
      if (Object.keys(links).length > LIMITS.brandSocialLinks) {
        addIssue(`The social links field must not have more than ${LIMITS.brandSocialLinks} items.`);
      }
    }
    return Object.keys(links).length > 0 ? links : null;
  }),
);

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_LENGTH));

/**
 * The rule of each kind a body writes (domain/brand.ts declares each field's kind): a new schema per field,
 * so that each field's description is its own when the OpenAPI document registers it.
 */
const KIND_RULES = {
  name: () => name,
  text: () => optional(z.string().check(z.maxLength(MAX_LENGTH))),
  url: () => optional(httpUrl),
  color: () => optional(color),
  // null is "not given": the flag is only ever set or unset on purpose.
  flag: () =>
    z.pipe(
      z.optional(z.nullable(z.boolean())),
      z.transform((value) => value ?? undefined),
    ),
  image: () => optional(httpUrl),
  identity: () => z.optional(z.nullable(identityId)),
  social_links: () => optional(socialLinks),
  tags: () => z.optional(tags),
} satisfies Partial<Record<BrandFieldKind, () => z.ZodMiniType>>;

/** An image's `_path` twin: null on a path is "no path given" (null on the URL form is what clears an image). */
const imagePath = (field: ImagePathField) => optional(libraryPath(field));

type RuleOf<F extends WrittenBrandField> = ReturnType<(typeof KIND_RULES)[(typeof BRAND_FIELDS)[F]['kind']]>;
type OptionalFields = { [F in Exclude<WrittenBrandField, 'name'>]: RuleOf<F> } & {
  [P in ImagePathField]: ReturnType<typeof imagePath>;
};

/** Every written field but the name, in the declaration's order; the image paths follow the last image. */
function optionalFieldsOf(): OptionalFields {
  const fields: Record<string, z.ZodMiniType> = {};
  const lastImage = IMAGE_SLOTS[IMAGE_SLOTS.length - 1]?.url;
  for (const field of WRITTEN_BRAND_FIELDS) {
    if (field !== 'name') fields[field] = KIND_RULES[BRAND_FIELDS[field].kind as keyof typeof KIND_RULES]();
    if (field === lastImage) for (const { path } of IMAGE_SLOTS) fields[path] = imagePath(path);
  }
  return fields as OptionalFields;
}

const optionalFields = optionalFieldsOf();

export const createBrandSchema = requestBody(z.object({ name, ...optionalFields }), READ_ONLY_BRAND_FIELDS);
/** Every field optional; only the supplied ones change. `name` cannot be cleared. */
export const updateBrandSchema = requestBody(
  z.object({ name: z.optional(name), ...optionalFields }),
  READ_ONLY_BRAND_FIELDS,
);

export type CreateBrandInput = z.output<typeof createBrandSchema>;
export type UpdateBrandInput = z.output<typeof updateBrandSchema>;
