import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ApiClient } from './api.ts';
import { restoreSettings, useSettings } from './settings.ts';
import { HANG_MS } from './timeouts.ts';

/**
 * An integrator's receiver on 127.0.0.1, for the webhook tests: it verifies every delivery with the
 * `standardwebhooks` package (never the API's own code) under each secret it is told of, records it, and
 * answers as the test says (204 unless told otherwise; `hold` keeps the request open until released).
 */
export interface ReceivedDelivery {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The secrets (of those given) under which the delivery verifies. */
  verifiedBy: string[];
}

/** `delayMs`: the answer comes that long after the request (the request stays open meanwhile). */
export type Answer =
  | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }
  | 'hold';

/** Requests open at once: now, and the most there ever were (shared by receivers that are given one). */
export interface ConcurrencyMeter {
  open: number;
  peak: number;
}

export const concurrencyMeter = (): ConcurrencyMeter => ({ open: 0, peak: 0 });

export interface Receiver {
  url: string;
  deliveries: ReceivedDelivery[];
  /** Requests open at once at this receiver (from arrival to answer). */
  concurrency: ConcurrencyMeter;
  /** Secrets to verify under (the endpoint's, once created). */
  secrets: string[];
  /** How to answer the n-th delivery (0-based) of this receiver. */
  answer: (delivery: ReceivedDelivery, index: number) => Answer;
  /** Answers every held request with 204 and holds no more. */
  release(): void;
  /** Resolves with the deliveries once there are `count`; fails after a deadline, naming what came. */
  received(count: number, deadlineMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

/** `shared`: a meter that also counts this receiver's open requests (several receivers of one team). */
export async function startReceiver(shared?: ConcurrencyMeter): Promise<Receiver> {
  const held: ServerResponse[] = [];
  const meters = (receiver: Receiver) => [receiver.concurrency, ...(shared ? [shared] : [])];
  const receiver: Receiver = {
    url: '',
    deliveries: [],
    concurrency: concurrencyMeter(),
    secrets: [],
    answer: () => ({ status: 204 }),
    release: () => {
      receiver.answer = () => ({ status: 204 });
      for (const response of held.splice(0)) response.writeHead(204).end();
    },
    received: async (count, deadlineMs = HANG_MS) => {
      const deadline = Date.now() + deadlineMs;
      while (receiver.deliveries.length < count) {
        if (Date.now() > deadline) {
          throw new Error(`${count} deliveries expected, ${receiver.deliveries.length} came`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return receiver.deliveries;
    },
    close: async () => {
      for (const response of held.splice(0)) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    for (const meter of meters(receiver)) {
      meter.open += 1;
      meter.peak = Math.max(meter.peak, meter.open);
    }
    response.on('close', () => {
      for (const meter of meters(receiver)) meter.open -= 1;
    });
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = {
      'webhook-id': String(request.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
    };
    const delivery: ReceivedDelivery = {
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      body,
      verifiedBy: receiver.secrets.filter((secret) => verifies(secret, body, headers)),
    };
    const index = receiver.deliveries.push(delivery) - 1;
    const answer = receiver.answer(delivery, index);
    if (answer === 'hold') {
      held.push(response);
      return;
    }
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    response.writeHead(answer.status, answer.headers).end(answer.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

function verifies(secret: string, body: string, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

/**
 * The receivers of a test file: webhooks may go to 127.0.0.1 while it runs (AUTOCONFIGURE_ALLOW_LOOPBACK),
 * and every receiver a test pushes onto the returned list is closed after that test.
 */
export function useReceivers(): Receiver[] {
  const receivers: Receiver[] = [];
  beforeAll(() => useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' }));
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close();
  });
  afterAll(() => restoreSettings());
  return receivers;
}

/**
 * An endpoint of the caller's team at `at`, subscribed to `types` (brand events unless told); the receiver
 * is given its secret, so that it verifies what it is sent.
 */
export async function subscribeEndpoint(
  client: ApiClient,
  at: Receiver,
  types = ['brand.created', 'brand.updated'],
): Promise<{ receiver: Receiver; id: number }> {
  const created = await client.post('/api/v1/webhook-endpoints', { url: at.url, event_types: types });
  if (created.status !== 201) throw new Error(`endpoint not created: ${created.status}`);
  at.secrets = [created.body.secret];
  return { receiver: at, id: created.body.id as number };
}

/** A new receiver, closed after the test (pushed onto the file's list from useReceivers). */
export async function receiverOf(receivers: Receiver[]): Promise<Receiver> {
  const at = await startReceiver();
  receivers.push(at);
  return at;
}

/** An endpoint at a new receiver of the file's (useReceivers), subscribed to `types`. */
export async function endpointAt(
  client: ApiClient,
  receivers: Receiver[],
  types: string[],
): Promise<{ receiver: Receiver; id: number }> {
  return subscribeEndpoint(client, await receiverOf(receivers), types);
}
