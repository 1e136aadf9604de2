import * as z from 'zod';
import type { Attempt } from '../../shared/data/webhook-deliveries/attempts.ts';
import type { DeliveryView, EventDeliveryView } from '../../shared/data/webhook-deliveries/views.ts';
import {
  type DisabledReason,
  ROTATION_OVERLAP_MS,
  type webhookEndpointView,
} from '../../shared/data/webhook-endpoints.ts';
import {
  BRAND_FIELD_NAMES,
  type BrandField,
  type BrandFieldKind,
  brandFieldKind,
  emptyBrandValue,
  SUGGESTED_FIELDS,
} from '../../shared/domain/brand.ts';
import { COLOR } from '../../shared/domain/brand-input.ts';
import {
  ANSWERED_CONTACT_FIELDS,
  type AnsweredContactField,
  type ContactFieldKind,
  contactFieldKind,
  LISTED_CONTACT_FIELDS,
} from '../../shared/domain/contact-field.ts';
import { TAG_PATTERN } from '../../shared/domain/contact-field-input.ts';
import {
  CONTACT_FIELD_TYPE_VALUES,
  CONTACT_FIELD_TYPES,
  CONTACT_TYPES,
} from '../../shared/domain/contact-field-types.ts';
import { DELIVERY_STATES } from '../../shared/domain/delivery-states.ts';
import { CONFLICT_ERROR_CODES } from '../../shared/domain/errors.ts';
import { EVENT_ID, EVENT_ID_LENGTH, EVENT_TYPES } from '../../shared/domain/event-shape.ts';
import { LIBRARY_PATH } from '../../shared/domain/library-path.ts';
import { EVENT_RESOURCE, MIME_TYPE } from '../../shared/domain/requests.ts';
import { UPLOAD_URL_TTL_SECONDS } from '../../shared/files/uploads.ts';
import { FORBIDDEN_ERROR_CODES } from '../../shared/http/errors.ts';
import { LIMITS } from '../../shared/limits.ts';
import {
  MAX_RATE_LIMIT,
  MIN_RATE_LIMIT,
  PLAN_NAME,
  PLAN_NAME_LENGTH,
  RATE_LIMIT_DEFAULTS,
  RATE_LIMIT_WINDOWS,
} from '../../shared/rate-limits.ts';
import { SCOPES, type Scope } from '../../shared/scopes.ts';
import { DELIVERY_TIMEOUT_MS } from '../../shared/webhooks/schedule.ts';
import {
  BRAND,
  CONTACT_FIELD,
  EVENT_RESOURCE_LENGTH,
  LIBRARY_PATH_RULES,
  WEBHOOK_ENDPOINT,
} from './descriptions.ts';

/**
 * What the API answers, as the OpenAPI document describes it. The request schemas are the ones the
 * handlers validate with (shared/domain); these describe the responses, and every response the end-to-end
 * tests receive is checked against them, so they cannot drift from what the handlers build. They state the
 * limits the requests are held to where a response holds them too (what was written within them).
 */

/** As the API prints every timestamp: ISO 8601 UTC with microseconds, `2026-11-25T09:46:31.123000Z`. */
const timestamp = z
  .string()
  .length('2026-11-25T09:46:31.123000Z'.length)
  .meta({ format: 'date-time', examples: ['2026-11-25T09:46:31.123000Z'] });
const id = z.int().min(1);
/** An event's id, as `GET /events/{id}` takes it. */
const eventId = z.string().max(EVENT_ID_LENGTH).regex(EVENT_ID);
/** Free text of the spec's length (names, descriptions, tags). */
const text = z.string().max(LIMITS.textLength);
/** An http(s) URL as it was given (any case of the scheme), or as the API made it (public images). */
const url = z
  .string()
  .max(LIMITS.textLength)
  .regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\//);
const color = z.string().max(7).regex(COLOR);
/**
 * Network name to profile URL. A name given in the map form is a short label; one derived from a URL (the
 * list form) is the label of its host, which may be any of a host's characters: bounded by the URL's length.
 */
const socialLinks = z
  .record(z.string().max(LIMITS.textLength), url)
  .meta({ maxProperties: LIMITS.brandSocialLinks });

/** A field with its description (descriptions.ts says what each field of a brand or contact field is). */
const described = <T extends z.ZodType>(schema: T, description: string) => schema.meta({ description });

/** Each kind of a brand's field (shared/domain/brand.ts) as a value: what a brand or a suggestion holds. */
const BRAND_KIND_VALUES = {
  id,
  name: text,
  text,
  url,
  color,
  flag: z.boolean(),
  image: url,
  identity: id,
  social_links: socialLinks,
  tags: z.array(text.min(1)).max(LIMITS.brandTags),
  timestamp,
} satisfies Record<BrandFieldKind, z.ZodType>;

/** A field's value as a brand answers it: null where the brand has none (domain/brand.ts). */
function answeredBrandValue(field: BrandField): z.ZodType {
  const kind = brandFieldKind(field);
  return emptyBrandValue(kind) === null ? BRAND_KIND_VALUES[kind].nullable() : BRAND_KIND_VALUES[kind];
}

export const BrandSchema = z
  .object(
    Object.fromEntries(
      BRAND_FIELD_NAMES.map((field) => [field, described(answeredBrandValue(field), BRAND[field])]),
    ),
  )
  .strict()
  .meta({ description: "A brand: a sender identity of the team's messages." });

/** Each kind of a contact field's field (shared/domain/contact-field.ts) as the API answers it. */
const CONTACT_FIELD_KIND_VALUES = {
  id,
  name: text,
  tag: text.regex(TAG_PATTERN),
  type: z.enum(CONTACT_FIELD_TYPE_VALUES),
  contact_type: z.enum(CONTACT_TYPES),
  max_length: z.int().nullable(),
  options: z
    .array(z.string().max(LIMITS.contactFieldOptionLength))
    .max(LIMITS.contactFieldOptions)
    // Distinct (the create and update refuse a duplicate).
    .meta({ uniqueItems: true })
    .nullable(),
  flag: z.boolean(),
  integration: id.nullable(),
  timestamp,
} satisfies Record<ContactFieldKind, z.ZodType>;

/** The answered fields with their descriptions, each one schema shared by the full field and the list item. */
const contactFieldValues: Record<string, z.ZodType> = Object.fromEntries(
  ANSWERED_CONTACT_FIELDS.map((field) => [
    field,
    described(CONTACT_FIELD_KIND_VALUES[contactFieldKind(field)], CONTACT_FIELD[field]),
  ]),
);
const contactFieldShape = (fields: readonly AnsweredContactField[]) =>
  Object.fromEntries(fields.map((field) => [field, contactFieldValues[field]]));

/** The list item's fields first, then what only the full field has. */
export const ContactFieldSchema = z
  .object(
    contactFieldShape([
      ...LISTED_CONTACT_FIELDS,
      ...ANSWERED_CONTACT_FIELDS.filter((field) => !(LISTED_CONTACT_FIELDS as string[]).includes(field)),
    ]),
  )
  .strict()
  .meta({ description: 'A custom field of the contacts (people) or organizations of the team.' });

export const ContactFieldListItemSchema = z
  .object(contactFieldShape(LISTED_CONTACT_FIELDS))
  .strict()
  .meta({ description: 'A contact field as lists show it: without its options and `allow_multiple`.' });

export const ContactFieldTypeSchema = z
  .object({
    value: described(z.enum(CONTACT_FIELD_TYPE_VALUES), "The type as a field's `type` takes it."),
    name: described(z.enum(CONTACT_FIELD_TYPES.map((type) => type.name)), 'Its display name.'),
  })
  .strict()
  .meta({ description: 'A contact field type.' });

export const PageSchema = z
  .object({
    id: described(id, "The page's id: a positive integer."),
    site_id: described(id, 'The id of the site the page belongs to (the `site_id` filter takes it).'),
    site_name: described(text, `The site's name, at most ${LIMITS.textLength} characters.`),
    name: described(text, `The page's name, at most ${LIMITS.textLength} characters.`),
    url: described(
      text,
      `The page's URL on its site, as it was given (\`/thanks\`), at most ${LIMITS.textLength} characters.`,
    ),
    // The site's domain, a slash and the page's URL without its own.
    full_url: described(
      z
        .string()
        .max(2 * LIMITS.textLength + 1)
        .regex(/^https?:\/\//),
      "The page's absolute URL: the site's domain, then the page's URL (one slash between them).",
    ),
    created_at: described(timestamp, 'When the page was created: ISO 8601 in UTC, with microseconds.'),
    updated_at: described(timestamp, 'When the page last changed: ISO 8601 in UTC, with microseconds.'),
  })
  .strict()
  .meta({
    description: "A CMS page of one of the team's sites (sites and pages are made in the dashboard).",
  });

/** What an attempt keeps of the answer: its body's first KiB (shared/webhooks/send.ts). */
const ATTEMPT_RESPONSE_LENGTH = 1024;
/** A failed try's message: a sentence that may name the URL's host (bounded by the URL's length). */
const ATTEMPT_ERROR_LENGTH = LIMITS.webhookUrlLength + 100;

/** Why an endpoint is disabled, by value (the type holds the list to the data module's). */
const DISABLED_REASONS: Record<DisabledReason, true> = { manual: true, gone: true, failing: true };

/** A signing secret as the API makes it: `whsec_` and the base64 of 24 bytes (shared/domain/webhook-signing.ts). */
const signingSecret = z
  .string()
  .length('whsec_'.length + 32)
  .regex(/^whsec_[A-Za-z0-9+/]{32}$/);

const webhookEndpointShape = {
  id: described(id, WEBHOOK_ENDPOINT.id),
  url: described(
    z
      .string()
      .max(LIMITS.webhookUrlLength)
      .regex(/^https?:\/\/[^#]+$/)
      .meta({ format: 'uri' }),
    WEBHOOK_ENDPOINT.url,
  ),
  event_types: described(
    z.array(z.enum(EVENT_TYPES)).min(1).max(EVENT_TYPES.length).meta({ uniqueItems: true }),
    WEBHOOK_ENDPOINT.event_types,
  ),
  description: described(text.nullable(), WEBHOOK_ENDPOINT.description),
  disabled: described(z.boolean(), WEBHOOK_ENDPOINT.disabled),
  disabled_reason: described(
    z.enum(Object.keys(DISABLED_REASONS) as [DisabledReason, ...DisabledReason[]]).nullable(),
    WEBHOOK_ENDPOINT.disabled_reason,
  ),
  created_at: described(timestamp, WEBHOOK_ENDPOINT.created_at),
  updated_at: described(timestamp, WEBHOOK_ENDPOINT.updated_at),
} satisfies Record<keyof ReturnType<typeof webhookEndpointView>, z.ZodType>;

export const WebhookEndpointSchema = z
  .object(webhookEndpointShape)
  .strict()
  .meta({
    description:
      "Where the team's events of the types it names are delivered, signed (its secret is shown only when " +
      'it is made or rotated).',
  });

export const WebhookEndpointCreated = z
  .object({
    ...webhookEndpointShape,
    // Absent only in an Idempotency-Key replay after the secret was rotated or the endpoint deleted.
    secret: described(signingSecret, WEBHOOK_ENDPOINT.secret).optional(),
    secret_shown: described(z.literal(false), WEBHOOK_ENDPOINT.secret_shown).optional(),
  })
  .strict()
  .meta({ description: 'A new webhook endpoint, with its signing secret: the only answer that shows it.' });

export const SecretRotation = z
  .object({
    secret: described(
      signingSecret,
      "The endpoint's new signing secret (as `secret` at creation): it signs every delivery from now on. " +
        'Shown only in this answer: keep it.',
    ),
    previous_secret_expires_at: described(
      timestamp,
      `When the secret it replaces stops signing, ${ROTATION_OVERLAP_MS / 3_600_000} hours from now (ISO ` +
        '8601 in UTC, with microseconds): until then each delivery carries a signature under each of the ' +
        'two, so a receiver may switch at any time within them.',
    ),
  })
  .strict()
  .meta({ description: 'A new signing secret, and when the one it replaces stops signing.' });

export const WebhookAttempt = z
  .object({
    event_id: described(
      eventId,
      'The event delivered: its `id`, which the delivery carried as `webhook-id`.',
    ),
    attempted_at: described(
      timestamp,
      'When the try started (the request was sent; `duration_ms` is how long it took): ISO 8601 in UTC, ' +
        'with microseconds.',
    ),
    status_code: described(
      z.int().min(100).max(599).nullable(),
      "The HTTP status of the endpoint's answer; null when none came (then `error` says why).",
    ),
    error: described(
      z.string().max(ATTEMPT_ERROR_LENGTH).nullable(),
      'Why the try failed, in a sentence (`endpoint responded with HTTP 500`, `timed out`, `could not ' +
        'connect to <host>`, `<host> resolves to a private address`); null when it succeeded.',
    ),
    duration_ms: described(
      z.int().min(0),
      `How long the try took, in milliseconds (an answer must come within ${DELIVERY_TIMEOUT_MS / 1000} s).`,
    ),
    response: described(
      z.string().max(ATTEMPT_RESPONSE_LENGTH),
      `The first ${ATTEMPT_RESPONSE_LENGTH} bytes of the answer's body, decoded as UTF-8 (bytes that are ` +
        'not are replaced; a character cut in two is dropped); `""` when it had none or none came. A ' +
        'successful try keeps less of it: as much as fits its record in 1 KB.',
    ),
    succeeded: described(
      z.boolean(),
      `Whether the endpoint answered 2xx within ${DELIVERY_TIMEOUT_MS / 1000} s: the delivery is done.`,
    ),
  } satisfies Record<keyof Attempt, z.ZodType>)
  .strict()
  .meta({ description: 'One try of a delivery to the endpoint, as the deliverer recorded it.' });

/** A time that may not be (yet): ISO 8601 in UTC with microseconds, or null. */
const timeOrNull = z
  .string()
  .length('2026-11-25T09:46:31.123000Z'.length)
  .meta({ format: 'date-time' })
  .nullable();

const webhookDeliveryShape = {
  event_id: described(eventId, 'The event delivered (its `id`, which each try carries as `webhook-id`).'),
  event_type: described(z.enum(EVENT_TYPES), "The event's `type`."),
  status: described(
    z.enum(DELIVERY_STATES),
    '`pending`: due at `next_try_at` (the first try, or a retry after a failed one); `sending`: a try is ' +
      'in flight; `succeeded`: the endpoint answered 2xx; `failed`: given up (the retry schedule ran out, ' +
      'or the endpoint was disabled or deleted): `recover` or `redeliver` sends it again.',
  ),
  tries: described(
    z.int().min(0),
    'Tries made so far, the one in flight included (a redelivery or a recovery starts again from 0).',
  ),
  next_try_at: described(
    timeOrNull,
    'When the next try is due, while `pending` (ISO 8601 in UTC, with microseconds); otherwise null.',
  ),
  last_attempt_at: described(
    timeOrNull,
    'When the last try ended (ISO 8601 in UTC, with microseconds); null before the first, or when it ' +
      'was not recorded: the attempts list has each try.',
  ),
  finished_at: described(
    timeOrNull,
    'When it succeeded or was given up (ISO 8601 in UTC, with microseconds); null while `pending` or ' +
      '`sending`.',
  ),
} satisfies Record<keyof DeliveryView, z.ZodType>;

export const WebhookDelivery = z
  .object(webhookDeliveryShape)
  .strict()
  .meta({ description: "An event's delivery to the endpoint: where it stands, its tries and the next one." });

export const EventDelivery = z
  .object({
    endpoint_id: described(id, 'The webhook endpoint it is delivered to.'),
    ...webhookDeliveryShape,
  } satisfies Record<keyof EventDeliveryView, z.ZodType>)
  .strict()
  .meta({
    description: "The event's delivery to one endpoint: where it stands, its tries and the next one.",
  });

export const Redelivery = z
  .object({
    endpoint_ids: described(
      z.array(id),
      'The endpoints the event is sent to again, by id (`[]` when none is subscribed to its type and ' +
        'enabled): each delivery starts the retry schedule again, now.',
    ),
  })
  .strict()
  .meta({ description: 'The deliveries started: the endpoints the event is sent to again.' });

export const Recovery = z
  .object({
    deliveries: described(
      z.int().min(0),
      'How many given-up deliveries are sent again (each starts the retry schedule again, now).',
    ),
  })
  .strict()
  .meta({ description: 'The given-up deliveries sent again.' });

/** A change's former values: the brand's fields that changed (its id, team and creation never do). */
export const BrandChangesSchema = BrandSchema.omit({ id: true, team_id: true, created_at: true })
  .partial()
  .meta({
    description:
      "The former values of the brand's fields that changed: `updated_at` and the fields written, for a " +
      'write of the brand; `is_default` alone when the default moved.',
  });

/** A change's former values: the contact field's fields that changed (its id never does). */
export const ContactFieldChangesSchema = ContactFieldSchema.omit({ id: true })
  .partial()
  .meta({ description: "The former values of the contact field's fields that changed." });

/** A change's former values: the webhook endpoint's that the API's disabling changed. */
export const WebhookEndpointChanges = WebhookEndpointSchema.pick({
  disabled: true,
  disabled_reason: true,
}).meta({
  description:
    "The former values of the webhook endpoint's fields that changed: `disabled` and `disabled_reason`, " +
    'for a `webhook_endpoint.disabled` (`false` and null).',
});

export const Event = z
  .object({
    id: described(
      eventId,
      "The event's id, `evt_<team>_<seconds>_<sequence>_<ordinal>`: the same on every delivery of the " +
        'change, so a consumer that has seen it can skip it. `GET /events/{id}` reads it.',
    ),
    type: described(
      z.enum(EVENT_TYPES),
      'What happened: `brand.created`, `brand.updated`, `brand.deleted`, `contact_field.created`, ' +
        '`contact_field.updated`, `contact_field.deleted`, or `webhook_endpoint.disabled` (the API disabled ' +
        'one of the webhook endpoints: it answered 410, or failed for days). A default-brand change is a ' +
        '`brand.updated` of each brand whose `is_default` changed.',
    ),
    created_at: described(
      timestamp.meta({ examples: ['2026-11-25T09:46:31.123000Z'] }),
      "When the change was written: the write's own time, ISO 8601 in UTC with microseconds, as the " +
        'resource stores it (its `updated_at` after the change; for a delete, when it was deleted). The ' +
        "id's seconds are those of the stream record or of the write, whichever is later.",
    ),
    team_id: described(id, "The team whose resource changed: the caller's."),
    resource: described(
      z.string().max(EVENT_RESOURCE_LENGTH).regex(EVENT_RESOURCE),
      'The resource that changed, `brand:<id>`, `contact_field:<id>` or `webhook_endpoint:<id>` (what the ' +
        '`resource` filter takes).',
    ),
    resource_version: described(
      z.int().min(0),
      "The resource's version after the change (for a delete, the version deleted): it counts the writes " +
        "of the resource itself and is what its ETag names. A resource's events follow its versions: an " +
        'event whose version is lower than one already applied is stale. A default-brand change writes both ' +
        'brands: each event carries the version it made.',
    ),
    request_id: described(
      z.string().max(36).meta({ format: 'uuid' }).nullable(),
      'The `X-Request-Id` of the API request that made the change; null when there is none to name (a ' +
        'change made with the admin CLI, a webhook endpoint disabled by the API).',
    ),
    data: z
      .object({
        object: described(
          z.union([BrandSchema, ContactFieldSchema, WebhookEndpointSchema]),
          'The resource as the API answers it after the change (a brand as `GET /brands/{id}`, a contact ' +
            'field as `GET /contact-fields/{id}`, a webhook endpoint as `GET /webhook-endpoints/{id}`); for ' +
            'a delete, as it was last.',
        ),
        previous_attributes: described(
          z.union([BrandChangesSchema, ContactFieldChangesSchema, WebhookEndpointChanges, z.null()]),
          'For an update, the former values of the fields that changed; null for a create or a delete.',
        ),
        omitted: described(
          z
            .array(
              z
                .string()
                .max(64)
                .regex(/^(?:object|previous_attributes\.[a-z_]+)$/),
            )
            .max(64)
            .optional(),
          `Only on an event that would be over ${Math.round(LIMITS.eventBytes / 1024)} KiB as stored: the former values left ` +
            'out of it, largest first, as `previous_attributes.<field>` (within the limits, only a contact ' +
            "field's options changed whole at their largest).",
        ),
      })
      .strict()
      .meta({ description: 'The resource, and what the change changed.' }),
  })
  .strict()
  .meta({
    description:
      "A change of one of the team's brands or contact fields: one per write that changed something (none " +
      'for an idempotent replay, a refused write or a write that changed nothing). Kept 30 days.',
  });

/** What each suggestion is read from, best first (shared/autoconfigure/extract.ts). */
const SUGGESTED: Record<(typeof SUGGESTED_FIELDS)[number] | 'social_links', string> = {
  website_url: "The site's address: the origin of the page that was read (after redirects), with a slash.",
  name:
    "The site's name, the one most of its sources agree on: names it declares (og:site_name, application-name, " +
    "JSON-LD, the web manifest, apple-mobile-web-app-title) before the parts of its title and its header logo's " +
    'alt text; else the domain.',
  short_description:
    "The site's description: og:description, the meta description, twitter:description or JSON-LD.",
  primary_color:
    "The main colour, `#rrggbb`: theme-color, the tile or mask-icon colour, the web manifest's colours.",
  secondary_color: 'A second colour, `#rrggbb`, from the same sources, when one differs from the main one.',
  logo_image: "A wide logo: the JSON-LD organisation's logo, og:logo, itemprop=logo or a logo in the header.",
  logo_square_image:
    "A square logo: apple-touch-icon, the web manifest's icons, a square JSON-LD logo or a PNG or SVG icon.",
  header_image: 'Always null: no metadata names an email banner.',
  footer_image: 'Always null: no metadata names an email footer image.',
  social_share_image: "The page's share image: og:image or twitter:image.",
  social_links:
    'Social profiles by network (X and Twitter profiles as `x`: `https://x.com/<handle>`), from twitter:site, ' +
    'rel=me, JSON-LD sameAs, header and footer links, twitter:creator.',
};

/** One value per suggested field (fields that were not suggested are absent); social links per network. */
function perSuggestedField(value: z.ZodType, description: string, each: (field: string) => string) {
  const fields = Object.fromEntries(
    SUGGESTED_FIELDS.map((field) => [field, described(value.optional(), each(`\`${field}\``))]),
  );
  return z
    .object({
      ...fields,
      social_links: described(
        z
          .record(z.string().max(LIMITS.textLength), value)
          .meta({ maxProperties: LIMITS.brandSocialLinks })
          .optional(),
        each('each network of `social_links`'),
      ),
    })
    .strict()
    .meta({ description });
}

const confidence = z.enum(['high', 'medium', 'low']);

export const BrandSuggestionsSchema = z
  .object({
    suggestions: z
      .object({
        ...Object.fromEntries(
          SUGGESTED_FIELDS.map((field) => [
            field,
            described(BRAND_KIND_VALUES[brandFieldKind(field)].nullable(), SUGGESTED[field]),
          ]),
        ),
        social_links: described(socialLinks.nullable(), SUGGESTED.social_links),
      })
      .strict()
      .meta({ description: 'Valid create-brand input; values that could not be derived are null.' }),
    sources: perSuggestedField(
      z.string(),
      'Where each suggestion was read: a meta tag or link rel (`og:site_name`, `theme-color`, ' +
        '`apple-touch-icon`, `twitter:site`), `json-ld:<Type>.<property>`, `manifest:<member>`, `title`, ' +
        '`domain`, `url`, `header:img`, `header:img:alt`, `home-link:img`, `header:a`, `footer:a`, `menu:a` or `aside:a`.',
      (field) => `Where ${field} was read.`,
    ),
    confidence: perSuggestedField(
      confidence,
      'By the kind of source: high when the page or its manifest declares the value for that field of this ' +
        'site; medium when it declares it for a neighbouring purpose or in JSON-LD about an organisation not ' +
        'shown to be this site; low when it is inferred (title, domain, header and footer images, the image a ' +
        "link home holds, links in the header, footer, a menu layer or a side box), for a person's profile " +
        `(LinkedIn /in/), and for a square icon under ${LIMITS.autoConfigureSquareLogoMinSide} pixels, the only size declared. ` +
        'A name two sources agree on is at least medium.',
      (field) => `How sure ${field} is: \`high\`, \`medium\` or \`low\`.`,
    ),
    variants: z
      .object({
        dark: described(
          z
            .object({
              primary_color: described(
                color.optional(),
                'The main colour for a dark colour scheme, `#rrggbb`.',
              ),
              secondary_color: described(
                color.optional(),
                'The second colour for a dark colour scheme, `#rrggbb`.',
              ),
              logo_image: described(url.optional(), 'The wide logo for a dark background.'),
              logo_square_image: described(url.optional(), 'The square logo for a dark background.'),
            })
            .strict()
            .optional(),
          'Values for a dark colour scheme, only those the page declares; absent when it declares none.',
        ),
      })
      .strict()
      .meta({
        description:
          'Dark-mode values the page declares (theme-color for dark, a logo <picture> source for dark, dark ' +
          "icon links, the manifest's dark overrides); `{}` when there are none. Never part of suggestions.",
      }),
  })
  .strict()
  .meta({
    description:
      'What auto-configure read from the site: brand values to start from, where each was read, how sure ' +
      'each is, and dark-mode values.',
  });

export const UploadUrl = z
  .object({
    path: described(
      z.string().max(LIMITS.libraryPathLength).regex(LIBRARY_PATH),
      `The path the file will have in the team's library, as asked. ${LIBRARY_PATH_RULES}`,
    ),
    upload_url: described(
      z.string().meta({ format: 'uri' }),
      'The presigned URL to PUT the file to (an S3 URL: it carries its own signature, so send no ' +
        '`Authorization`). It stores exactly `size` bytes, once, and only while `path` holds no file: a ' +
        'second PUT on it, or a PUT to a path already written, is refused by S3 (412 PreconditionFailed).',
    ),
    method: described(z.literal('PUT'), 'The method of the upload: `PUT`.'),
    headers: z
      .object({
        'Content-Type': described(
          z.string().max(LIMITS.textLength).regex(MIME_TYPE),
          'The `content_type` asked for: the file is stored with it.',
        ),
        'If-None-Match': described(
          z.literal('*'),
          '`*`: S3 writes the file only if the path holds none (a conditional write).',
        ),
      })
      .strict()
      .meta({
        description: 'The headers the upload must send, each part of the signature: send them as given.',
      }),
    expires_in: z.int().meta({
      description: `Seconds the URL stays valid: ${UPLOAD_URL_TTL_SECONDS} (${UPLOAD_URL_TTL_SECONDS / 60} minutes).`,
    }),
  })
  .strict()
  .meta({ description: "Where and how to upload one file into the team's private library." });

/** GET /api/v1/openapi.json: this document; its one server is the deployment that answered. */
export const OpenApiDocument = z
  .looseObject({
    openapi: described(z.string(), 'The OpenAPI version: `3.1.0`.'),
    info: described(
      z.looseObject({
        title: described(z.string(), "The API's name."),
        version: described(z.string(), "The document's version."),
      }),
      'The API: its name, version, description, contact and licence.',
    ),
    servers: described(
      z.array(z.looseObject({ url: described(z.string(), "The deployment's base URL.") })),
      'One server: the deployment that answered, by its URL.',
    ),
    paths: described(z.record(z.string(), z.unknown()), 'Every route, by path and method.'),
  })
  .meta({ description: 'An OpenAPI 3.1 document.' });

const MESSAGE = 'What happened, in a sentence for people (`Unauthenticated.`, `Not Found.`, …).';
const FIELD_ERRORS =
  'Every invalid field, by its name in the body or the query (`options.2` for an item of a list, `quota` ' +
  'for a quota), with its messages.';

export const Message = z
  .object({ message: described(z.string(), MESSAGE) })
  .strict()
  .meta({ description: 'A message: what was done, or why the request was refused.' });

export const ValidationErrorSchema = z
  .object({
    message: described(z.string(), "The first error's message."),
    errors: described(z.record(z.string(), z.array(z.string())), FIELD_ERRORS),
  })
  .strict()
  .meta({ description: 'The first error, and every error by field.' });

export const Conflict = z
  .object({
    message: described(z.string(), 'What conflicted, in a sentence for people.'),
    error_code: described(
      z.enum(CONFLICT_ERROR_CODES),
      '`idempotency_key_conflict`: the key was used with another body (use a new key); ' +
        '`concurrent_modification`: concurrent writes got in the way too often (retry); ' +
        '`precondition_failed`: `If-Match` names another version (read the resource again).',
    ),
  })
  .strict()
  .meta({ description: 'A conflict, named by `error_code`.' });

export const InsufficientScope = z
  .object({
    message: described(
      z.string(),
      'Which scope the token lacks and which operation needs it, in a sentence for people.',
    ),
    error_code: described(
      z.enum(FORBIDDEN_ERROR_CODES),
      '`insufficient_scope`: the token does not hold the scope this operation needs (nor, for a read, its ' +
        "family's write): use a token that does. Nothing of the request was read or done.",
    ),
    required_scope: described(
      z.enum(SCOPES as [Scope, ...Scope[]]),
      "The scope the operation needs (a `:read` scope is also granted by the family's `:write`).",
    ),
  })
  .strict()
  .meta({
    description:
      "The token lacks the operation's scope; `WWW-Authenticate` names it too (RFC 6750 `insufficient_scope`).",
  });

const quota = (things: string) =>
  z
    .object({
      limit: described(z.int().min(0), `How many ${things} the team may have.`),
      used: described(z.int().min(0), `How many ${things} the team has.`),
    })
    .strict()
    .meta({ description: `The team's quota of ${things}.` });

export const Limits = z
  .object({
    quotas: z
      .object({
        brands: quota('brands'),
        contact_fields: quota('contact fields'),
        sites: quota('sites'),
        pages: quota('pages'),
        webhook_endpoints: quota('webhook endpoints'),
        uploads: quota('upload URLs (POST /files)'),
        upload_bytes: quota('bytes of upload URLs (POST /files, each its `size`)'),
      })
      .strict()
      .meta({ description: 'A create beyond a quota is a 422 naming it.' }),
    rate_limit: z
      .object({
        plan: described(
          z.string().max(PLAN_NAME_LENGTH).regex(PLAN_NAME),
          `The name of the rate limit plan (the deployment's default, \`${RATE_LIMIT_DEFAULTS.defaultPlan}\` unless configured, until the team is given another).`,
        ),
        limit: z
          .int()
          .min(MIN_RATE_LIMIT)
          .max(MAX_RATE_LIMIT)
          .meta({ description: 'Requests the token may make in any `window_seconds`.' }),
        window_seconds: described(
          z.union(RATE_LIMIT_WINDOWS.map((seconds) => z.literal(seconds))),
          'The window the requests are counted over, in seconds.',
        ),
      })
      .strict()
      .meta({
        description:
          "The rate limit plan the caller's token is held to, counted per token: over it, 429 with Retry-After.",
      }),
  })
  .strict()
  .meta({ description: "The team's quotas with their usage, and the caller's rate limit." });
