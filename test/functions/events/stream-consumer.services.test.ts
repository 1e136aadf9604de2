import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../../shared/domain/event-shape.ts';
import { type ApiClient, apiClient, newTeam, startApi } from '../../support/api.ts';
import { loggedEvents } from '../../support/events.ts';

/**
 * Change events end to end on the real local stack: API writes → DynamoDB Local's stream → the run's poller
 * (Lambda's event source mapping locally, test/support/global-setup.ts) → the consumer → the event log and
 * the EventBridge stand-in.
 */
let api: Awaited<ReturnType<typeof startApi>>;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

/** What the EventBridge stand-in of the run was given: the events the consumer put on the bus. */
async function onTheBus(): Promise<ChangeEvent[]> {
  const response = await fetch(`${process.env.EVENTBRIDGE_ENDPOINT}/entries`);
  const entries = (await response.json()) as Array<{ Source: string; DetailType: string; Detail: string }>;
  return entries.map((entry) => {
    const event = JSON.parse(entry.Detail) as ChangeEvent;
    expect([entry.Source, entry.DetailType]).toEqual(['team-messaging-api', event.type]);
    return event;
  });
}

/** The team's events, oldest first, once `count` are there (the stream is read asynchronously). */
const eventsOf = async (teamId: number, count: number) => (await loggedEvents(teamId, count)).reverse();

async function team(): Promise<{ id: number; client: ApiClient }> {
  const created = await newTeam();
  return { id: created.teamId, client: apiClient(api.url, created.token) };
}

describe('change events from the stream', () => {
  it('gives every event type once, in order, and none for a refused write or one that changed nothing', async () => {
    const { id, client } = await team();
    const brand = await client.post('/api/v1/brands', { name: 'Acme' });
    const renamed = await client.put(`/api/v1/brands/${brand.body.id}`, { name: 'Acme 2' });
    await client.put(`/api/v1/brands/${brand.body.id}`, { name: 'Acme 2' }); // changes nothing
    const field = await client.post('/api/v1/contact-fields', {
      name: 'Plan',
      tag: 'plan',
      type: 'text',
      contact_type: 'person',
    });
    const renamedField = await client.put(`/api/v1/contact-fields/${field.body.id}`, { name: 'Plan name' });
    await client.post('/api/v1/brands', {}); // refused: no event
    const fieldDeleted = await client.delete(`/api/v1/contact-fields/${field.body.id}`);
    const brandDeleted = await client.delete(`/api/v1/brands/${brand.body.id}`);
    const requestIds = [brand, renamed, field, renamedField, fieldDeleted, brandDeleted].map((answer) =>
      answer.headers.get('x-request-id'),
    );
    expect(requestIds.every(Boolean)).toBe(true);

    const events = await eventsOf(id, 6);
    expect(events.map((event) => [event.type, event.resource])).toEqual([
      ['brand.created', `brand:${brand.body.id}`],
      ['brand.updated', `brand:${brand.body.id}`],
      ['contact_field.created', `contact_field:${field.body.id}`],
      ['contact_field.updated', `contact_field:${field.body.id}`],
      ['contact_field.deleted', `contact_field:${field.body.id}`],
      ['brand.deleted', `brand:${brand.body.id}`],
    ]);
    expect(events[0]?.data.object).toEqual(brand.body);
    expect(events[1]?.data.object).toEqual(renamed.body);
    expect(events[1]?.data.previous_attributes).toMatchObject({ name: 'Acme' });
    expect(events.every((event) => event.team_id === id)).toBe(true);
    // Each names the API request that made it (its X-Request-Id), the delete's too.
    expect(events.map((event) => event.request_id)).toEqual(requestIds.map((requestId) => requestId ?? null));
    const ids = events.map((event) => event.id);
    const published = (await onTheBus()).filter((event) => ids.includes(event.id));
    expect(new Set(published.map((event) => event.id))).toEqual(new Set(ids));
  });

  it('gives exactly one brand.updated per successful write of 20 concurrent ones, in version order', async () => {
    const { id, client } = await team();
    const brand = await client.post('/api/v1/brands', { name: 'Race' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.put(`/api/v1/brands/${brand.body.id}`, { name: `Race ${i}` }),
      ),
    );
    const written = answers.filter((answer) => answer.status === 200).length;
    const events = await eventsOf(id, 1 + written);
    const updates = events.filter((event) => event.type === 'brand.updated');
    expect(updates).toHaveLength(written);
    const versions = updates.map((event) => event.resource_version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(written);
  });

  it('gives none for an idempotent replay', async () => {
    const { id, client } = await team();
    const key = { 'Idempotency-Key': 'replayed-create' };
    const first = await client.post('/api/v1/brands', { name: 'Once' }, key);
    const replay = await client.post('/api/v1/brands', { name: 'Once' }, key);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    // A later change marks the point by which the replay's event would have been written.
    await client.put(`/api/v1/brands/${first.body.id}`, { name: 'Once more' });
    const events = await eventsOf(id, 2);
    expect(events.map((event) => event.type)).toEqual(['brand.created', 'brand.updated']);
  });

  it('names both brands when the default moves', async () => {
    const { id, client } = await team();
    const first = await client.post('/api/v1/brands', { name: 'First', is_default: true });
    const second = await client.post('/api/v1/brands', { name: 'Second' });
    await client.put(`/api/v1/brands/${second.body.id}`, { is_default: true });
    const events = await eventsOf(id, 4);
    // Two items' records, in no order of each other: each brand's own.
    const moves = events
      .filter((event) => event.data.previous_attributes?.is_default !== undefined)
      .sort((a, b) => Number(a.resource.split(':')[1]) - Number(b.resource.split(':')[1]));
    expect(moves.map((event) => [event.resource, event.data.object.is_default])).toEqual([
      [`brand:${first.body.id}`, false],
      [`brand:${second.body.id}`, true],
    ]);
  });
});
