import * as z from 'zod';
import { IMAGE_SLOTS, type ImagePathField, type ImageUrlField } from '../../shared/domain/brand.ts';
import type { createBrandSchema } from '../../shared/domain/brand-input.ts';
import type {
  contactFieldPatchSchema,
  newContactFieldSchema,
} from '../../shared/domain/contact-field-input.ts';
import { CONTACT_FIELD_TYPES, DEFAULT_MAX_LENGTH } from '../../shared/domain/contact-field-types.ts';
import { EVENT_TYPES } from '../../shared/domain/event-shape.ts';
import { MAX_PATH_BYTES } from '../../shared/domain/library-path.ts';
import type { autoConfigureRequest, uploadRequest } from '../../shared/domain/requests.ts';
import { KNOWN_NETWORKS } from '../../shared/domain/social-links.ts';
import type {
  createWebhookEndpointSchema,
  recoverSchema,
  redeliverSchema,
  updateWebhookEndpointSchema,
} from '../../shared/domain/webhook-input.ts';
import { LIMITS } from '../../shared/limits.ts';
import { DISABLE_AFTER_MS } from '../../shared/webhooks/schedule.ts';

/**
 * What each field of the OpenAPI document means: its format, its limits (from shared/limits.ts and the
 * schemas, never restated by hand) and what it does. The response representations (representations.ts)
 * carry theirs as zod metadata where they are defined. The request schemas are shared/'s, bundled into
 * every function that validates with them: their descriptions are kept here and registered on them only
 * when the document is built (`described`), so no function carries the text at load (as document.ts keeps
 * the query parameters' descriptions). Each table is keyed by its schema's fields: a field without a
 * description is a type error, and test/lib/openapi/document.services.test.ts fails on any property of the document without one.
 */

/** A number as the README writes it: `1,002`. */
const n = (value: number) => value.toLocaleString('en-US');

const TEXT = `${n(LIMITS.textLength)} characters`;

/** What each image slot is, by its URL field. */
const IMAGES: Record<ImageUrlField, string> = {
  logo_image: 'logo (the wide one, for headers of messages and pages)',
  logo_square_image: 'square logo (an icon or avatar)',
  header_image: 'header image (a banner above the content of its emails)',
  footer_image: 'footer image (below the content of its emails)',
  social_share_image: 'image shown where a message or page is shared on social networks',
};

const imageOf = (field: ImageUrlField) => `The brand's ${IMAGES[field]}`;

/** A library path: what it names, and its rules (README, "The file library's rules"). */
export const LIBRARY_PATH_RULES =
  `Folders and file name joined by \`/\`, relative to the library (no leading \`/\`, no \`.\`, \`..\` or ` +
  'empty names, no backslash or control character, not under `teams/`); each name at most ' +
  `${n(LIMITS.libraryNameBytes)} bytes and the path at most ${n(MAX_PATH_BYTES)} bytes, UTF-8 encoded.`;

/** How a profile URL given in a list is named: by its known network's host, else by its domain. */
const networks = Object.entries(KNOWN_NETWORKS).reduce<Record<string, string[]>>((named, [host, network]) => {
  named[network] = [...(named[network] ?? []), host];
  return named;
}, {});
const KNOWN = Object.entries(networks).map(([network, hosts]) => `\`${network}\` (${hosts.join(', ')})`);
const NETWORK_NAMES = `${KNOWN.join(', ')}, else the name of the URL's domain (\`example\` for www.example.co.uk)`;

/** The brand's fields as the API answers them (representations.ts's Brand; suggestions reuse some). */
export const BRAND = {
  id: "The brand's id: a positive integer.",
  team_id: 'The team the brand belongs to: the team of the token that made it.',
  name: `The brand's name: 1 to ${TEXT}, trimmed. Lists are ordered by it, case-insensitively.`,
  short_description: `A short description of the brand, at most ${TEXT}; null when none.`,
  website_url: `The brand's website: an http(s) URL of at most ${TEXT}, as it was given; null when none.`,
  primary_color: 'The main colour, `#rrggbb` (hexadecimal, in the case it was given); null when none.',
  secondary_color: 'The second colour, `#rrggbb` (hexadecimal, in the case it was given); null when none.',
  is_default: "Whether this is the team's default brand: at most one brand is.",
  ...(Object.fromEntries(
    IMAGE_SLOTS.map(({ url, path }) => [
      url,
      `${imageOf(url)}: a public http(s) URL of at most ${TEXT}, or null. The URL given as \`${url}\`, or ` +
        `the permanent URL of the public copy made from the library file given as \`${path}\`.`,
    ]),
  ) as Record<ImageUrlField, string>),
  email_address_id:
    'The id of the verified email sender identity (a From address of the team) the brand sends from; null when none.',
  phone_id:
    'The id of the verified phone number (an SMS sender of the team) the brand sends from; null when none.',
  social_links:
    `The brand's social profiles, network name to profile URL (at most ${n(LIMITS.brandSocialLinks)}); ` +
    `null when none. A URL given in a list is named by its network: ${NETWORK_NAMES}.`,
  tags: `Labels of the brand: at most ${n(LIMITS.brandTags)}, distinct, each 1 to ${TEXT}; \`[]\` when none.`,
  created_at: 'When the brand was created: ISO 8601 in UTC, with microseconds.',
  updated_at: 'When the brand last changed: ISO 8601 in UTC, with microseconds.',
};

/** Said of every optional brand field: how to clear it. */
const CLEARS = 'null or `""` clears it.';

type BrandInput = Record<keyof typeof createBrandSchema._zod.def.shape, string>;

/** POST and PUT /brands (the update takes the same fields, each optional). */
export const BRAND_INPUT: BrandInput = {
  name:
    `The brand's name: 1 to ${TEXT} once trimmed. Required to create; an update may change it, ` +
    'not clear it.',
  short_description: `A short description, at most ${TEXT}; ${CLEARS}`,
  website_url: `The brand's website: an http or https URL of at most ${TEXT}, stored as given; ${CLEARS}`,
  primary_color: `The main colour, \`#rrggbb\` (six hexadecimal digits, either case); ${CLEARS}`,
  secondary_color: `The second colour, \`#rrggbb\` (six hexadecimal digits, either case); ${CLEARS}`,
  is_default:
    "`true` makes this the team's default brand (the brand that was stops being it); `false` makes it " +
    'not the default; null or absent leaves it as it is (a new brand is not the default).',
  ...(Object.fromEntries(
    IMAGE_SLOTS.flatMap(({ url, path }) => [
      [
        url,
        `${imageOf(url)}, by URL: an http or https URL of at most ${TEXT}, stored as given; ${CLEARS} ` +
          `Or give \`${path}\` instead.`,
      ],
      [
        path,
        `${imageOf(url)}, by path: a file of the team's private library (uploaded with \`POST /files\`, ` +
          `whose \`path\` rules it follows): a PNG, JPEG, GIF or WebP image by its bytes, uploaded with that ` +
          `type (SVG is refused), of at most ${LIMITS.brandImageBytes[url]} bytes. Once the brand is written ` +
          `the file is copied to the public library under \`brands/\` and \`${url}\` becomes the copy's ` +
          `permanent URL (later changes to the file do not reach it). Wins over \`${url}\`; null is "not ` +
          'given". A missing file, one of another type or over the size is a 422 naming this field.',
      ],
    ]),
  ) as Record<ImageUrlField | ImagePathField, string>),
  email_address_id:
    'The id of an email sender identity (a From address) of the team, which must be verified (else a 422); ' +
    'null clears it.',
  phone_id:
    'The id of a phone number (an SMS sender) of the team, which must be verified (else a 422); null clears it.',
  social_links:
    'Social profile URLs (http or https, each at most ' +
    `${TEXT}), in either form: a list of at most ${n(LIMITS.brandSocialLinks)} URLs, each named by its ` +
    `network (${NETWORK_NAMES}; two different URLs of one network are a 422), or a map of network name ` +
    '(a letter or digit, then letters, digits, `.`, `_` or `-`) to URL, at most ' +
    `${n(LIMITS.brandSocialLinks)}. Answered as a map. ` +
    'null, `""`, `[]` or `{}` clears them.',
  tags: `Labels: at most ${n(LIMITS.brandTags)}, each 1 to ${TEXT}; duplicates are dropped; null clears them.`,
};

const TYPES = `one of the ${CONTACT_FIELD_TYPES.length} types of \`GET /contact-fields/types\``;
const TAG =
  `The field's machine name, unique in the team (a taken one is a 422): 1 to ${TEXT}, a lowercase letter ` +
  'then lowercase letters, digits and underscores.';
const OPTIONS =
  `The choices of a \`pick_list\`: at most ${n(LIMITS.contactFieldOptions)}, distinct, each 1 to ` +
  `${n(LIMITS.contactFieldOptionLength)} characters once trimmed, ${LIMITS.contactFieldOptionsBytes / 1024} ` +
  'KiB in all (UTF-8).';

/** The contact field's fields as the API answers them. */
export const CONTACT_FIELD = {
  id: "The field's id: a positive integer.",
  name: `The field's name, as people see it: 1 to ${TEXT}, trimmed.`,
  tag: TAG,
  type: `The field's type: ${TYPES}.`,
  contact_type: 'Whom the field describes: a `person` or an `organization`.',
  max_length: `The longest value the field holds, in characters (${DEFAULT_MAX_LENGTH} unless set); null only for a field stored without one.`,
  options: `${OPTIONS} null for the other types.`,
  allow_multiple: 'Whether a contact may have several of the options (a `pick_list` only); false otherwise.',
  integration_id:
    'The integration that manages the field (such a field is read-only: a PUT or DELETE is a 403); ' +
    "null for the team's own fields.",
};

type ContactFieldInput = Record<keyof typeof newContactFieldSchema._zod.def.shape, string>;

export const CONTACT_FIELD_INPUT: ContactFieldInput = {
  name: `The field's name, as people see it: 1 to ${TEXT} once trimmed.`,
  tag: TAG,
  type: `The field's type: ${TYPES}.`,
  contact_type: 'Whom the field describes: `person` or `organization`. Set once: an update cannot change it.',
  max_length: `The longest value the field holds, in characters: an integer from 1; null or absent: ${DEFAULT_MAX_LENGTH}.`,
  options: `${OPTIONS} Required for a \`pick_list\` (null or \`[]\` is none), refused for the other types.`,
  allow_multiple:
    'Whether a contact may have several of the options: true only for a `pick_list`. Default false.',
};

export const CONTACT_FIELD_PATCH: Record<keyof typeof contactFieldPatchSchema._zod.def.shape, string> = {
  name: CONTACT_FIELD_INPUT.name,
  tag: TAG,
  type:
    `The field's type: ${TYPES}. Leaving \`pick_list\` drops the options and \`allow_multiple\` ` +
    '(sending options with another type is a 422).',
  max_length: `The longest value the field holds, in characters: an integer from 1; null restores ${DEFAULT_MAX_LENGTH}.`,
  options: `${OPTIONS} Only for a \`pick_list\`; \`[]\` on a pick list is a 422 (it needs options).`,
  allow_multiple: 'Whether a contact may have several of the options: true only for a `pick_list`.',
};

export const AUTO_CONFIGURE_INPUT: Record<keyof typeof autoConfigureRequest._zod.def.shape, string> = {
  url:
    `The website to read: an http or https URL of at most ${n(LIMITS.autoConfigureUrlLength)} characters, ` +
    'on the standard port, of a public address (a private or loopback one is a 422).',
};

export const UPLOAD_INPUT: Record<keyof typeof uploadRequest._zod.def.shape, string> = {
  path:
    "Where the file goes in the team's private library (an existing file there is replaced). " +
    LIBRARY_PATH_RULES,
  content_type:
    `The file's media type, \`type/subtype\` with optional parameters, at most ${TEXT}: the upload must ` +
    'send it as its Content-Type (it is signed), and a brand image must be `image/*`.',
  size:
    `The file's size in bytes, at most ${n(LIMITS.uploadFileBytes)}: the upload must be exactly this many ` +
    "bytes (its Content-Length is signed). The URL takes one of the team's `uploads` and `size` of its " +
    '`upload_bytes` (GET /limits); past either, a 422 on `quota`.',
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** An event's `resource`, `<kind>:<id>`, at its longest (the events' `resource` filter takes the same). */
export const EVENT_RESOURCE_LENGTH = 'webhook_endpoint:'.length + LIMITS.idDigits;
const EVENT_TYPE_LIST = EVENT_TYPES.map((type) => `\`${type}\``).join(', ');
const ENDPOINT_URL =
  `Where deliveries are POSTed: an http or https URL of at most ${n(LIMITS.webhookUrlLength)} characters ` +
  '(https only on a deployed stack), without credentials or a fragment, on a public address and port 80 ' +
  'or 443 (a private or loopback address is a 422 naming `url`; checked again, DNS included, before every ' +
  'delivery). Stored normalised (`URL.href`: the scheme and host in lower case, a bare host with `/`).';
const ENDPOINT_EVENT_TYPES = `The event types delivered to it: 1 to ${EVENT_TYPES.length} distinct values of ${EVENT_TYPE_LIST}.`;
const ENDPOINT_DESCRIPTION = `What the endpoint is for, at most ${TEXT}; null when none.`;

/** The webhook endpoint's fields as the API answers them (representations.ts's WebhookEndpointSchema). */
export const WEBHOOK_ENDPOINT = {
  id: "The endpoint's id: a positive integer.",
  url: ENDPOINT_URL,
  event_types: `${ENDPOINT_EVENT_TYPES} In the order given.`,
  description: ENDPOINT_DESCRIPTION,
  disabled:
    'Whether deliveries are stopped: new events are kept for it as failed deliveries (`recover` sends ' +
    'them once it is enabled again) and none is sent.',
  disabled_reason:
    'Why it is disabled: `manual` (the team set `disabled: true`), `gone` (it answered a delivery with ' +
    `410), \`failing\` (its deliveries failed for ${DISABLE_AFTER_MS / DAY_MS} days with no success); null ` +
    "while it is enabled. The API's own disabling (`gone`, `failing`) is also a `webhook_endpoint.disabled` " +
    'event.',
  created_at: 'When the endpoint was created: ISO 8601 in UTC, with microseconds.',
  updated_at: 'When the endpoint last changed: ISO 8601 in UTC, with microseconds.',
  secret:
    'The signing secret, `whsec_` and the base64 of 24 random bytes (Standard Webhooks): the key of the ' +
    "HMACs in every delivery's `webhook-signature`. Shown only in this answer (and in a replay of it while " +
    'it is still the current one): keep it.',
  secret_shown:
    'Present (`false`) only in an `Idempotency-Key` replay whose secret is no longer the current one (rotated ' +
    'since, or the endpoint deleted): the replay then has no `secret`. A replay never shows an old secret.',
};

export const WEBHOOK_ENDPOINT_INPUT: Record<keyof typeof createWebhookEndpointSchema._zod.def.shape, string> =
  {
    url: `${ENDPOINT_URL} Trimmed.`,
    event_types: ENDPOINT_EVENT_TYPES,
    description: `What the endpoint is for, at most ${TEXT}; null or absent: none.`,
  };

/** PUT /webhook-endpoints/{id}: every field optional; only the given ones change. */
export const WEBHOOK_ENDPOINT_PATCH: Record<keyof typeof updateWebhookEndpointSchema._zod.def.shape, string> =
  {
    url: `${ENDPOINT_URL} Trimmed; checked as at creation.`,
    event_types: `${ENDPOINT_EVENT_TYPES} Replaces the list.`,
    description: `What the endpoint is for, at most ${TEXT}; null clears it.`,
    disabled:
      '`true` stops deliveries (`disabled_reason` becomes `manual`); `false` enables the endpoint again ' +
      'and forgets its past failures (what failed meanwhile is sent again only on `recover`).',
  };

export const RECOVER_INPUT: Record<keyof typeof recoverSchema._zod.def.shape, string> = {
  since:
    'An ISO 8601 time to the second or finer (up to nanoseconds), with `Z` or an offset ' +
    '(`2026-11-25T00:00:00Z`, `2026-11-25T01:00:00+01:00`): the deliveries to the endpoint of events from ' +
    'then on that were given up (their schedule ran out, or the endpoint was disabled when they happened) ' +
    'are sent again.',
};

export const REDELIVER_INPUT: Record<keyof typeof redeliverSchema._zod.def.shape, string> = {
  endpoint_id:
    "One of the team's webhook endpoints, subscribed to the event's type and enabled (else a 422 naming " +
    "`endpoint_id`; another team's is a 403, an unknown one a 404); absent: every enabled endpoint " +
    'subscribed to the type.',
};

/**
 * Registers each field's description on the request schema (merged into the metadata it has) and returns
 * the schema: zod's JSON Schema then carries them. Only the document's build runs this.
 */
export function described<T extends z.core.$ZodObject>(
  schema: T,
  descriptions: Record<keyof T['_zod']['def']['shape'], string>,
): T {
  for (const [field, description] of Object.entries(descriptions) as Array<[string, string]>) {
    const member = schema._zod.def.shape[field];
    if (!member) throw new Error(`no field ${field} to describe`);
    z.globalRegistry.add(member, { ...z.globalRegistry.get(member), description });
  }
  return schema;
}

/**
 * Registers what the items of a list field are (JSON Schema members, such as an `enum`), and the list's own
 * (`uniqueItems`), on a request schema
 * that checks them in code (a refinement, which JSON Schema cannot show), through the optional and the pipe
 * around the list, and returns the schema. Only the document's build runs this, as `described`.
 */
export function withItems<T extends z.core.$ZodObject>(
  schema: T,
  field: keyof T['_zod']['def']['shape'] & string,
  items: Record<string, unknown>,
  list: Record<string, unknown> = {},
): T {
  let member: z.core.$ZodType | undefined = schema._zod.def.shape[field];
  while (member && !(member instanceof z.core.$ZodArray)) {
    const def = member._zod.def as { innerType?: z.core.$ZodType; in?: z.core.$ZodType };
    member = def.innerType ?? def.in;
  }
  if (!member) throw new Error(`no list ${field} to describe the items of`);
  const element = member._zod.def.element;
  z.globalRegistry.add(element, { ...z.globalRegistry.get(element), ...items });
  z.globalRegistry.add(member, { ...z.globalRegistry.get(member), ...list });
  return schema;
}
