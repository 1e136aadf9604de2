import { brandOfItem, MOVED_POINTER, SET_BY_CREATE } from '../data/brands.ts';
import { contactFieldOfItem } from '../data/contact-fields.ts';
import { isoMicros } from '../data/dynamo.ts';
import { BRAND_PREFIX } from '../data/keys.ts';

/**
 * Change events from the table's own stream (change data capture): a stream record holds an item before
 * and after one write, exactly once per write and in order per item, and a write that changes nothing, a
 * refused write or an idempotent replay writes no record. So nothing is added to the request path, and the
 * admin CLI's changes are caught too. One record gives at most two events (a default-brand change names
 * the brand that lost it and the one that won it).
 */
export const EVENT_TYPES = [
  'brand.created',
  'brand.updated',
  'brand.deleted',
  'contact_field.created',
  'contact_field.updated',
  'contact_field.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

type Representation = Record<string, unknown>;

export interface ChangeEvent {
  id: string;
  type: EventType;
  created_at: string;
  team_id: number;
  /** `<kind>:<id>`, as the events API's `resource` filter names it. */
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
  };
}

/** One stream record as the consumer reads it. */
export interface ItemChange {
  /** The record's position in its shard: increasing, and the same on every delivery of the record. */
  sequenceNumber: string;
  /** When the stream recorded the write, in epoch seconds (the finest time a stream record gives). */
  approximateCreationSeconds: number;
  oldImage?: Record<string, unknown>;
  newImage?: Record<string, unknown>;
}

/**
 * What an event needs beyond its record: the default pointer and a brand's item now (to render brands),
 * and the request a delete's tombstone names (a delete's record holds only the item as it was).
 */
export interface ChangeLookups {
  defaultBrandId(teamId: number): Promise<number | undefined>;
  brandItem(teamId: number, brandId: number): Promise<Record<string, unknown> | undefined>;
  deletedBy(teamId: number, sk: string): Promise<string | undefined>;
}

const DEFAULT_POINTER_SK = `${BRAND_PREFIX}DEFAULT`;
const ENTITY_SK = /^(BRAND|FIELD)#(\d+)$/;
/** Sequence numbers have up to 40 digits; padded, they sort as numbers do. */
const SEQUENCE_DIGITS = 40;

/** The events one stream record makes: none for items that are not brands, fields or the default pointer. */
export async function eventsOfChange(change: ItemChange, lookups: ChangeLookups): Promise<ChangeEvent[]> {
  const image = change.newImage ?? change.oldImage;
  const sk = typeof image?.sk === 'string' ? image.sk : '';
  const teamId = teamOf(image?.pk);
  if (teamId === undefined) return [];
  if (sk === DEFAULT_POINTER_SK) return defaultChangeEvents(change, teamId, lookups);
  const entity = ENTITY_SK.exec(sk);
  if (!entity) return [];
  const kind = entity[1] === 'BRAND' ? 'brand' : 'contact_field';
  const id = Number(entity[2]);
  let render: (item: Record<string, unknown>) => Representation = contactFieldOfItem;
  if (kind === 'brand') {
    const isDefault = (await lookups.defaultBrandId(teamId)) === id;
    render = (item) => brandOfItem(item, isDefault) as unknown as Representation;
  }
  const event = (type: EventType, item: Record<string, unknown>, previous: Representation | null) =>
    changeEvent(change, 0, {
      type,
      teamId,
      resource: `${kind === 'brand' ? 'brand' : 'contact_field'}:${id}`,
      version: item.version,
      requestId: item.request_id,
      object: render(item),
      previous,
    });
  const { oldImage, newImage } = change;
  if (!oldImage && newImage) return [event(`${kind}.created`, newImage, null)];
  if (oldImage && !newImage) {
    const requestId = await lookups.deletedBy(teamId, sk);
    return [event(`${kind}.deleted`, { ...oldImage, request_id: requestId }, null)];
  }
  if (!oldImage || !newImage) return [];
  const previous = previousAttributes(render(oldImage), render(newImage));
  return previous ? [event(`${kind}.updated`, newImage, previous)] : [];
}

/**
 * The pointer moved: `brand.updated` of the brand that lost the default and of the one that won it, each
 * as it is now. A brand created as the default (the pointer written with it says so) already said so in its
 * `brand.created`; a
 * pointer `admin migrate` moved changed no default.
 */
async function defaultChangeEvents(
  change: ItemChange,
  teamId: number,
  lookups: ChangeLookups,
): Promise<ChangeEvent[]> {
  const before = pointed(change.oldImage);
  const after = pointed(change.newImage);
  if (before === after || change.newImage?.[MOVED_POINTER] === true) return [];
  const moves: Array<[number, boolean]> = [];
  if (before !== undefined) moves.push([before, false]);
  if (after !== undefined) moves.push([after, true]);
  const events: ChangeEvent[] = [];
  for (const [brandId, isDefault] of moves) {
    const item = await lookups.brandItem(teamId, brandId);
    if (!item || (isDefault && change.newImage?.[SET_BY_CREATE] === true)) continue;
    events.push(
      changeEvent(change, events.length, {
        type: 'brand.updated',
        teamId,
        resource: `brand:${brandId}`,
        version: item.version,
        requestId: item.request_id,
        object: brandOfItem(item, isDefault) as unknown as Representation,
        previous: { is_default: !isDefault },
      }),
    );
  }
  return events;
}

interface EventParts {
  type: EventType;
  teamId: number;
  resource: string;
  version: unknown;
  requestId: unknown;
  object: Representation;
  previous: Representation | null;
}

function changeEvent(change: ItemChange, ordinal: number, parts: EventParts): ChangeEvent {
  return {
    id: eventId(parts.teamId, change, ordinal),
    type: parts.type,
    created_at: isoMicros(new Date(change.approximateCreationSeconds * 1000)),
    team_id: parts.teamId,
    resource: parts.resource,
    resource_version: typeof parts.version === 'number' ? parts.version : 0,
    request_id: typeof parts.requestId === 'string' ? parts.requestId : null,
    data: { object: parts.object, previous_attributes: parts.previous },
  };
}

/**
 * An event's id names its team and its place in the stream (time, sequence number, ordinal), so it is the
 * same on every delivery of the record, and the events API finds it with one read (events.ts).
 */
export function eventId(teamId: number, change: ItemChange, ordinal: number): string {
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

/** The fields whose values differ, with their former values; undefined when only `updated_at` did. */
export function previousAttributes(
  before: Representation,
  after: Representation,
): Representation | undefined {
  const previous: Representation = {};
  for (const [field, value] of Object.entries(before)) {
    if (JSON.stringify(value) !== JSON.stringify(after[field])) previous[field] = value;
  }
  const { updated_at, ...changed } = previous;
  return Object.keys(changed).length > 0 ? previous : undefined;
}

function teamOf(pk: unknown): number | undefined {
  const match = typeof pk === 'string' ? /^TEAM#(\d+)$/.exec(pk) : null;
  return match ? Number(match[1]) : undefined;
}

const pointed = (item: Record<string, unknown> | undefined): number | undefined =>
  typeof item?.brand_id === 'number' ? item.brand_id : undefined;
