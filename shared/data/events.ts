import { BatchGetCommand, BatchWriteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { type ChangeEvent, type EventType, eventPosition } from '../domain/event-shape.ts';

import type { ListPage, PageOptions } from '../domain/pagination.ts';
import { dynamo, tableName } from './dynamo.ts';
import { queryPages } from './items.ts';
import { EVENT_PREFIX, eventsPk } from './keys.ts';

/**
 * The event log: one item per event in its team's log partition (`EVENTS#<team>`, apart from the team's
 * other items: DynamoDB gives a partition 1,000 write units a second, and a team's changes and their events
 * would otherwise share them), `EVENT#<seconds>#<sequence>#<ordinal>`, so a Query
 * read backwards is newest first and the events of one item keep the stream's order. Kept 30 days (TTL);
 * DynamoDB deletes expired items within days, so reads also filter on the expiry. Writing an event again
 * (a redelivered stream record) rewrites the same item: the log never holds an event twice. Moving the
 * logs of older tables is the admin CLI's (lib/admin/migrations/events.ts).
 */
export const EVENT_RETENTION_SECONDS = 30 * 24 * 60 * 60;
/**
 * How much more each further Query page of a list reads than the one before, up to MAX_READ items (more
 * than DynamoDB's 1 MB of events holds: the page then ends at 1 MB).
 */
const READ_GROWTH = 8;
const MAX_READ = 2000;
/** BatchWriteItem's cap. */
const WRITE_BATCH = 25;

export interface EventFilters {
  types?: readonly EventType[];
  resource?: string;
}

/** The sort key of an event, and whether an id names one of this team's (the id names its team). */
const eventKey = (teamId: number, position: string) => ({
  pk: eventsPk(teamId),
  sk: `${EVENT_PREFIX}${position}`,
});

export async function putEvents(events: readonly ChangeEvent[]): Promise<void> {
  const requests = events.map((event) => {
    const located = eventPosition(event.id) as { teamId: number; position: string };
    const expiresAt = Math.floor(Date.parse(event.created_at) / 1000) + EVENT_RETENTION_SECONDS;
    return {
      PutRequest: {
        Item: { ...eventKey(located.teamId, located.position), ...event, expires_at: expiresAt },
      },
    };
  });
  for (let start = 0; start < requests.length; start += WRITE_BATCH) {
    let pending: typeof requests = requests.slice(start, start + WRITE_BATCH);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
      const { UnprocessedItems } = await dynamo().send(
        new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }),
      );
      pending = (UnprocessedItems?.[tableName()] ?? []) as typeof requests;
    }
  }
}

/** One event by id: the team's, another team's (`forbidden`), or none. One GetItem. */
export async function getEvent(
  teamId: number,
  id: string,
): Promise<{ event: ChangeEvent } | { forbidden: true } | undefined> {
  const located = eventPosition(id);
  if (!located) return undefined;
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: eventKey(located.teamId, located.position) }),
  );
  if (!Item || eventExpired(Item)) return undefined;
  return located.teamId === teamId ? { event: eventOf(Item) } : { forbidden: true };
}

/**
 * The team's events, newest first, after a position (a cursor's), filtered by type and resource. Reads
 * pages of the Query until `limit` events passed the filters: the first reads `limit + 1` items (all an
 * unfiltered page needs), each next one 8 times as many as the one before (up to DynamoDB's 1 MB), so a
 * filter that matches few events costs reads, not a round trip per few events.
 */
export async function listEvents(
  teamId: number,
  filters: EventFilters,
  { limit, after }: Required<Pick<PageOptions<string>, 'limit'>> & PageOptions<string>,
): Promise<ListPage<ChangeEvent, string>> {
  const events: ChangeEvent[] = [];
  const conditions = ['#expires > :now'];
  const values: Record<string, unknown> = {
    ':pk': eventsPk(teamId),
    ':prefix': EVENT_PREFIX,
    ':now': Math.floor(Date.now() / 1000),
  };
  if (filters.types?.length) {
    conditions.push(`#type IN (${filters.types.map((_, i) => `:type${i}`).join(', ')})`);
    filters.types.forEach((type, i) => {
      values[`:type${i}`] = type;
    });
  }
  if (filters.resource !== undefined) {
    conditions.push('#resource = :resource');
    values[':resource'] = filters.resource;
  }
  const names = {
    '#expires': 'expires_at',
    ...(filters.types?.length && { '#type': 'type' }),
    ...(filters.resource !== undefined && { '#resource': 'resource' }),
  };
  const pages = queryPages(
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      FilterExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
    },
    {
      ...(after !== undefined && { start: eventKey(teamId, after) }),
      limit: limit + 1,
      nextLimit: (readLimit) => Math.min(readLimit * READ_GROWTH, MAX_READ),
    },
  );
  for await (const page of pages) {
    for (const item of page.items) events.push(eventOf(item));
    if (events.length > limit) break;
  }
  if (events.length <= limit) return { items: events };
  const items = events.slice(0, limit);
  const last = items[items.length - 1] as ChangeEvent;
  return { items, next: (eventPosition(last.id) as { position: string }).position };
}

/** Whether an event item is past its expiry: DynamoDB deletes it only within days, so reads leave it out. */
export const eventExpired = (item: Record<string, unknown>): boolean =>
  typeof item.expires_at === 'number' && item.expires_at <= Date.now() / 1000;

function eventOf(item: Record<string, unknown>): ChangeEvent {
  const { pk, sk, expires_at, ...event } = item;
  return event as unknown as ChangeEvent;
}

/** BatchGetItem's cap. */
const READ_BATCH = 100;

/**
 * The types of some of the team's events, by id: one BatchGetItem per 100 events (what DynamoDB leaves
 * unprocessed is asked again). An event no longer in the log is not in the map.
 */
export async function eventTypesOf(
  teamId: number,
  eventIds: readonly string[],
): Promise<Map<string, string>> {
  const keys = [...new Set(eventIds)].flatMap((id) => {
    const located = eventPosition(id);
    return located && located.teamId === teamId ? [eventKey(teamId, located.position)] : [];
  });
  const types = new Map<string, string>();
  for (let start = 0; start < keys.length; start += READ_BATCH) {
    let pending: Record<string, unknown>[] = keys.slice(start, start + READ_BATCH);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
      const { Responses, UnprocessedKeys } = await dynamo().send(
        new BatchGetCommand({
          RequestItems: {
            [tableName()]: {
              Keys: pending,
              ProjectionExpression: '#id, #type, #expires',
              ExpressionAttributeNames: { '#id': 'id', '#type': 'type', '#expires': 'expires_at' },
            },
          },
        }),
      );
      for (const item of Responses?.[tableName()] ?? []) {
        if (!eventExpired(item)) types.set(item.id as string, item.type as string);
      }
      pending = UnprocessedKeys?.[tableName()]?.Keys ?? [];
    }
  }
  return types;
}
