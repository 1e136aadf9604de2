import { expect } from 'vitest';
import type { Caller } from './api.ts';
import { HANG_MS } from './timeouts.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

/**
 * An endpoint's deliveries list with items in it, for the tests that walk every list of the route table
 * (test/shared/http/list-links.services.test.ts): an endpoint at a real receiver, four brands created through the API, so four
 * deliveries through the stream, the fan-out and the deliverer, all succeeded once their tries are settled.
 * The receiver goes into `receivers`, for the test to close.
 */
export async function endpointDeliveriesMade(caller: Caller, receivers: Receiver[]) {
  const at = await startReceiver();
  receivers.push(at);
  const endpoint = await caller.client.post('/api/v1/webhook-endpoints', {
    url: at.url,
    event_types: ['brand.created'],
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  const names = ['One', 'Two', 'Three', 'Four'];
  for (const name of names) expect((await caller.client.post('/api/v1/brands', { name })).status).toBe(201);
  await at.received(names.length);
  const path = `/api/v1/webhook-endpoints/${endpoint.body.id}/deliveries`;
  // A try's outcome is written after the receiver has it: wait for the four (a deadline for a hang only).
  const deadline = Date.now() + HANG_MS;
  for (;;) {
    const { body } = await caller.client.get(`${path}?status=succeeded`);
    if (body.length === names.length) break;
    if (Date.now() > deadline) throw new Error(`the ${names.length} deliveries never succeeded`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { path, count: names.length, filters: ['status=succeeded'] };
}
