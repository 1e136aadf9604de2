import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { type DeliveryState, FAILED, PENDING, SENDING, SUCCEEDED } from '../../domain/delivery-states.ts';
import { type EventType, eventPosition } from '../../domain/event-shape.ts';
import type { ListPage, PageOptions } from '../../domain/pagination.ts';
import { LIMITS } from '../../limits.ts';
import { dynamo, isoMicros, tableName } from '../dynamo.ts';
import { eventTypesOf } from '../events.ts';
import { queryPages } from '../items.ts';
import { deliveryKey, endpointDeliveries } from '../keys.ts';
import { TABLE_SCHEMA } from '../table-schema.ts';

// Delivery state, as the API shows it (GET /webhook-endpoints/{id}/deliveries, GET /events/{id}/deliveries).

/** One delivery of an event to an endpoint, as the API shows it. */
export interface DeliveryView {
  event_id: string;
  event_type: EventType;
  status: DeliveryState;
  /** Tries made so far (a redelivery or a recovery starts again from 0). */
  tries: number;
  /** When the next try is due: only while pending. */
  next_try_at: string | null;
  last_attempt_at: string | null;
  /** When it succeeded or was given up; null while pending or sending. */
  finished_at: string | null;
}

export interface EventDeliveryView extends DeliveryView {
  endpoint_id: number;
}

/** A delivery list's position: the sort key after the endpoint's prefix (the cursor is signed: any text we made). */
export const isDeliveryPosition = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 200;

/**
 * What each state is in the item, with its values: a try is in flight while its claim's lease lasts (the
 * item `sending`, or `pending` as deliverers claimed it before); a `sending` whose lease ran out (its
 * deliverer died) is due again: pending.
 */
function stateFilter(
  state: DeliveryState,
  nowMs: number,
): { condition: string; values: Record<string, unknown> } {
  const claimed = { ':pending': PENDING, ':sending': SENDING, ':nowMs': nowMs };
  if (state === SENDING) {
    return {
      condition:
        '((#status IN (:sending, :pending) AND lease_until > :nowMs) OR ' +
        '(#status = :sending AND attribute_not_exists(lease_until)))',
      values: claimed,
    };
  }
  if (state === PENDING) {
    return {
      condition:
        '((#status = :pending AND NOT lease_until > :nowMs) OR (#status = :sending AND lease_until <= :nowMs))',
      values: claimed,
    };
  }
  return { condition: '#status = :state', values: { ':state': state } };
}

/** How much more each further Query page reads than the one before (a filter that matches few). */
const DELIVERY_READ_GROWTH = 8;
const DELIVERY_MAX_READ = 1000;
/** The deliveries one request reads at most (a few Query pages), rather than an endpoint's 30 days. */
export const DELIVERY_READ_BUDGET = LIMITS.deliveriesReadPerRequest;

/**
 * An endpoint's deliveries, newest event first, a page at a time, of one state when `state` is given (a
 * filter: further Query pages are read, each larger, until the page is full). Deliveries past their
 * event's 30 days (not yet deleted by the TTL) are left out. The types of events the items do not name
 * are read with one BatchGetItem of the event log per page.
 */
export async function listEndpointDeliveries(
  teamId: number,
  endpointId: number,
  state: DeliveryState | undefined,
  { limit, after }: Required<Pick<PageOptions<string>, 'limit'>> & PageOptions<string>,
): Promise<ListPage<DeliveryView, string>> {
  const { pk, skPrefix } = endpointDeliveries(teamId, endpointId);
  const nowMs = Date.now();
  const filter = state && stateFilter(state, nowMs);
  const conditions = ['(attribute_not_exists(#expires) OR #expires > :nowSeconds)'];
  if (filter) conditions.push(filter.condition);
  const values = {
    ':pk': pk,
    ':prefix': skPrefix,
    ':nowSeconds': Math.floor(nowMs / 1000),
    ...filter?.values,
  };
  const items: Record<string, unknown>[] = [];
  const pages = queryPages(
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      FilterExpression: conditions.join(' AND '),
      ExpressionAttributeNames: {
        '#expires': TABLE_SCHEMA.ttlAttribute,
        ...(state && { '#status': 'status' }),
      },
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
    },
    {
      ...(after !== undefined && { start: { pk, sk: `${skPrefix}${after}` } }),
      limit: limit + 1,
      nextLimit: (readLimit, read) =>
        Math.min(readLimit * DELIVERY_READ_GROWTH, DELIVERY_MAX_READ, DELIVERY_READ_BUDGET - read),
    },
  );
  let pastRead: Record<string, unknown> | undefined;
  for await (const page of pages) {
    items.push(...page.items);
    pastRead = page.next;
    if (items.length > limit) break;
  }
  const pageItems = items.slice(0, limit);
  const views = await withEventTypes(teamId, pageItems, nowMs);
  // More than a page matched: the next starts after its last item; the budget ran out: after the last read.
  const last = items.length > limit ? pageItems[pageItems.length - 1] : pastRead;
  if (last === undefined) return { items: views };
  return { items: views, next: (last.sk as string).slice(skPrefix.length) };
}

/**
 * The event's delivery to each of the endpoints named that has one (by endpoint id): one BatchGetItem per
 * 100 endpoints (a team has at most its quota, 20).
 */
export async function eventDeliveries(
  teamId: number,
  event: { id: string; type: EventType },
  endpointIds: readonly number[],
): Promise<EventDeliveryView[]> {
  const located = eventPosition(event.id);
  if (!located) return [];
  const nowMs = Date.now();
  const found: Record<string, unknown>[] = [];
  for (let start = 0; start < endpointIds.length; start += 100) {
    let keys: Record<string, unknown>[] = endpointIds
      .slice(start, start + 100)
      .map((endpointId) => deliveryKey(teamId, endpointId, located.position));
    for (let attempt = 0; keys.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
      const { Responses, UnprocessedKeys } = await dynamo().send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: keys } } }),
      );
      found.push(...(Responses?.[tableName()] ?? []));
      keys = UnprocessedKeys?.[tableName()]?.Keys ?? [];
    }
  }
  return found
    .map((item) => ({
      endpoint_id: item.endpoint_id as number,
      ...deliveryView(item, nowMs, (item.event_type as EventType | undefined) ?? event.type),
    }))
    .sort((a, b) => a.endpoint_id - b.endpoint_id);
}

/** The views of a page's items; the types their items do not name, from the event log (gone: left out). */
async function withEventTypes(
  teamId: number,
  items: readonly Record<string, unknown>[],
  nowMs: number,
): Promise<DeliveryView[]> {
  const untyped = items
    .filter((item) => typeof item.event_type !== 'string')
    .map((item) => item.event_id as string);
  const types = untyped.length > 0 ? await eventTypesOf(teamId, untyped) : new Map<string, string>();
  return items.flatMap((item) => {
    const type = (item.event_type ?? types.get(item.event_id as string)) as EventType | undefined;
    return type === undefined ? [] : [deliveryView(item, nowMs, type)];
  });
}

const isoOrNull = (ms: unknown): string | null =>
  typeof ms === 'number' && Number.isFinite(ms) ? isoMicros(new Date(ms)) : null;

/** A stored delivery as the API shows it at `nowMs` (the states as stateFilter reads them). */
function deliveryView(item: Record<string, unknown>, nowMs: number, eventType: EventType): DeliveryView {
  const stored = item.status as string;
  const lease = typeof item.lease_until === 'number' ? item.lease_until : undefined;
  const leased = lease !== undefined && lease > nowMs;
  // A `sending` whose lease ran out is due again from when it ran out (the sweep finds it then).
  const stale = stored === SENDING && lease !== undefined && !leased;
  const status: DeliveryState =
    (stored === SENDING && !stale) || (stored === PENDING && leased)
      ? SENDING
      : stored === SUCCEEDED || stored === FAILED
        ? stored
        : PENDING;
  const finished = status === SUCCEEDED || status === FAILED;
  const due = stale ? Math.max(lease, Number(item.next_try_at ?? 0)) : item.next_try_at;
  return {
    event_id: item.event_id as string,
    event_type: eventType,
    status,
    tries: (item.tries as number | undefined) ?? 0,
    next_try_at: status === PENDING ? isoOrNull(due) : null,
    last_attempt_at: isoOrNull(item.last_attempt_at),
    finished_at: finished ? isoOrNull(item.settled_at) : null,
  };
}
