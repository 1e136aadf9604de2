import * as z from 'zod/mini';
import { LIMITS } from '../limits.ts';
import { CONTACT_TYPES, type ContactType } from './contact-field-types.ts';
import { EVENT_TYPES, type EventType } from './event-shape.ts';
import { libraryPath } from './library-path.ts';
import { requestBody } from './misspelled-keys.ts';

/**
 * The request schemas of routes that have no entity of their own: list filters, auto-configure and
 * uploads. The handlers validate with them and the OpenAPI document describes them.
 */

/**
 * `?site_id=3` or `?site_id[]=3&site_id[]=4`, at most LIMITS.pageSiteIds values; ids that name no site of
 * the team simply match nothing.
 */
export const pagesQuery = z.object({
  site_id: z.optional(
    z.pipe(
      z.array(z.string()).check(
        z.maxLength(LIMITS.pageSiteIds),
        z.refine((ids) => ids.every((id) => /^-?\d{1,15}$/.test(id)), {
          message: 'The site id field must be an integer.',
        }),
      ),
      z.transform((ids) => ids.map(Number)),
    ),
  ),
});

/** `?contact_type=person|organization`, given at most once. */
export const contactFieldsQuery = z.object({
  contact_type: z.optional(
    z.pipe(
      z.array(z.string()).check(
        z.refine((values) => values.length === 1 && CONTACT_TYPES.includes(values[0] as ContactType), {
          message: `The selected contact type is invalid: the contact types are ${CONTACT_TYPES.join(', ')}, given once.`,
        }),
      ),
      z.transform((values) => values[0] as ContactType),
    ),
  ),
});

/** What `resource` of `GET /events` takes: a brand's, contact field's or webhook endpoint's id, as an event names it. */
export const EVENT_RESOURCE = /^(brand|contact_field|webhook_endpoint):[1-9][0-9]{0,14}$/;

/**
 * `?type=brand.updated&type=brand.deleted` (or `type[]=`): events of any of these types, each one of
 * EVENT_TYPES, at most as many values as there are types; `?resource=brand:42`: only that resource's
 * events, given at most once.
 */
export const eventsQuery = z.object({
  type: z.optional(
    z.pipe(
      z.array(z.string()).check(
        z.maxLength(EVENT_TYPES.length),
        z.refine((types) => types.every((type) => EVENT_TYPES.includes(type as EventType)), {
          message: `The selected type is invalid: the types are ${EVENT_TYPES.join(', ')}.`,
        }),
      ),
      z.transform((types) => types as EventType[]),
    ),
  ),
  resource: z.optional(
    z.pipe(
      z.array(z.string()).check(
        z.refine((values) => values.length === 1 && EVENT_RESOURCE.test(values[0] as string), {
          message:
            'The resource field must be brand:<id>, contact_field:<id> or webhook_endpoint:<id>, the id a positive integer, given once.',
        }),
      ),
      z.transform((values) => values[0] as string),
    ),
  ),
});

/** The site's http(s) URL; one that is not (or that leads somewhere not allowed) is a 422 refusal. */
export const autoConfigureRequest = requestBody(
  z.object({
    url: z
      .string()
      .check(z.trim(), z.minLength(1), z.maxLength(LIMITS.autoConfigureUrlLength))
      .register(z.globalRegistry, { format: 'uri' }),
  }),
  ['suggestions', 'sources', 'confidence', 'variants'],
);

// type/subtype with optional parameters (RFC 6838 names), e.g. `image/png` or `text/plain; charset=utf-8`.
const TOKEN = '[A-Za-z0-9!#$&^_.+-]+';
export const MIME_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"]*"))*$`);

export const uploadRequest = requestBody(
  z.object({
    path: libraryPath('path'),
    content_type: z.string().check(z.maxLength(LIMITS.textLength), z.regex(MIME_TYPE)),
    /** The file's size in bytes: the upload URL accepts exactly this many. */
    size: z.int().check(z.minimum(0), z.maximum(LIMITS.uploadFileBytes)),
  }),
  ['upload_url', 'method', 'headers', 'expires_in'],
);
