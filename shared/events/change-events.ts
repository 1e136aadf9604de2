import { DEFAULT_AT_VERSION } from '../data/brand-default.ts';
import { brandOfItem } from '../data/brand-items.ts';
import { contactFieldOfItem } from '../data/contact-fields.ts';
import { isoMicros } from '../data/dynamo.ts';
import { itemSize } from '../data/item-size.ts';
import { BRAND_PREFIX } from '../data/keys.ts';
import { webhookEndpointOfItem, webhookEndpointView } from '../data/webhook-endpoints.ts';
import { type ChangeEvent, type EventType, eventId } from '../domain/event-shape.ts';
import { LIMITS } from '../limits.ts';
import { withLargestOmitted } from './event-size.ts';

type Representation = Record<string, unknown>;

/**
 * Change events from the table's own stream (change data capture): a stream record holds an item before
 * and after one write, exactly once per write and in order per item, and a write that changes nothing, a
 * refused write or an idempotent replay writes no record. So nothing is added to the request path, and the
 * admin CLI's changes are caught too. One record gives at most one event, and all it says comes from the
 * record (a delete's request and time from its tombstone, written with it and never changed): never from
 * an item read when the record is processed, which may hold a later write. A default moving between
 * brands writes both brands (brand-default.ts), so each brand's own record reports its side of the move; the
 * pointer's record makes none.
 */
/** One stream record as the consumer reads it. */
export interface ItemChange {
  /** The record's position in its shard: increasing, and the same on every delivery of the record. */
  sequenceNumber: string;
  /**
   * When the stream recorded the write, in epoch seconds: the finest time a stream record gives, and
   * DynamoDB Local gives it to the minute only. An event's time is the write's own (eventTime).
   */
  approximateCreationSeconds: number;
  oldImage?: Record<string, unknown>;
  newImage?: Record<string, unknown>;
}

/**
 * What an event needs beyond its record: the request and time a delete's tombstone names (a delete's
 * record holds only the item as it was), and, for a brand item written before brands carried whether they
 * are the default (DEFAULT_AT_VERSION: until `admin migrate` stamps it), what the pointer names now.
 */
export interface ChangeLookups {
  defaultBrandId(teamId: number): Promise<number | undefined>;
  deletion(teamId: number, sk: string): Promise<Deletion | undefined>;
}

/** What a tombstone says of a delete (items.ts deletionStamp); the admin CLI's deletes leave none. */
export interface Deletion {
  requestId?: string;
  /** When the delete was made (ISO 8601, microseconds). */
  at?: string;
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
  // A default moved: each brand's own record of the move makes its event.
  if (sk === DEFAULT_POINTER_SK) return [];
  const webhook = WEBHOOK_SK.exec(sk);
  if (webhook) return endpointDisabledEvents(change, teamId, Number(webhook[1]));
  const entity = ENTITY_SK.exec(sk);
  if (!entity) return [];
  const kind = entity[1] === 'BRAND' ? 'brand' : 'contact_field';
  const id = Number(entity[2]);
  const render = async (item: Record<string, unknown>): Promise<Representation> =>
    kind === 'brand'
      ? (brandOfItem(item, await wasDefault(item, teamId, id, lookups)) as unknown as Representation)
      : contactFieldOfItem(item);
  const event = (
    type: EventType,
    item: Record<string, unknown>,
    object: Representation,
    made: { requestId: unknown; writtenAt: unknown; previous: Representation | null },
  ) =>
    changeEvent(change, 0, {
      type,
      teamId,
      resource: `${kind}:${id}`,
      version: item.version,
      object,
      ...made,
    });
  const { oldImage, newImage } = change;
  if (!oldImage && newImage) {
    const made = { requestId: newImage.request_id, writtenAt: newImage.updated_at ?? newImage.created_at };
    return [event(`${kind}.created`, newImage, await render(newImage), { ...made, previous: null })];
  }
  if (oldImage && !newImage) {
    const deletion = await lookups.deletion(teamId, sk);
    const made = { requestId: deletion?.requestId, writtenAt: deletion?.at, previous: null };
    return [event(`${kind}.deleted`, oldImage, await render(oldImage), made)];
  }
  if (!oldImage || !newImage) return [];
  const object = await render(newImage);
  const previous = previousAttributes(await render(oldImage), object);
  if (!previous) return [];
  const made = { requestId: newImage.request_id, writtenAt: newImage.updated_at, previous };
  return [event(`${kind}.updated`, newImage, object, made)];
}

/**
 * Whether a brand was the default as of this image of its item: what the item says (DEFAULT_AT_VERSION).
 * An item written before brands said so and that the pointer may ever have named asks the pointer now
 * (the consumer's one read of the table, gone once `admin migrate` has stamped the defaults).
 */
async function wasDefault(
  item: Record<string, unknown>,
  teamId: number,
  id: number,
  lookups: ChangeLookups,
): Promise<boolean> {
  const stated = item[DEFAULT_AT_VERSION];
  if (typeof stated === 'boolean') return stated;
  if (item.may_be_default !== true && item.is_default !== true) return false;
  return (await lookups.defaultBrandId(teamId)) === id;
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
      writtenAt: newImage.updated_at,
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
  /** The write's own time, as the write stored it (`updated_at`, a tombstone's `deleted_at`), if it did. */
  writtenAt: unknown;
}

/**
 * An event's time: the write's own, to the microsecond, as the API stamps times (a stream record's time is
 * whole seconds in AWS and whole minutes in DynamoDB Local); the record's time when the write stored none
 * (the admin CLI's delete). Its id holds whole seconds: the later of the record's and the write's, so it is
 * the same on every delivery of the record and never before the record's own second. A resource's ids
 * keep their order (ties go by sequence number) unless two writes of one item raced across a second's
 * turn, the later committed carrying the earlier-taken time.
 */
export function eventTime(change: ItemChange, writtenAt: unknown): { createdAt: string; seconds: number } {
  const written = typeof writtenAt === 'string' ? Date.parse(writtenAt) : Number.NaN;
  if (Number.isNaN(written)) {
    const seconds = change.approximateCreationSeconds;
    return { createdAt: isoMicros(new Date(seconds * 1000)), seconds };
  }
  return {
    createdAt: writtenAt as string,
    seconds: Math.max(change.approximateCreationSeconds, Math.floor(written / 1000)),
  };
}

function changeEvent(change: ItemChange, ordinal: number, parts: EventParts): ChangeEvent {
  const time = eventTime(change, parts.writtenAt);
  return withinEventBytes({
    id: eventId(parts.teamId, { ...change, approximateCreationSeconds: time.seconds }, ordinal),
    type: parts.type,
    created_at: time.createdAt,
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
 * largest brand change the limits allow fits whole (249,551 bytes: test/tenant-isolation/storage.services.test.ts
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

/** The team of a team's item (`TEAM#<team>`) or of its webhook endpoints (`WEBHOOKS#<team>`, keys.ts). */
function teamOf(pk: unknown): number | undefined {
  const match = typeof pk === 'string' ? /^(?:TEAM|WEBHOOKS)#(\d+)$/.exec(pk) : null;
  return match ? Number(match[1]) : undefined;
}
