import * as z from 'zod';
import { SUGGESTED_FIELDS } from '../../shared/autoconfigure/extract.ts';
import { CONTACT_FIELD_TYPE_VALUES, CONTACT_TYPES } from '../../shared/domain/contact-field-types.ts';

/**
 * What the API answers, as the OpenAPI document describes it. The request schemas are the ones the
 * handlers validate with (shared/domain); these describe the responses, and every response the end-to-end
 * tests receive is checked against them, so they cannot drift from what the handlers build.
 */

const timestamp = z.string().meta({ format: 'date-time', examples: ['2026-11-25T09:46:31.123000Z'] });
const id = z.int().min(1);
const text = z.string().nullable();

export const Brand = z
  .object({
    id,
    team_id: id,
    name: z.string(),
    short_description: text,
    website_url: text,
    primary_color: text,
    secondary_color: text,
    is_default: z.boolean(),
    logo_image: text,
    logo_square_image: text,
    header_image: text,
    footer_image: text,
    social_share_image: text,
    email_address_id: id.nullable(),
    phone_id: id.nullable(),
    social_links: z
      .record(z.string(), z.string())
      .nullable()
      .meta({ description: 'Network name to profile URL.' }),
    tags: z.array(z.string()),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .strict();

const contactFieldBase = {
  id,
  name: z.string(),
  tag: z.string(),
  type: z.enum(CONTACT_FIELD_TYPE_VALUES),
  contact_type: z.enum(CONTACT_TYPES),
  max_length: z.int().nullable(),
  integration_id: id.nullable().meta({ description: 'Set when an integration manages the field.' }),
};

export const ContactField = z
  .object({
    ...contactFieldBase,
    options: z.array(z.string()).nullable(),
    allow_multiple: z.boolean(),
  })
  .strict();

export const ContactFieldListItem = z.object(contactFieldBase).strict();

export const ContactFieldType = z
  .object({ value: z.enum(CONTACT_FIELD_TYPE_VALUES), name: z.string() })
  .strict();

export const Page = z
  .object({
    id,
    site_id: id,
    site_name: z.string(),
    name: z.string(),
    url: z.string(),
    full_url: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .strict();

/** One value per suggested field (fields that were not suggested are absent); social links per network. */
function perSuggestedField(value: z.ZodType, description: string) {
  const fields = Object.fromEntries(SUGGESTED_FIELDS.map((field) => [field, value.optional()]));
  return z
    .object({ ...fields, social_links: z.record(z.string(), value).optional() })
    .strict()
    .meta({ description });
}

const confidence = z.enum(['high', 'medium', 'low']);

export const BrandSuggestions = z
  .object({
    suggestions: z
      .object({
        ...Object.fromEntries(SUGGESTED_FIELDS.map((field) => [field, text])),
        social_links: z.record(z.string(), z.string()).nullable(),
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
            primary_color: z.string().optional(),
            secondary_color: z.string().optional(),
            logo_image: z.string().optional(),
            logo_square_image: z.string().optional(),
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
    path: z.string(),
    upload_url: z.string().meta({ format: 'uri' }),
    method: z.literal('PUT'),
    headers: z.record(z.string(), z.string()),
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

/** A 422 that is either a validation error or a refusal naming its cause (auto-configure's fetch). */
export const Unprocessable = z
  .object({ message: z.string(), errors: z.record(z.string(), z.array(z.string())).optional() })
  .strict();

export const Conflict = z.object({ message: z.string(), error_code: z.string() }).strict();

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
        plan: z.string(),
        limit: z.int().min(10).meta({ description: 'Requests the token may make in any `window_seconds`.' }),
        window_seconds: z.union([z.literal(60), z.literal(120), z.literal(300), z.literal(600)]),
      })
      .strict()
      .meta({
        description:
          "The rate limit plan the caller's token is held to, counted per token: over it, 429 with Retry-After.",
      }),
  })
  .strict();
