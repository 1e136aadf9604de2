import * as z from 'zod';
import { SUGGESTED_FIELDS } from '../../shared/autoconfigure/extract.ts';
import { COLOR } from '../../shared/domain/brand-input.ts';
import { TAG_PATTERN } from '../../shared/domain/contact-field-input.ts';
import {
  CONTACT_FIELD_TYPE_VALUES,
  CONTACT_FIELD_TYPES,
  CONTACT_TYPES,
} from '../../shared/domain/contact-field-types.ts';
import { MIME_TYPE } from '../../shared/domain/requests.ts';
import { LIBRARY_PATH } from '../../shared/files/library.ts';
import { ERROR_CODES } from '../../shared/http/errors.ts';
import { LIMITS } from '../../shared/limits.ts';
import {
  MAX_RATE_LIMIT,
  MIN_RATE_LIMIT,
  PLAN_NAME,
  PLAN_NAME_LENGTH,
  RATE_LIMIT_WINDOWS,
} from '../../shared/rate-limits.ts';

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

/** A brand's values that auto-configure also suggests, by field. */
const SUGGESTABLE = {
  website_url: url,
  name: text,
  short_description: text,
  primary_color: color,
  secondary_color: color,
  logo_image: url,
  logo_square_image: url,
  header_image: url,
  footer_image: url,
  social_share_image: url,
} satisfies Record<(typeof SUGGESTED_FIELDS)[number], z.ZodType>;

export const Brand = z
  .object({
    id,
    team_id: id,
    name: SUGGESTABLE.name,
    short_description: SUGGESTABLE.short_description.nullable(),
    website_url: SUGGESTABLE.website_url.nullable(),
    primary_color: SUGGESTABLE.primary_color.nullable(),
    secondary_color: SUGGESTABLE.secondary_color.nullable(),
    is_default: z.boolean(),
    logo_image: SUGGESTABLE.logo_image.nullable(),
    logo_square_image: SUGGESTABLE.logo_square_image.nullable(),
    header_image: SUGGESTABLE.header_image.nullable(),
    footer_image: SUGGESTABLE.footer_image.nullable(),
    social_share_image: SUGGESTABLE.social_share_image.nullable(),
    email_address_id: id.nullable(),
    phone_id: id.nullable(),
    social_links: socialLinks.nullable().meta({ description: 'Network name to profile URL.' }),
    tags: z.array(text.min(1)).max(LIMITS.brandTags),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .strict();

const contactFieldBase = {
  id,
  name: text,
  tag: text.regex(TAG_PATTERN),
  type: z.enum(CONTACT_FIELD_TYPE_VALUES),
  contact_type: z.enum(CONTACT_TYPES),
  max_length: z.int().nullable(),
  integration_id: id.nullable().meta({ description: 'Set when an integration manages the field.' }),
};

export const ContactField = z
  .object({
    ...contactFieldBase,
    options: z
      .array(z.string().max(LIMITS.contactFieldOptionLength))
      .max(LIMITS.contactFieldOptions)
      .nullable(),
    allow_multiple: z.boolean(),
  })
  .strict();

export const ContactFieldListItem = z.object(contactFieldBase).strict();

export const ContactFieldType = z
  .object({
    value: z.enum(CONTACT_FIELD_TYPE_VALUES),
    name: z.enum(CONTACT_FIELD_TYPES.map((type) => type.name)),
  })
  .strict();

export const Page = z
  .object({
    id,
    site_id: id,
    site_name: text,
    name: text,
    url: text,
    // The site's domain, a slash and the page's URL without its own.
    full_url: z
      .string()
      .max(2 * LIMITS.textLength + 1)
      .regex(/^https?:\/\//),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .strict();

/** One value per suggested field (fields that were not suggested are absent); social links per network. */
function perSuggestedField(value: z.ZodType, description: string) {
  const fields = Object.fromEntries(SUGGESTED_FIELDS.map((field) => [field, value.optional()]));
  return z
    .object({
      ...fields,
      social_links: z
        .record(z.string().max(LIMITS.textLength), value)
        .meta({ maxProperties: LIMITS.brandSocialLinks })
        .optional(),
    })
    .strict()
    .meta({ description });
}

const confidence = z.enum(['high', 'medium', 'low']);

export const BrandSuggestions = z
  .object({
    suggestions: z
      .object({
        ...Object.fromEntries(SUGGESTED_FIELDS.map((field) => [field, SUGGESTABLE[field].nullable()])),
        social_links: socialLinks.nullable(),
      })
      .strict()
      .meta({ description: 'Valid create-brand input; values that could not be derived are null.' }),
    sources: perSuggestedField(
      z.string(),
      'Where each suggestion was read: a meta tag or link rel (`og:site_name`, `theme-color`, ' +
        '`apple-touch-icon`, `twitter:site`), `json-ld:<Type>.<property>`, `manifest:<member>`, `title`, ' +
        '`domain`, `url`, `header:img`, `header:a` or `footer:a`.',
    ),
    confidence: perSuggestedField(
      confidence,
      'By the kind of source: high when the page or its manifest declares the value for that field of this ' +
        'site; medium when it declares it for a neighbouring purpose or in JSON-LD about an organisation not ' +
        'shown to be this site; low when it is inferred (title, domain, header and footer images and links).',
    ),
    variants: z
      .object({
        dark: z
          .object({
            primary_color: color.optional(),
            secondary_color: color.optional(),
            logo_image: url.optional(),
            logo_square_image: url.optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .meta({
        description:
          'Dark-mode values the page declares (theme-color for dark, a logo <picture> source for dark, dark ' +
          "icon links, the manifest's dark overrides); `{}` when there are none. Never part of suggestions.",
      }),
  })
  .strict();

export const UploadUrl = z
  .object({
    path: z.string().max(LIMITS.libraryPathLength).regex(LIBRARY_PATH),
    upload_url: z.string().meta({ format: 'uri' }),
    method: z.literal('PUT'),
    headers: z
      .object({ 'Content-Type': z.string().max(LIMITS.textLength).regex(MIME_TYPE) })
      .strict()
      .meta({ description: 'The headers the upload must send: the Content-Type is part of the signature.' }),
    expires_in: z.int().meta({ description: 'Seconds the URL stays valid.' }),
  })
  .strict();

/** GET /api/v1/openapi.json: this document; its one server is the deployment that answered. */
export const OpenApiDocument = z
  .looseObject({
    openapi: z.string(),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    servers: z.array(z.looseObject({ url: z.string() })),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ description: 'An OpenAPI 3.1 document.' });

export const Message = z.object({ message: z.string() }).strict();

export const ValidationError = z
  .object({ message: z.string(), errors: z.record(z.string(), z.array(z.string())) })
  .strict()
  .meta({ description: 'The first error, and every error by field.' });

export const Conflict = z.object({ message: z.string(), error_code: z.enum(ERROR_CODES) }).strict();

const quota = z
  .object({ limit: z.int().min(0), used: z.int().min(0) })
  .strict()
  .meta({ description: 'How many the team may have, and has.' });

export const Limits = z
  .object({
    quotas: z
      .object({ brands: quota, contact_fields: quota, sites: quota, pages: quota })
      .strict()
      .meta({ description: 'A create beyond a quota is a 422 naming it.' }),
    rate_limit: z
      .object({
        plan: z.string().max(PLAN_NAME_LENGTH).regex(PLAN_NAME),
        limit: z
          .int()
          .min(MIN_RATE_LIMIT)
          .max(MAX_RATE_LIMIT)
          .meta({ description: 'Requests the token may make in any `window_seconds`.' }),
        window_seconds: z.union(RATE_LIMIT_WINDOWS.map((seconds) => z.literal(seconds))),
      })
      .strict()
      .meta({
        description:
          "The rate limit plan the caller's token is held to, counted per token: over it, 429 with Retry-After.",
      }),
  })
  .strict();
