import * as z from 'zod';
import { DELIVERY_READ_BUDGET } from '../../shared/data/webhook-deliveries/views.ts';
import { createBrandSchema, updateBrandSchema } from '../../shared/domain/brand-input.ts';
import { contactFieldPatchSchema, newContactFieldSchema } from '../../shared/domain/contact-field-input.ts';
import { CONTACT_FIELD_TYPES } from '../../shared/domain/contact-field-types.ts';
import { SUCCEEDED } from '../../shared/domain/delivery-states.ts';
import {
  EVENT_ID,
  EVENT_ID_LENGTH,
  EVENT_TYPES,
  type EventType,
  eventReadScope,
} from '../../shared/domain/event-shape.ts';
import {
  autoConfigureRequest,
  contactFieldsQuery,
  eventsQuery,
  pagesQuery,
  uploadRequest,
} from '../../shared/domain/requests.ts';
import {
  createWebhookEndpointSchema,
  deliveriesQuery,
  recoverSchema,
  redeliverSchema,
  updateWebhookEndpointSchema,
} from '../../shared/domain/webhook-input.ts';
import { LIMITS, WEBHOOK_LIMITS } from '../../shared/limits.ts';
import {
  AUTO_CONFIGURE_INPUT,
  BRAND_INPUT,
  CONTACT_FIELD_INPUT,
  CONTACT_FIELD_PATCH,
  described,
  RECOVER_INPUT,
  REDELIVER_INPUT,
  UPLOAD_INPUT,
  WEBHOOK_ENDPOINT_INPUT,
  WEBHOOK_ENDPOINT_PATCH,
  withItems,
} from './descriptions.ts';
import {
  BrandSchema,
  BrandSuggestionsSchema,
  ContactFieldListItemSchema,
  ContactFieldSchema,
  ContactFieldTypeSchema,
  Event,
  EventDelivery,
  Limits,
  Message,
  OpenApiDocument,
  PageSchema,
  Recovery,
  Redelivery,
  SecretRotation,
  UploadUrl,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpointCreated,
  WebhookEndpointSchema,
} from './representations.ts';

/**
 * What the document says about each row of the route table beyond the row itself: a name, the request's
 * schemas (those the handler validates with) and the success body with an example. Keyed like the route
 * table's rows; test/lib/openapi/document.services.test.ts holds the two to the same set.
 */
export interface Operation {
  id: string;
  tag: 'Brands' | 'Contact fields' | 'Pages' | 'Events' | 'Webhooks' | 'Files' | 'Reference';
  summary: string;
  description?: string;
  /** What the handler validates with (zod/mini, like all of shared/; JSON Schema comes from zod's core). */
  body?: z.core.$ZodType;
  query?: z.core.$ZodObject;
  /**
   * A path parameter's JSON Schema, by name (an `{id}` is a positive integer without one); its description is
   * the parameter's.
   */
  pathParameters?: Record<string, Record<string, unknown>>;
  /** The success (2xx) body when it is JSON (every route but the reference page and its script). */
  success?: z.core.$ZodType;
  /** The 200 body's media type when it is text, not JSON (the reference page and its script). */
  successMediaType?: 'text/html' | 'text/javascript';
  /** The body may be left out (redeliver: without one, to every subscribed endpoint). */
  bodyOptional?: true;
  /** An example request body and an example success body. */
  example: { request?: unknown; response?: unknown };
  /** The create takes an Idempotency-Key (README, "Idempotency-Key"). */
  idempotent?: true;
  /**
   * A brand, a contact field or a webhook endpoint: its answers carry an ETag; reads take If-None-Match,
   * updates and deletes If-Match (a POST that answers the new version, a create or a rotation, takes none).
   */
  versioned?: true;
  /**
   * The query filters that take several values (`type=a&type=b`); every other query parameter takes one, and
   * the document types it as one value.
   */
  repeatable?: readonly string[];
  /** The list takes `limit` and `cursor` and links its next page (README, "Pagination"). */
  paged?: true;
  /** The page size without `limit` (the events); a paged list without one answers all of it. */
  defaultLimit?: number;
  /**
   * What the operation needs beyond its scope, by the event types it lists, reads, subscribes to or sends
   * (each type's family: EVENT_TYPE_FAMILIES, shared/domain/event-shape.ts): `needs`, sentences after the
   * scope line of its description, and in its 403's description when it `refuses` a token without them
   * (a list leaves their events out instead).
   */
  eventScopes?: { needs: string; refuses: boolean };
}

/**
 * Each event type's family, as the scope that reads it: `` `brands:read` for `brand.*`, … `` (from
 * EVENT_TYPE_FAMILIES, shared/domain/event-shape.ts).
 */
export const EVENT_FAMILY_SCOPES = [
  ...new Map(EVENT_TYPES.map((type) => [type.split('.')[0], eventReadScope(type)])).entries(),
]
  .map(([kind, scope]) => `\`${scope}\` for \`${kind}.*\``)
  .join(', ');
/** Said after what a token lacking a family's read scope gets. */
const OR_WRITE = "(or the family's `:write`)";

const brandExample = {
  id: 7,
  team_id: 51,
  name: 'Acme',
  short_description: 'Rockets and more',
  website_url: 'https://acme.example',
  primary_color: '#1a2b3c',
  secondary_color: '#ffffff',
  is_default: true,
  logo_image: 'https://cdn.example/brands/acme.png',
  logo_square_image: null,
  header_image: null,
  footer_image: null,
  social_share_image: null,
  email_address_id: null,
  phone_id: null,
  // A twitter.com or x.com profile is named `x` (shared/domain/social-links.ts).
  social_links: { x: 'https://twitter.com/acme' },
  tags: ['newsletter'],
  created_at: '2026-11-25T09:46:31.123000Z',
  updated_at: '2026-11-25T09:46:31.123000Z',
};

const fieldExample = {
  id: 12,
  name: 'Favourite colour',
  tag: 'favourite_colour',
  type: 'pick_list',
  contact_type: 'person',
  max_length: 255,
  options: ['Red', 'Green'],
  allow_multiple: false,
  integration_id: null,
};
const { options, allow_multiple, ...fieldListExample } = fieldExample;

/** The brand of the create example, made without taking the default, as its events show it. */
const eventBrand = { ...brandExample, is_default: false };
const brandUpdatedEvent = {
  id: 'evt_51_1795599992_4200000000000000000002_0',
  type: 'brand.updated',
  created_at: '2026-11-25T09:46:32.456000Z',
  team_id: 51,
  resource: 'brand:7',
  resource_version: 2,
  request_id: '5b0f3c9e-2d4a-4c8e-9f61-7a3d2e1b0c42',
  data: {
    object: { ...eventBrand, primary_color: '#ff0000', updated_at: '2026-11-25T09:46:32.456000Z' },
    previous_attributes: { primary_color: '#1a2b3c', updated_at: '2026-11-25T09:46:31.123000Z' },
  },
};
const brandCreatedEvent = {
  id: 'evt_51_1795599991_4200000000000000000001_0',
  type: 'brand.created',
  created_at: '2026-11-25T09:46:31.123000Z',
  team_id: 51,
  resource: 'brand:7',
  resource_version: 1,
  request_id: '0e6a1d7b-8c35-4f29-a4b0-3c9d5e2f1a87',
  data: { object: eventBrand, previous_attributes: null },
};

/** An endpoint as the create example makes it (its URL is the integrator's receiver). */
const endpointExample = {
  id: 12,
  url: 'https://hooks.acme.example/team-messaging',
  event_types: ['brand.created', 'brand.updated', 'brand.deleted'],
  description: 'CRM sync',
  disabled: false,
  disabled_reason: null,
  created_at: '2026-11-25T09:46:33.123000Z',
  updated_at: '2026-11-25T09:46:33.123000Z',
};
/** A delivery of the create example's event, done at the first try (as the attempts example shows it). */
const deliveryExample = {
  event_id: brandCreatedEvent.id,
  event_type: 'brand.created',
  status: SUCCEEDED,
  tries: 1,
  next_try_at: null,
  last_attempt_at: '2026-11-25T09:46:35.123000Z',
  finished_at: '2026-11-25T09:46:35.123000Z',
};
/** The update example's endpoint: it also hears of its own disabling. */
const updatedEndpointExample = {
  ...endpointExample,
  event_types: [...endpointExample.event_types, 'webhook_endpoint.disabled'],
  updated_at: '2026-11-25T09:46:34.123000Z',
};
/** An event id as the API makes them, of its time (`evt_<team>_<seconds>_<sequence>_<ordinal>`). */
const eventIdAt = (createdAt: string, sequence: number) =>
  `evt_51_${Math.floor(Date.parse(createdAt) / 1000)}_42000000000000000000${String(sequence).padStart(2, '0')}_0`;

/** The brand of the update example, deleted: its last version. */
const brandDeletedEvent = {
  id: eventIdAt('2026-11-25T09:46:40.789000Z', 3),
  type: 'brand.deleted',
  created_at: '2026-11-25T09:46:40.789000Z',
  team_id: 51,
  resource: 'brand:7',
  resource_version: 2,
  request_id: '9c2e7f41-6b1d-4e8a-b5c3-0d4f2a6e8b19',
  data: { object: brandUpdatedEvent.data.object, previous_attributes: null },
};
/** The contact field of the create example: created, renamed as the update example renames it, deleted. */
const contactFieldEvents = {
  created: {
    id: eventIdAt('2026-11-25T09:47:01.123000Z', 4),
    type: 'contact_field.created',
    created_at: '2026-11-25T09:47:01.123000Z',
    team_id: 51,
    resource: 'contact_field:12',
    resource_version: 1,
    request_id: '3f8a2c6d-1e4b-4a7f-9d05-b6c8e2a4f130',
    data: { object: fieldExample, previous_attributes: null },
  },
  updated: {
    id: eventIdAt('2026-11-25T09:47:02.456000Z', 5),
    type: 'contact_field.updated',
    created_at: '2026-11-25T09:47:02.456000Z',
    team_id: 51,
    resource: 'contact_field:12',
    resource_version: 2,
    request_id: 'a71d4e9b-2c5f-4b38-8e6a-f0b3d7c2e594',
    data: { object: { ...fieldExample, name: 'Colour' }, previous_attributes: { name: 'Favourite colour' } },
  },
  deleted: {
    id: eventIdAt('2026-11-25T09:47:03.789000Z', 6),
    type: 'contact_field.deleted',
    created_at: '2026-11-25T09:47:03.789000Z',
    team_id: 51,
    resource: 'contact_field:12',
    resource_version: 2,
    request_id: 'e5b9c3a7-4d2f-4f61-a8e0-7c1b5d9f3a26',
    data: { object: { ...fieldExample, name: 'Colour' }, previous_attributes: null },
  },
};

/** The update example's endpoint, disabled by the API: it answered a delivery with 410. */
const endpointDisabledEvent = {
  id: eventIdAt('2026-11-25T09:48:05.123000Z', 7),
  type: 'webhook_endpoint.disabled',
  created_at: '2026-11-25T09:48:05.123000Z',
  team_id: 51,
  resource: 'webhook_endpoint:12',
  resource_version: 3,
  request_id: null,
  data: {
    object: {
      ...updatedEndpointExample,
      disabled: true,
      disabled_reason: 'gone',
      updated_at: '2026-11-25T09:48:05.123000Z',
    },
    previous_attributes: { disabled: false, disabled_reason: null },
  },
};

/**
 * What each event type's delivery carries, as the document's `webhooks` show it: an event of the examples'
 * own resources (the brand, the contact field and the endpoint the operations' examples make and change).
 */
export const WEBHOOK_EXAMPLES: Record<EventType, unknown> = {
  'brand.created': brandCreatedEvent,
  'brand.updated': brandUpdatedEvent,
  'brand.deleted': brandDeletedEvent,
  'contact_field.created': contactFieldEvents.created,
  'contact_field.updated': contactFieldEvents.updated,
  'contact_field.deleted': contactFieldEvents.deleted,
  'webhook_endpoint.disabled': endpointDisabledEvent,
};

/**
 * The webhook endpoints' event types as a request's items (checked in code; the document shows the enum),
 * registered when the document is built.
 */
const EVENT_TYPE_ITEMS = { enum: [...EVENT_TYPES] };

/** An event's id as a path parameter: the events' own form. */
const EVENT_ID_PARAMETER = {
  type: 'string',
  maxLength: EVENT_ID_LENGTH,
  pattern: EVENT_ID.source,
  description: "The event's `id` (another team's is a 403, an unknown one a 404).",
};

const EVENTS_PAGED =
  `Newest first, in pages: at most \`limit\` events (1 to ${LIMITS.listPageSize}), and ` +
  `${LIMITS.listPageSize} without it (the log is never answered whole). While more follow, a ` +
  '`Link: <url>; rel="next"` header whose URL (the same filters, the `limit` if one was given, a new ' +
  '`cursor`) answers the next page; the last page has none. Paging is stable while changes happen: no ' +
  'event twice, none that existed throughout skipped (newer events come before the first page). `type` ' +
  '(repeatable: events of any of the types) and `resource` filter; an unknown type or a malformed ' +
  'resource is a 422 naming it. A cursor that is not from this list, team and filters is a 400. Events ' +
  'are kept 30 days.';

const PAGED_REST =
  'With `limit`, at most that many items, and while more follow a `Link: <url>; rel="next"` header whose ' +
  'URL (same filters and limit, a new `cursor`) answers the next page; the last page has none. Paging is ' +
  'stable while others write: no item twice, none that existed throughout skipped. A cursor that is not ' +
  'from this list, team and filters is a 400.';
const PAGED = `All of the list without \`limit\`. ${PAGED_REST}`;
const WEBHOOKS_PAGED = `All of them without \`limit\` (at most the team's quota: \`GET /limits\` tells it). ${PAGED_REST}`;

export const OPERATIONS: Record<string, Operation> = {
  'GET /api/v1/openapi.json': {
    id: 'getOpenApiDocument',
    tag: 'Reference',
    summary: 'This document',
    description: 'OpenAPI 3.1; needs no token. Answers 304 to an If-None-Match with its current ETag.',
    success: OpenApiDocument,
    example: {},
  },
  'GET /docs': {
    id: 'getApiReference',
    tag: 'Reference',
    summary: 'This reference as a web page',
    description:
      'HTML on which Redoc renders this document; it loads nothing from another origin. Needs no token; ' +
      'answers 304 to an If-None-Match with its current ETag.',
    successMediaType: 'text/html',
    example: {},
  },
  'GET /docs/{asset}': {
    id: 'getApiReferenceAsset',
    tag: 'Reference',
    summary: "A file of the reference page's renderer",
    description:
      'Only `redoc.standalone.js` (Redoc, the renderer); any other name is a 404. Needs no token; cached ' +
      'for a year when asked for with the version the page names (`?v=`); 304 to a matching If-None-Match.',
    successMediaType: 'text/javascript',
    // The one file functions/docs/asset.ts serves.
    pathParameters: {
      asset: { type: 'string', enum: ['redoc.standalone.js'], description: "The file's name." },
    },
    example: {},
  },
  'POST /api/v1/brands/auto-configure': {
    id: 'autoConfigureBrand',
    tag: 'Brands',
    summary: 'Suggest brand values from a website',
    description:
      'Fetches the page (and its web manifest) and reads its metadata; creates nothing. Beside the ' +
      'suggestions: where each came from, how sure it is, and dark-mode variants. A site that cannot be read ' +
      'is a 422 naming the cause under `errors.url`; a refusal of a loopback address names the local ' +
      'switch that allows it. A page over ' +
      `${LIMITS.autoConfigurePageBytes / 1024 / 1024} MiB is a 422 \`page is too large\`, and one whose parse would ` +
      `exceed its bounds (${LIMITS.autoConfigurePageElements.toLocaleString('en-US')} elements, nested ` +
      `${LIMITS.autoConfigurePageDepth} deep) a 422 \`page is too complex to read (…)\`. A team runs at most ` +
      `${LIMITS.autoConfigurePerTeam} of these at once: one more is a 429 with \`Retry-After\` that names the ` +
      "share, answered before the site is sent anything; retry when one of the team's calls ends.",
    body: described(autoConfigureRequest, AUTO_CONFIGURE_INPUT),
    success: BrandSuggestionsSchema,
    example: {
      request: { url: 'https://acme.example' },
      response: {
        suggestions: {
          website_url: 'https://acme.example/',
          name: 'Acme',
          short_description: 'Rockets and more',
          primary_color: '#1a2b3c',
          secondary_color: null,
          logo_image: 'https://acme.example/logo.png',
          logo_square_image: 'https://acme.example/apple-touch-icon.png',
          header_image: null,
          footer_image: null,
          social_share_image: 'https://acme.example/og.png',
          social_links: { x: 'https://x.com/acme' },
        },
        sources: {
          website_url: 'url',
          name: 'og:site_name',
          short_description: 'description',
          primary_color: 'theme-color',
          logo_image: 'json-ld:Organization.logo',
          logo_square_image: 'apple-touch-icon',
          social_share_image: 'og:image',
          social_links: { x: 'twitter:site' },
        },
        confidence: {
          website_url: 'high',
          name: 'high',
          short_description: 'high',
          primary_color: 'high',
          logo_image: 'high',
          logo_square_image: 'high',
          social_share_image: 'high',
          social_links: { x: 'high' },
        },
        variants: { dark: { primary_color: '#0d1117' } },
      },
    },
  },
  'GET /api/v1/contact-fields/types': {
    id: 'listContactFieldTypes',
    tag: 'Contact fields',
    summary: 'The ten contact field types',
    description:
      "Each type as `value` (what a field's `type` takes) and its display name, in the spec's order.",
    success: z.array(ContactFieldTypeSchema).length(CONTACT_FIELD_TYPES.length),
    example: { response: CONTACT_FIELD_TYPES },
  },
  'GET /api/v1/contact-fields': {
    id: 'listContactFields',
    tag: 'Contact fields',
    summary: "The team's contact fields, by id",
    description: PAGED,
    query: contactFieldsQuery,
    paged: true,
    success: z.array(ContactFieldListItemSchema),
    example: { response: [fieldListExample] },
  },
  'POST /api/v1/contact-fields': {
    id: 'createContactField',
    versioned: true,
    tag: 'Contact fields',
    summary: 'Create a contact field',
    description:
      'The tag is unique in the team (422 when taken). A `pick_list` needs `options`; `max_length` defaults ' +
      "to 255 and `allow_multiple` to false. A create beyond the team's quota is a 422 naming `quota`.",
    body: withItems(
      described(newContactFieldSchema, CONTACT_FIELD_INPUT),
      'options',
      {},
      { uniqueItems: true },
    ),
    success: ContactFieldSchema,
    idempotent: true,
    example: {
      request: {
        name: 'Favourite colour',
        tag: 'favourite_colour',
        type: 'pick_list',
        contact_type: 'person',
        options: ['Red', 'Green'],
      },
      response: fieldExample,
    },
  },
  'GET /api/v1/contact-fields/{id}': {
    id: 'getContactField',
    versioned: true,
    tag: 'Contact fields',
    summary: 'One contact field',
    description: "Another team's field is a 403, an unknown id a 404.",
    success: ContactFieldSchema,
    example: { response: fieldExample },
  },
  'PUT /api/v1/contact-fields/{id}': {
    id: 'updateContactField',
    versioned: true,
    tag: 'Contact fields',
    summary: 'Update a contact field',
    description:
      'Only the supplied fields change. A field managed by an integration cannot be changed (403).',
    body: withItems(
      described(contactFieldPatchSchema, CONTACT_FIELD_PATCH),
      'options',
      {},
      { uniqueItems: true },
    ),
    success: ContactFieldSchema,
    example: { request: { name: 'Colour' }, response: { ...fieldExample, name: 'Colour' } },
  },
  'DELETE /api/v1/contact-fields/{id}': {
    id: 'deleteContactField',
    versioned: true,
    tag: 'Contact fields',
    summary: 'Delete a contact field',
    description: 'A field managed by an integration cannot be deleted (403). The quota gets the field back.',
    success: Message,
    example: { response: { message: 'Contact field deleted.' } },
  },
  'GET /api/v1/pages': {
    id: 'listPages',
    tag: 'Pages',
    summary: "The team's CMS pages, by name",
    description: PAGED,
    query: pagesQuery,
    repeatable: ['site_id'],
    paged: true,
    success: z.array(PageSchema),
    example: {
      response: [
        {
          id: 3,
          site_id: 2,
          site_name: 'Main',
          name: 'Thanks',
          url: '/thanks',
          full_url: 'https://example.com/thanks',
          created_at: '2026-11-25T09:46:31.123000Z',
          updated_at: '2026-11-25T09:46:31.123000Z',
        },
      ],
    },
  },
  'GET /api/v1/brands': {
    id: 'listBrands',
    tag: 'Brands',
    summary: "The team's brands, by name (case-insensitive)",
    description: PAGED,
    paged: true,
    success: z.array(BrandSchema),
    example: { response: [brandExample] },
  },
  'POST /api/v1/brands': {
    id: 'createBrand',
    versioned: true,
    tag: 'Brands',
    summary: 'Create a brand',
    description:
      '`social_links` is accepted as an array of profile URLs or as a map of network name to URL, and ' +
      'answered as a map. Images given as `*_path` (files of the team library) are copied to the public ' +
      'library and answered as URLs. `is_default: true` takes over the default.',
    body: described(createBrandSchema, BRAND_INPUT),
    success: BrandSchema,
    idempotent: true,
    example: {
      // Every value the answer shows, given; social links as a list of URLs, answered as a map by network.
      request: {
        name: 'Acme',
        short_description: 'Rockets and more',
        website_url: 'https://acme.example',
        primary_color: '#1a2b3c',
        secondary_color: '#ffffff',
        logo_image: 'https://cdn.example/brands/acme.png',
        social_links: ['https://twitter.com/acme'],
        tags: ['newsletter'],
        is_default: true,
      },
      response: brandExample,
    },
  },
  'GET /api/v1/brands/{id}': {
    id: 'getBrand',
    versioned: true,
    tag: 'Brands',
    summary: 'One brand',
    description: "With `is_default`. Another team's brand is a 403, an unknown id a 404.",
    success: BrandSchema,
    example: { response: brandExample },
  },
  'PUT /api/v1/brands/{id}': {
    id: 'updateBrand',
    versioned: true,
    tag: 'Brands',
    summary: 'Update a brand',
    description: 'Only the supplied fields change; null clears an image.',
    body: described(updateBrandSchema, BRAND_INPUT),
    success: BrandSchema,
    example: {
      request: { primary_color: '#ff0000' },
      response: { ...brandExample, primary_color: '#ff0000' },
    },
  },
  'DELETE /api/v1/brands/{id}': {
    id: 'deleteBrand',
    versioned: true,
    tag: 'Brands',
    summary: 'Delete a brand',
    description: 'Lists that used the brand keep existing with `brand_id` null.',
    success: Message,
    example: { response: { message: 'Brand deleted.' } },
  },
  'GET /api/v1/events': {
    id: 'listEvents',
    tag: 'Events',
    summary: "The team's change events, newest first",
    description: EVENTS_PAGED,
    eventScopes: {
      needs:
        `Lists only the events of the families the token reads ${OR_WRITE}: ${EVENT_FAMILY_SCOPES}. A ` +
        'token of `events:read` alone lists none (an empty page, not an error); the `type` and `resource` ' +
        'filters narrow that further, and pages and cursors go as with any filter.',
      refuses: false,
    },
    query: eventsQuery,
    repeatable: ['type'],
    paged: true,
    defaultLimit: LIMITS.listPageSize,
    success: z.array(Event).max(LIMITS.listPageSize),
    example: { response: [brandUpdatedEvent, brandCreatedEvent] },
  },
  'GET /api/v1/events/{id}': {
    id: 'getEvent',
    tag: 'Events',
    summary: 'One change event',
    description:
      "Another team's event is a 403; an unknown or malformed id, or an event older than 30 days, a 404.",
    eventScopes: {
      needs:
        `Also needs the read scope of the event's family ${OR_WRITE}: ${EVENT_FAMILY_SCOPES}, since the ` +
        'event carries its resource; without it, a 403 `insufficient_scope` naming that scope.',
      refuses: true,
    },
    pathParameters: { id: EVENT_ID_PARAMETER },
    success: Event,
    example: { response: brandUpdatedEvent },
  },
  'GET /api/v1/events/{id}/deliveries': {
    id: 'listEventDeliveries',
    tag: 'Events',
    summary: "The event's delivery to each webhook endpoint, and where it stands",
    description:
      "One item per endpoint of the team's that the event was delivered to (subscribed to its type when " +
      'it happened), by endpoint id: pending with its next try, being sent, ' +
      "succeeded, or given up; the endpoint's attempts list has each try. Another team's event is a 403; " +
      'an unknown or malformed id, or an event older than 30 days, a 404.',
    pathParameters: { id: EVENT_ID_PARAMETER },
    success: z.array(EventDelivery),
    example: { response: [{ endpoint_id: endpointExample.id, ...deliveryExample }] },
  },
  'POST /api/v1/events/{id}/redeliver': {
    id: 'redeliverEvent',
    tag: 'Events',
    summary: 'Send an event to webhook endpoints again',
    description:
      'To the endpoint named, or to every enabled endpoint subscribed to its type: each delivery starts ' +
      'the retry schedule again, now, with the same `webhook-id` (a receiver that has it can tell). 202: ' +
      "the deliveries are queued; the endpoint's attempts tell how they went. The body is optional: " +
      'without one (or with `{}`), the event goes to every enabled endpoint subscribed to its type. Only ' +
      'again: an event goes only to an endpoint that was sent it, one subscribed to its type when it was ' +
      'made (its delivery is in `GET /events/{id}/deliveries`); an endpoint registered or subscribed later ' +
      'is a 422 naming `endpoint_id`, and is left out of a redelivery to every endpoint. A delivery being tried is ' +
      'never sent twice at once: a redelivery during its try runs once more after that try ends, however ' +
      "many are asked for meanwhile, and a repeated call answers the same 202. Another team's event is a " +
      '403; an unknown id, or an event older than 30 days, a 404.',
    eventScopes: {
      needs:
        `Also needs the read scope of the event's family ${OR_WRITE}: ${EVENT_FAMILY_SCOPES}, since a ` +
        "delivery carries the event's body to the endpoint's URL; without it, a 403 `insufficient_scope` " +
        'naming that scope.',
      refuses: true,
    },
    pathParameters: { id: EVENT_ID_PARAMETER },
    body: described(redeliverSchema, REDELIVER_INPUT),
    bodyOptional: true,
    success: Redelivery,
    example: {
      request: { endpoint_id: endpointExample.id },
      response: { endpoint_ids: [endpointExample.id] },
    },
  },
  'GET /api/v1/webhook-endpoints': {
    id: 'listWebhookEndpoints',
    tag: 'Webhooks',
    summary: "The team's webhook endpoints, by id",
    description: `Without their secrets. ${WEBHOOKS_PAGED}`,
    paged: true,
    success: z.array(WebhookEndpointSchema),
    example: { response: [endpointExample] },
  },
  'POST /api/v1/webhook-endpoints': {
    id: 'createWebhookEndpoint',
    versioned: true,
    idempotent: true,
    tag: 'Webhooks',
    summary: 'Create a webhook endpoint',
    description:
      'Events of the types it names are POSTed to its URL from now on, signed with its secret, which ' +
      'this answer alone shows. A replay with the same `Idempotency-Key` shows it again while it is the ' +
      "endpoint's current secret; after a rotation or a deletion the replay has no `secret` and has " +
      '`secret_shown: false` (the Idempotency-Key record never holds a secret). The URL is ' +
      "checked as a delivery is (a refused one is a 422 naming `url`). A create beyond the team's quota " +
      '(`GET /limits` tells it) is a 422 naming `quota`.',
    eventScopes: {
      needs:
        `Also needs, for each of \`event_types\`, the read scope of its family ${OR_WRITE}: ` +
        `${EVENT_FAMILY_SCOPES}, since each delivery carries the event's body to the URL; without them, a 403 ` +
        '`insufficient_scope` whose message names every scope lacking (`required_scope` and ' +
        '`WWW-Authenticate` the first), and nothing is created or kept under the `Idempotency-Key`.',
      refuses: true,
    },
    body: withItems(
      described(createWebhookEndpointSchema, WEBHOOK_ENDPOINT_INPUT),
      'event_types',
      EVENT_TYPE_ITEMS,
      { uniqueItems: true },
    ),
    success: WebhookEndpointCreated,
    example: {
      request: {
        url: endpointExample.url,
        event_types: endpointExample.event_types,
        description: endpointExample.description,
      },
      response: { ...endpointExample, secret: 'whsec_ZXhhbXBsZS1zZWNyZXQtb25seS0wMDAx' },
    },
  },
  'GET /api/v1/webhook-endpoints/{id}': {
    id: 'getWebhookEndpoint',
    versioned: true,
    tag: 'Webhooks',
    summary: 'One webhook endpoint',
    description: "Without its secret. Another team's endpoint is a 403, an unknown id a 404.",
    success: WebhookEndpointSchema,
    example: { response: endpointExample },
  },
  'PUT /api/v1/webhook-endpoints/{id}': {
    id: 'updateWebhookEndpoint',
    versioned: true,
    tag: 'Webhooks',
    summary: 'Update a webhook endpoint',
    description:
      'Only the supplied fields change; a new URL is checked as at creation. `disabled: false` enables a ' +
      'disabled endpoint again (what failed meanwhile is sent again on `recover`).',
    eventScopes: {
      needs:
        `Also needs the read scope of the family ${OR_WRITE} of each type it adds to \`event_types\`, and, ` +
        "when `url` is another than the endpoint's, of every type the endpoint subscribes to (its events " +
        `would go to the new URL): ${EVENT_FAMILY_SCOPES}. Without them, a 403 \`insufficient_scope\` whose ` +
        'message names every scope lacking, and nothing changes. A body that repeats the settings the ' +
        'endpoint has (read and sent back) needs no more than `webhooks:write`.',
      refuses: true,
    },
    body: withItems(
      described(updateWebhookEndpointSchema, WEBHOOK_ENDPOINT_PATCH),
      'event_types',
      EVENT_TYPE_ITEMS,
      { uniqueItems: true },
    ),
    success: WebhookEndpointSchema,
    example: {
      request: { event_types: updatedEndpointExample.event_types },
      response: updatedEndpointExample,
    },
  },
  'DELETE /api/v1/webhook-endpoints/{id}': {
    id: 'deleteWebhookEndpoint',
    versioned: true,
    tag: 'Webhooks',
    summary: 'Delete a webhook endpoint',
    description:
      'Nothing more is sent to it (deliveries due are given up). The quota gets the endpoint back.',
    success: Message,
    example: { response: { message: 'Webhook endpoint deleted.' } },
  },
  'POST /api/v1/webhook-endpoints/{id}/secret/rotate': {
    id: 'rotateWebhookEndpointSecret',
    // Its ETag is the endpoint's new version (If-Match of the next update).
    versioned: true,
    tag: 'Webhooks',
    summary: "Rotate a webhook endpoint's signing secret",
    description:
      'A new secret, shown in this answer only, signs every delivery from now on; the one it replaces ' +
      'signs them too for another 24 hours (two signatures in `webhook-signature`), so the receiver can ' +
      "switch without losing a delivery. The ETag is the endpoint's new version. It takes no body.",
    success: SecretRotation,
    example: {
      response: {
        secret: 'whsec_ZXhhbXBsZS1zZWNyZXQtb25seS0wMDAy',
        previous_secret_expires_at: '2026-11-26T09:46:35.123000Z',
      },
    },
  },
  'GET /api/v1/webhook-endpoints/{id}/attempts': {
    id: 'listWebhookEndpointAttempts',
    tag: 'Webhooks',
    summary: "A webhook endpoint's delivery attempts, newest first",
    description:
      `Every try of a delivery (the first, each retry, each redelivery), newest first, in pages: at most ` +
      `\`limit\` (1 to ${LIMITS.listPageSize}), and ${LIMITS.listPageSize} without it. ${PAGED_REST} ` +
      `Tries are kept as long as their events (30 days), and only the newest ` +
      `${WEBHOOK_LIMITS.attemptsKeptPerEndpoint.toLocaleString('en-US')} per endpoint: older ones are deleted.`,
    paged: true,
    defaultLimit: LIMITS.listPageSize,
    success: z.array(WebhookAttempt).max(LIMITS.listPageSize),
    example: {
      response: [
        {
          event_id: brandCreatedEvent.id,
          attempted_at: '2026-11-25T09:46:35.123000Z',
          status_code: 204,
          error: null,
          duration_ms: 38,
          response: '',
          succeeded: true,
        },
      ],
    },
  },
  'GET /api/v1/webhook-endpoints/{id}/deliveries': {
    id: 'listWebhookEndpointDeliveries',
    tag: 'Webhooks',
    summary: "A webhook endpoint's deliveries and where each stands, newest event first",
    description:
      'Each event delivered to the endpoint, once (however many tries it took): pending with its next ' +
      'try, being sent, succeeded, or given up. `status` keeps those of one state (`status=failed`: what ' +
      '`recover` would send again); one request reads at most ' +
      `${DELIVERY_READ_BUDGET.toLocaleString('en-US')} of the endpoint's deliveries, so a filtered page may ` +
      'hold fewer than `limit`, or none, while a `Link` reads on. In pages: at most `limit` (1 to ' +
      `${LIMITS.listPageSize}), and ${LIMITS.listPageSize} without it. ${PAGED_REST} Deliveries are kept ` +
      'as long as their events (30 days); the attempts list has each try.',
    query: deliveriesQuery,
    paged: true,
    defaultLimit: LIMITS.listPageSize,
    success: z.array(WebhookDelivery).max(LIMITS.listPageSize),
    example: { response: [deliveryExample] },
  },
  'POST /api/v1/webhook-endpoints/{id}/recover': {
    id: 'recoverWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Send again what a webhook endpoint missed',
    description:
      'The deliveries to it of events since `since` that were given up (the retry schedule ran out, or ' +
      'the endpoint was disabled when they happened) start the schedule again, now. 202 with how many; ' +
      'the attempts tell how they went. Only deliveries given up are restarted, each by one call: a repeat ' +
      'answers 202 with what was still given up (0 once all are restarted), and nothing is sent twice at ' +
      'once. A disabled endpoint is a 422 naming `since`: enable it first.',
    body: described(recoverSchema, RECOVER_INPUT),
    success: Recovery,
    example: { request: { since: '2026-11-25T00:00:00Z' }, response: { deliveries: 1 } },
  },
  'GET /api/v1/limits': {
    id: 'getLimits',
    tag: 'Reference',
    summary: "The team's quotas with their usage, and its rate limit",
    description:
      "Each quota's limit and what the team uses of it, and the rate limit plan the caller's token is held to.",
    success: Limits,
    example: {
      response: {
        quotas: {
          brands: { limit: 500, used: 3 },
          contact_fields: { limit: 5000, used: 120 },
          sites: { limit: 100, used: 2 },
          pages: { limit: 10000, used: 40 },
          webhook_endpoints: { limit: 20, used: 2 },
          uploads: { limit: 10000, used: 12 },
          upload_bytes: { limit: 5368709120, used: 1048576 },
        },
        rate_limit: { plan: 'standard', limit: 1500, window_seconds: 60 },
      },
    },
  },
  'POST /api/v1/files': {
    id: 'createUploadUrl',
    tag: 'Files',
    summary: 'A presigned URL to upload one file to the team library',
    description:
      'PUT the file to `upload_url` within `expires_in` seconds, with the `headers` given and exactly `size` ' +
      "bytes; a brand then names it by `path` in an `*_image_path` field. Takes one of the team's `uploads` " +
      'and `size` of its `upload_bytes` (GET /limits); past either, a 422 on `quota`. A library file is ' +
      'written once: the URL stores one file, and a path already written refuses the PUT (S3: 412).',
    body: described(uploadRequest, UPLOAD_INPUT),
    success: UploadUrl,
    example: {
      request: { path: 'logos/acme.png', content_type: 'image/png', size: 5120 },
      response: {
        path: 'logos/acme.png',
        upload_url: 'https://bucket.s3.amazonaws.com/teams/51/logos/acme.png?X-Amz-Signature=abc123',
        method: 'PUT',
        headers: { 'Content-Type': 'image/png', 'If-None-Match': '*' },
        expires_in: 900,
      },
    },
  },
};
