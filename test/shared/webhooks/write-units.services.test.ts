import { describe, expect, it } from 'vitest';
import { writeUnits } from '../../../bench/write-units.ts';
import { WEBHOOK_LIMITS } from '../../../shared/limits.ts';
import { deliverToEndpoint } from '../../../shared/webhooks/deliverer.ts';
import { fanOut } from '../../../shared/webhooks/fan-out.ts';
import { type Caller, useApi } from '../../support/api.ts';
import { writeEvents } from '../../support/events.ts';
import { startReceiver, useReceivers } from '../../support/webhook-receiver.ts';

/**
 * At most 3 write units per successful first try, counted at the wire (DynamoDB Local answers
 * ReturnConsumedCapacity as DynamoDB does), and none in the stream consumer's fan-out. The events are
 * written to the log directly (no stream record: nothing else starts their deliveries), and the fan-out
 * and deliverer run here, on this process's client, so every write they make is counted.
 */
const api = useApi();
const receivers = useReceivers();

async function endpointOf(caller: Caller) {
  const at = await startReceiver();
  receivers.push(at);
  const created = await caller.client.post('/api/v1/webhook-endpoints', {
    url: at.url,
    event_types: ['brand.updated'],
  });
  expect(created.status).toBe(201);
  at.secrets = [created.body.secret];
  return { receiver: at, id: created.body.id as number };
}

/** `count` events of the team made after its endpoint was (their times are whole seconds). */
const newEvents = (teamId: number, count: number) =>
  writeEvents(teamId, count, { newest: new Date(Date.now() + count * 1000 + 2000) });

describe('webhook delivery write units (counted at the wire)', () => {
  it('a single delivery: the fan-out writes nothing, the first try three units (claim, attempt, settle), no index', async () => {
    const caller = await api.caller();
    const { receiver: at, id } = await endpointOf(caller);
    const events = await newEvents(caller.teamId, 1);
    const fannedOut = await writeUnits(() => fanOut(events));
    expect(fannedOut.tally).toEqual({ units: 0, indexUnits: 0, writes: 0, refused: 0 });
    expect(fannedOut.result).toEqual([
      { team_id: caller.teamId, endpoint_id: id, event_ids: [events[0]?.id], first: true },
    ]);
    const delivered = await writeUnits(() => deliverToEndpoint(fannedOut.result[0] as never));
    expect(delivered.result).toMatchObject([{ ok: true }]);
    expect(at.deliveries.map((delivery) => delivery.id)).toEqual([events[0]?.id]);
    expect(delivered.tally.units).toBeGreaterThan(0);
    expect(delivered.tally.units).toBeLessThanOrEqual(3);
    expect(delivered.tally).toMatchObject({ indexUnits: 0, refused: 0 });
  });

  it('a round of first tries to a healthy endpoint: at most 3 units each, whatever its answer body (cut to fit)', async () => {
    const caller = await api.caller();
    const { receiver: at } = await endpointOf(caller);
    // A large answer: its start is kept, as much as fits the attempt item's one unit.
    at.answer = () => ({ status: 200, body: 'é'.repeat(4000) });
    const count = WEBHOOK_LIMITS.triesInFlightPerEndpoint;
    const events = await newEvents(caller.teamId, count);
    const [request] = await fanOut(events);
    const { result, tally } = await writeUnits(() => deliverToEndpoint(request as never));
    expect(result).toHaveLength(count);
    expect(new Set(at.deliveries.map((delivery) => delivery.id))).toEqual(new Set(events.map((e) => e.id)));
    expect(tally.units).toBeLessThanOrEqual(3 * count);
    expect(tally).toMatchObject({ indexUnits: 0, refused: 0 });
    const attempts = await caller.client.get(`/api/v1/webhook-endpoints/${request?.endpoint_id}/attempts`);
    expect(attempts.body).toHaveLength(count);
    expect(attempts.body[0].response.length).toBeGreaterThan(0);
    expect(attempts.body[0].response).toMatch(/^é+$/);
  });

  it('a record handed over again costs no write but the refused claim, and sends nothing', async () => {
    const caller = await api.caller();
    const { receiver: at } = await endpointOf(caller);
    const events = await newEvents(caller.teamId, 1);
    const [request] = await fanOut(events);
    await deliverToEndpoint(request as never);
    const again = await writeUnits(async () => deliverToEndpoint((await fanOut(events))[0] as never));
    expect(again.result).toEqual([]);
    expect(again.tally).toEqual({ units: 0, indexUnits: 0, writes: 1, refused: 1 });
    expect(at.deliveries).toHaveLength(1);
  });
});
