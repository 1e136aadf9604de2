import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEventPipeline, startWebhookSweeper } from '../lib/local/local-api.ts';
import { createBrand, updateBrand } from '../shared/data/brand-writes.ts';
import { createTeam } from '../shared/data/teams.ts';
import { createWebhookEndpoint } from '../shared/data/webhook-endpoints.ts';
import { type WriteTally, writeUnits } from './write-units.ts';

/** Many teams' deliveries at once, locally: how fast, and what they write. */
export interface DeliveryScale {
  teams: number;
  endpointsPerTeam: number;
  changes: number;
  deliveries: number;
  seconds: number;
  deliveriesPerSecond: number;
  /** One delivery with nothing else going on: its writes, at the wire. */
  single: WriteTally;
  /** All of the load's deliveries: their writes together. */
  load: WriteTally;
  unitsPerDelivery: { single: number; load: number };
}

/**
 * The items of the teams' webhook delivery bookkeeping: deliveries, attempts, sender leases (not the API's
 * writes, nor another section's deliveries still retrying).
 */
const deliveryItemsOf =
  (teamIds: number[]) =>
  (key: { pk?: unknown; sk?: unknown }): boolean =>
    teamIds.some(
      (id) =>
        (typeof key.pk === 'string' && key.pk.startsWith(`ENDPOINT#${id}#`)) ||
        (key.pk === `WEBHOOKS#${id}` && key.sk === 'SENDERS'),
    );

/**
 * `teams` teams with `endpointsPerTeam` endpoints each, every endpoint at its own path of one receiver on
 * 127.0.0.1 that answers 204; each team updates its brand `changesPerTeam` times (teams in parallel, a
 * team's writes one after another), and every update goes to all of the team's endpoints through the path
 * `npm start` runs (the stream, the poller, the consumer's fan-out, the Lambda stand-in, the deliverer, the
 * sweeper every second).
 * Reports deliveries a second from the first write to the last delivery, and the write units of the
 * delivery bookkeeping (counted at the wire, ReturnConsumedCapacity), for one isolated delivery first.
 */
export async function measureDeliveryScale(
  config: { dynamodb_endpoint: string; table_name: string },
  {
    teams,
    endpointsPerTeam,
    changesPerTeam,
  }: { teams: number; endpointsPerTeam: number; changesPerTeam: number },
): Promise<DeliveryScale> {
  const pipeline = startEventPipeline(config);
  // As `npm start` runs it: what a run left due (a team at its bound, a duplicate invocation) is swept.
  const sweeper = startWebhookSweeper();
  let received = 0;
  let expected = Number.POSITIVE_INFINITY;
  let allArrived: () => void = () => undefined;
  const server = await receiver(() => {
    received++;
    if (received >= expected) allArrived();
  });
  try {
    // One delivery, alone: a team with one endpoint, one change.
    const lone = await createTeam('bench: one delivery');
    await createWebhookEndpoint(lone.id, { url: `${server.url}lone`, event_types: ['brand.created'] });
    const single = await writeUnits(
      async () => {
        const arrived = new Promise<void>((resolve) => {
          expected = received + 1;
          allArrived = resolve;
        });
        await createBrand(lone.id, { name: 'Alone' });
        await arrived;
        // The settle and the attempt are written after the receiver's answer: let them land.
        await new Promise((resolve) => setTimeout(resolve, 500));
      },
      deliveryItemsOf([lone.id]),
    );

    const made = await Promise.all(
      Array.from({ length: teams }, async (_, t) => {
        const team = await createTeam(`bench: deliveries ${t}`);
        for (let e = 0; e < endpointsPerTeam; e++) {
          await createWebhookEndpoint(team.id, {
            url: `${server.url}${t}/${e}`,
            event_types: ['brand.updated'],
          });
        }
        return { team, brand: await createBrand(team.id, { name: 'Scale' }) };
      }),
    );
    // The brands' own creations are nobody's subscription; let their stream records pass first.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const deliveries = teams * endpointsPerTeam * changesPerTeam;
    const started = performance.now();
    const load = await writeUnits(
      async () => {
        const arrived = new Promise<void>((resolve) => {
          expected = received + deliveries;
          allArrived = resolve;
        });
        await Promise.all(
          made.map(async ({ team, brand }) => {
            for (let i = 0; i < changesPerTeam; i++)
              await updateBrand(team.id, brand.id, { name: `Scale ${i}` });
          }),
        );
        await arrived;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      },
      deliveryItemsOf(made.map(({ team }) => team.id)),
    );
    const seconds = (performance.now() - started) / 1000 - 1;
    return {
      teams,
      endpointsPerTeam,
      changes: teams * changesPerTeam,
      deliveries,
      seconds,
      deliveriesPerSecond: deliveries / seconds,
      single: single.tally,
      load: load.tally,
      unitsPerDelivery: { single: single.tally.units, load: load.tally.units / deliveries },
    };
  } finally {
    await sweeper.stop();
    await pipeline.stop();
    await server.close();
  }
}

async function receiver(onRequest: () => void): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (request, response) => {
    for await (const _ of request);
    onRequest();
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
