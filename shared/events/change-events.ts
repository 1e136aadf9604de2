import { brandOfItem, MOVED_POINTER, SET_BY_CREATE } from '../data/brands.ts';
import { contactFieldOfItem } from '../data/contact-fields.ts';
import { isoMicros } from '../data/dynamo.ts';
import { itemSize } from '../data/item-size.ts';
import { BRAND_PREFIX } from '../data/keys.ts';
import { webhookEndpointOfItem, webhookEndpointView } from '../data/webhook-endpoints.ts';
import { LIMITS } from '../limits.ts';
import { type ChangeEvent, type EventType, eventId } from './event-shape.ts';
import { withLargestOmitted } from './event-size.ts';

type Representation = Record<string, unknown>;

/**
 * Change events from the table's own stream (change data capture): a stream record holds an item before
 * and after one write, exactly once per write and in order per item, and a write that changes nothing, a
 * refused write or an idempotent replay writes no record. So nothing is added to the request path, and the
 * admin CLI's changes are caught too. One record gives at most two events (a default-brand change names
 * the brand that lost it and the one that won it).
 */
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
const WEBHOOK_SK = /^WEBHOOK#(\d+)$/;

/** The events one stream record makes: none for items that are not brands, fields or the default pointer. */
export async function eventsOfChange(change: ItemChange, lookups: ChangeLookups): Promise<ChangeEvent[]> {
  const image = change.newImage ?? change.oldImage;
  const sk = typeof image?.sk === 'string' ? image.sk : '';
  const teamId = teamOf(image?.pk);
  if (teamId === undefined) return [];
  if (sk === DEFAULT_POINTER_SK) return defaultChangeEvents(change, teamId, lookups);
  const webhook = WEBHOOK_SK.exec(sk);
  if (webhook) return endpointDisabledEvents(change, teamId, Number(webhook[1]));
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

/**
 * The API disabled an endpoint (it answered 410, or failed for days): the team hears of it as an event. The
 * team's own changes to its endpoints are answers to its requests, not events.
 */
function endpointDisabledEvents(change: ItemChange, teamId: number, id: number): ChangeEvent[] {
  const { oldImage, newImage } = change;
  if (!oldImage || !newImage || oldImage.disabled === true || newImage.disabled !== true) return [];
  if (newImage.disabled_reason === 'manual') return [];
  return [
    changeEvent(change, 0, {
      type: 'webhook_endpoint.disabled',
      teamId,
      resource: `webhook_endpoint:${id}`,
      version: newImage.version,
      requestId: null,
      object: webhookEndpointView(webhookEndpointOfItem(newImage)),
      previous: { disabled: false, disabled_reason: null },
    }),
  ];
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
  return withinEventBytes({
    id: eventId(parts.teamId, change, ordinal),
    type: parts.type,
    created_at: isoMicros(new Date(change.approximateCreationSeconds * 1000)),
    team_id: parts.teamId,
    resource: parts.resource,
    resource_version: typeof parts.version === 'number' ? parts.version : 0,
    request_id: typeof parts.requestId === 'string' ? parts.requestId : null,
    data: { object: parts.object, previous_attributes: parts.previous },
  });
}

/**
 * An event as stored is at most LIMITS.eventBytes (its DynamoDB size; the log's key and expiry add under
 * 200 bytes), so the log never holds an item DynamoDB would refuse and the stream never stops at one. The
 * largest brand change the limits allow fits whole (249,551 bytes: test/tenant-isolation/storage.test.ts
 * computes it); past the bound, the largest former values are left out and named (event-size.ts).
 */
export const withinEventBytes = (event: ChangeEvent): ChangeEvent =>
  withLargestOmitted(
    event,
    (fitted) => itemSize(fitted as unknown as Representation) <= LIMITS.eventBytes,
    'log',
  );

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
