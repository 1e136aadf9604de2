import { allows, type Scope, type ScopeFamily } from '../scopes.ts';

/**
 * What a change event is, with nothing to load (the scopes' module has no imports): its types and their
 * families, its shape and its id. The request schemas and the OpenAPI document read it without the data
 * modules (and their SDK clients) that make events.
 */
export const EVENT_TYPES = [
  'brand.created',
  'brand.updated',
  'brand.deleted',
  'contact_field.created',
  'contact_field.updated',
  'contact_field.deleted',
  'webhook_endpoint.disabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The resource family each event type belongs to (the family of token scopes, shared/scopes.ts): an event
 * carries its resource's representation and former values, so what a token sees of it follows what it may
 * read of that resource directly. Listing events keeps only those of families the token reads; reading one
 * by id, subscribing an endpoint to its type and redelivering it need `<family>:read` (or `:write`) besides
 * the route's own scope. The one place this is spelled: every check and the documents derive from it.
 */
export const EVENT_TYPE_FAMILIES = {
  'brand.created': 'brands',
  'brand.updated': 'brands',
  'brand.deleted': 'brands',
  'contact_field.created': 'contact_fields',
  'contact_field.updated': 'contact_fields',
  'contact_field.deleted': 'contact_fields',
  // The endpoint's whole view, its URL included (a hook URL may hold a secret in its path).
  'webhook_endpoint.disabled': 'webhooks',
} as const satisfies Record<EventType, ScopeFamily>;

/** The scope that reads events of this type (its family's `:write` includes it). */
export const eventReadScope = (type: EventType): Scope => `${EVENT_TYPE_FAMILIES[type]}:read`;

/** The event types a token whose context carries `granted` (formatScopes) may see, in EVENT_TYPES' order. */
export const readableEventTypes = (granted: string | undefined): EventType[] =>
  EVENT_TYPES.filter((type) => allows(granted, eventReadScope(type)));

type Representation = Record<string, unknown>;

export interface ChangeEvent {
  id: string;
  type: EventType;
  created_at: string;
  team_id: number;
  /** `<kind>:<id>` (brand, contact_field, webhook_endpoint), as the events API's `resource` filter names it. */
  resource: string;
  /** The version the resource's ETag carries after the change (before it, for a delete). */
  resource_version: number;
  /** The API request that made the change; null for the admin CLI's. */
  request_id: string | null;
  data: {
    /** The resource after the change; for a delete, as it last was. */
    object: Representation;
    /** The changed fields' former values (Stripe's convention); null for a create or a delete. */
    previous_attributes: Representation | null;
    /**
     * Only on an event that would pass LIMITS.eventBytes: what it holds without, largest first
     * (`previous_attributes.options`: that former value is left out). Within the limits only a contact
     * field's options, changed whole at their largest, come to it.
     */
    omitted?: string[];
  };
}

/** Sequence numbers have up to 40 digits; padded, they sort as numbers do. */
const SEQUENCE_DIGITS = 40;

/** Where in the stream an event's record is: the parts of its id. */
export interface RecordPlace {
  sequenceNumber: string;
  approximateCreationSeconds: number;
}

/**
 * An event's id names its team and its place in the stream (time, sequence number, ordinal), so it is the
 * same on every delivery of the record, and the events API finds it with one read (events.ts).
 */
export function eventId(teamId: number, change: RecordPlace, ordinal: number): string {
  const sequence = BigInt(change.sequenceNumber).toString();
  return `evt_${teamId}_${change.approximateCreationSeconds}_${sequence}_${ordinal}`;
}

/**
 * An event id's form, as eventId writes it: team, seconds, sequence number (up to 40 digits) and ordinal,
 * numbers without leading zeros, so that one event has one id (the events API documents the form).
 */
export const EVENT_ID = /^evt_([1-9][0-9]{0,14})_(0|[1-9][0-9]{0,11})_(0|[1-9][0-9]{0,39})_([0-9])$/;
/** The longest id of that form. */
export const EVENT_ID_LENGTH = 'evt_'.length + 15 + 1 + 12 + 1 + SEQUENCE_DIGITS + 1 + 1;

/** The sort key part an event id stands for: time, then sequence number, both sorting as numbers. */
export function eventPosition(id: string): { teamId: number; position: string } | undefined {
  const match = EVENT_ID.exec(id);
  if (!match) return undefined;
  const [, team, seconds, sequence, ordinal] = match as unknown as [string, string, string, string, string];
  return {
    teamId: Number(team),
    position: `${seconds.padStart(12, '0')}#${sequence.padStart(SEQUENCE_DIGITS, '0')}#${ordinal}`,
  };
}

/**
 * A position as eventPosition gives it (`<12 digits>#<40 digits>#<digit>`): what an events list cursor
 * carries, the position of the last event it returned.
 */
const EVENT_POSITION = new RegExp(`^[0-9]{12}#[0-9]{${SEQUENCE_DIGITS}}#[0-9]$`);
export const isEventPosition = (position: unknown): position is string =>
  typeof position === 'string' && EVENT_POSITION.test(position);
