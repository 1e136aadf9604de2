import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEventPipeline } from '../lib/local/local-api.ts';
import { config as settings } from '../shared/config.ts';
import { createBrand, updateBrand } from '../shared/data/brand-writes.ts';
import { forgetDataKeys } from '../shared/data/secret-envelope.ts';
import { createTeam } from '../shared/data/teams.ts';
import { createWebhookEndpoint } from '../shared/data/webhook-endpoints.ts';
import { percentile } from './measure.ts';

/** From a write's answer to its delivery at a receiver, locally: p50/p99 over `n` writes. */
export interface DeliveryLatency {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Brand updates one after another, each timed from the write's answer until a receiver on 127.0.0.1 has
 * the delivery of its `brand.updated` (the version it wrote): the whole path `npm start` runs (DynamoDB
 * Local's stream, the poller, the consumer's fan-out, the Lambda stand-in, the deliverer, the guarded
 * client). Measured twice: with the one endpoint, then with a second endpoint of the same team whose
 * receiver answers 500 to everything, to show what a failing endpoint costs the others. Also the KMS calls
 * the deliveries made (the local KMS stand-in counts them): a warm deliverer opens each data key once.
 */
export async function measureDeliveryLatency(
  config: { dynamodb_endpoint: string; table_name: string },
  iterations: number,
): Promise<{
  alone: DeliveryLatency;
  beside500: DeliveryLatency;
  failedTries: number;
  kmsCalls: { deliveries: number; GenerateDataKey: number; Decrypt: number };
}> {
  const pipeline = startEventPipeline(config);
  const arrived = new Map<number, () => void>();
  const healthy = await receiver((body) => {
    const event = JSON.parse(body) as { resource_version: number };
    arrived.get(event.resource_version)?.();
    return 204;
  });
  let failedTries = 0;
  const failing = await receiver(() => {
    failedTries++;
    return 500;
  });
  try {
    const team = await createTeam('bench: webhooks');
    const types = ['brand.updated' as const];
    await createWebhookEndpoint(team.id, { url: healthy.url, event_types: types });
    const brand = await createBrand(team.id, { name: 'Deliveries' });
    // The deliverer runs in this process: as a deliverer in its own container, it has opened no data key.
    forgetDataKeys();
    const callsBefore = (await kmsCalls()).length;
    const timedUpdates = async (count: number, from: number) => {
      const samples: number[] = [];
      for (let i = from; i < from + count; i++) {
        const delivered = new Promise<void>((resolve) => arrived.set(i + 1, resolve));
        const { version } = await updateBrand(team.id, brand.id, { name: `Deliveries ${i}` });
        if (version !== i + 1) throw new Error(`version ${version}, not ${i + 1}`);
        const written = performance.now();
        await delivered;
        samples.push(performance.now() - written);
      }
      return latencyOf(samples);
    };
    // Not timed: the new poller first reads the stream the other measurements filled.
    await timedUpdates(1, 1);
    const alone = await timedUpdates(iterations, 2);
    await createWebhookEndpoint(team.id, { url: failing.url, event_types: types });
    const beside500 = await timedUpdates(iterations, 2 + iterations);
    const calls = (await kmsCalls()).slice(callsBefore);
    const count = (operation: string) => calls.filter((call) => call.operation === operation).length;
    return {
      alone,
      beside500,
      failedTries,
      kmsCalls: {
        deliveries: 1 + 2 * iterations + failedTries,
        GenerateDataKey: count('GenerateDataKey'),
        Decrypt: count('Decrypt'),
      },
    };
  } finally {
    await pipeline.stop();
    await healthy.close();
    await failing.close();
  }
}

/** What the local KMS stand-in has served (lib/local/kms.ts). */
async function kmsCalls(): Promise<Array<{ operation: string }>> {
  return (await (await fetch(`${settings.kmsEndpoint()}/calls`)).json()) as Array<{ operation: string }>;
}

function latencyOf(samples: number[]): DeliveryLatency {
  return {
    n: samples.length,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: Math.max(...samples),
  };
}

async function receiver(answer: (body: string) => number): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    response.writeHead(answer(body)).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
