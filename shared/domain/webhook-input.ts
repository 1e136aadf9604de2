import * as z from 'zod/mini';
import { LIMITS } from '../limits.ts';
import { DELIVERY_STATES, type DeliveryState } from './delivery-states.ts';
import { EVENT_TYPES, type EventType } from './event-shape.ts';
import { requestBody } from './misspelled-keys.ts';

/**
 * The bodies of the webhook routes. A URL is checked here for its form only; whether it may be called
 * (public address, https in AWS) is the guarded client's check (shared/webhooks/url-check.ts).
 */
const url = z
  .string()
  .check(z.trim(), z.minLength(1), z.maxLength(LIMITS.webhookUrlLength))
  .register(z.globalRegistry, { format: 'uri' });

/** One or more of the event types, each once. */
const eventTypes = z.pipe(
  z.array(z.string()).check(
    z.minLength(1, { message: 'The event types field must name at least one event type.' }),
    z.maxLength(EVENT_TYPES.length),
    z.refine((types) => types.every((type) => EVENT_TYPES.includes(type as EventType)), {
      message: `The selected event type is invalid: the types are ${EVENT_TYPES.join(', ')}.`,
    }),
    z.refine((types) => new Set(types).size === types.length, {
      message: 'The event types field has a duplicate value.',
    }),
  ),
  z.transform((types) => types as EventType[]),
);

const description = z.nullable(z.string().check(z.maxLength(LIMITS.textLength)));

/** What an endpoint answers beyond what its bodies write: an endpoint read and sent back carries them. */
const ENDPOINT_READ_ONLY = ['id', 'secret', 'secret_shown', 'disabled_reason', 'created_at', 'updated_at'];

/** A new endpoint is enabled: `disabled` is a field of the representation, not of the create. */
export const createWebhookEndpointSchema = requestBody(
  z.object({ url, event_types: eventTypes, description: z.optional(description) }),
  [...ENDPOINT_READ_ONLY, 'disabled'],
);

/** Every field optional; only the supplied ones change. */
export const updateWebhookEndpointSchema = requestBody(
  z.object({
    url: z.optional(url),
    event_types: z.optional(eventTypes),
    description: z.optional(description),
    disabled: z.optional(z.boolean()),
  }),
  ENDPOINT_READ_ONLY,
);

/** The longest `since`: microseconds and an offset (`2026-11-25T09:46:31.123456+01:00`) and some room. */
export const SINCE_LENGTH = 35;

/** `since`: an ISO 8601 time with an offset; what was given up from then on is sent again. */
export const recoverSchema = requestBody(
  z.object({
    since: z.string().check(
      z.maxLength(SINCE_LENGTH, {
        message: `The since field must not be greater than ${SINCE_LENGTH} characters.`,
      }),
      // Its 422 names the format with an example (shared/domain/validation.ts).
      z.iso.datetime({ offset: true }),
    ),
  }),
  [],
);

/** To one endpoint (`endpoint_id`), or to every endpoint that subscribes to the event's type. */
export const redeliverSchema = requestBody(
  z.object({ endpoint_id: z.optional(z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER))) }),
  [],
);

export type CreateWebhookEndpointInput = z.output<typeof createWebhookEndpointSchema>;
export type UpdateWebhookEndpointInput = z.output<typeof updateWebhookEndpointSchema>;

/** `?status=pending|sending|succeeded|failed` of an endpoint's deliveries, given at most once. */
export const deliveriesQuery = z.object({
  status: z.optional(
    z.pipe(
      z.array(z.string()).check(
        z.refine((values) => values.length === 1 && DELIVERY_STATES.includes(values[0] as DeliveryState), {
          message: `The selected status is invalid: the statuses are ${DELIVERY_STATES.join(', ')}.`,
        }),
      ),
      z.transform((values) => values[0] as DeliveryState),
    ),
  ),
});
