import type { IncomingMessage } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { newSigningSecret } from '../../../shared/domain/webhook-signing.ts';
import type { HostResolver } from '../../../shared/outbound/guarded-fetch.ts';
import { type DeliveryOutcome, type SendOptions, sendWebhook } from '../../../shared/webhooks/send.ts';
import { checkWebhookUrl } from '../../../shared/webhooks/url-check.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';
import {
  answering,
  type FixtureServer,
  type Route,
  redirect,
  reset,
  silent,
  startFixtureServer,
  streamedHtml,
} from '../autoconfigure/fixture-server.ts';

/**
 * Deliveries to real receivers on 127.0.0.1 (the loopback test hook on, unless a test turns it off), each
 * delivery verified by the Standard Webhooks reference library, never by our own code.
 */

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const TEN_MB = 10 * 1024 * 1024;
const SECRET = newSigningSecret();
const BODY = '{"type":"brand.updated","data":{"id":7,"name":"Acmé"}}';

let receiver: FixtureServer;
let elsewhere: FixtureServer;
/** Every delivery a receiver read, in order (emptied after each test). */
let received: Received[] = [];
/** Told, when the huge answer's connection closes, whether the server was still writing it. */
let onHugeClosed: (cutOff: boolean) => void = () => undefined;

/** Reads and records the delivery, then answers it with `answer`. */
function receiving(answer: Route): Route {
  return (request, response, origin) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = new URL(request.url ?? '/', origin).pathname;
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(request, response, origin);
    });
  };
}

/** `/answer?status=…&retry-after=…`: that status, with that Retry-After when given. */
const scripted: Route = (request, response, origin) => {
  const query = new URL(request.url ?? '/', origin).searchParams;
  const retryAfter = query.get('retry-after');
  response
    .writeHead(Number(query.get('status')), retryAfter === null ? {} : { 'retry-after': retryAfter })
    .end(`answered ${query.get('status')}`);
};

beforeAll(async () => {
  elsewhere = await startFixtureServer({ '/hook': receiving(scripted) });
  const oneKbPlus = `${'a'.repeat(1023)}é and more`;
  receiver = await startFixtureServer({
    '/answer': receiving(scripted),
    '/moved': receiving(redirect(301, `${elsewhere.url('/hook')}?status=200`)),
    '/found': receiving(redirect(302, `${elsewhere.url('/hook')}?status=200`)),
    '/slow': receiving(silent()),
    '/huge': receiving((request, response, origin) => {
      response.once('close', () => onHugeClosed(!response.writableFinished));
      streamedHtml(TEN_MB)(request, response, origin);
    }),
    '/cut-character': receiving((_request, response) => response.end(oneKbPlus)),
    '/reset': receiving(reset()),
  });
});

afterAll(async () => {
  await Promise.all([receiver.close(), elsewhere.close()]);
});

afterEach(() => {
  received = [];
  restoreSettings();
});

function send(url: string, options: SendOptions = {}, secrets = [SECRET]): Promise<DeliveryOutcome> {
  return sendWebhook({ url, secrets }, { id: 'msg_7_1', body: BODY }, { allowLoopback: true, ...options });
}

/** Whether the Standard Webhooks library accepts the delivery (body, id, timestamp, signature) under `secret`. */
function verifies(delivery: Received, secret: string, body = delivery.body): boolean {
  try {
    new Webhook(secret).verify(body, delivery.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

function onlyDelivery(): Received {
  expect(received).toHaveLength(1);
  return received[0] as Received;
}

describe('sendWebhook: signed deliveries', () => {
  it('sends the body as JSON, signed so that the standardwebhooks package verifies it', async () => {
    const outcome = await send(receiver.url('/answer?status=204'));

    expect(outcome).toMatchObject({ ok: true, status: 204, response: '' });
    expect(outcome.error).toBeUndefined();
    const delivery = onlyDelivery();
    expect(delivery.body).toBe(BODY);
    expect(delivery.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'TeamMessagingWebhooks/1.0',
      'webhook-id': 'msg_7_1',
    });
    expect(verifies(delivery, SECRET)).toBe(true);
  });

  it('signs under each secret in force (rotation): either verifies alone, another does not', async () => {
    const [rotated, old] = [newSigningSecret(), newSigningSecret()];
    await send(receiver.url('/answer?status=200'), {}, [rotated, old]);

    const delivery = onlyDelivery();
    expect(verifies(delivery, rotated)).toBe(true);
    expect(verifies(delivery, old)).toBe(true);
    expect(verifies(delivery, newSigningSecret())).toBe(false);
  });

  it('does not verify with a tampered body', async () => {
    await send(receiver.url('/answer?status=200'));

    const delivery = onlyDelivery();
    expect(verifies(delivery, SECRET, delivery.body.replace('Acmé', 'Evil'))).toBe(false);
  });

  it('measures durationMs with the given clock, but always signs the real time', async () => {
    const clock = [1_000, 1_250];
    const outcome = await send(receiver.url('/answer?status=200'), { now: () => clock.shift() ?? 0 });

    expect(outcome.durationMs).toBe(250);
    // The verifier refuses a timestamp more than 5 minutes from its own clock.
    expect(verifies(onlyDelivery(), SECRET)).toBe(true);
  });
});

describe('sendWebhook: answers', () => {
  it.each([200, 201, 202, 204, 299])('%i is a success', async (status) => {
    const outcome = await send(receiver.url(`/answer?status=${status}`));
    expect(outcome).toMatchObject({ ok: true, status });
    expect(outcome.error).toBeUndefined();
  });

  it.each([400, 404, 410, 500, 502])('%i is a failure with its status and what it said', async (status) => {
    const outcome = await send(receiver.url(`/answer?status=${status}`));
    expect(outcome).toEqual({
      ok: false,
      status,
      error: { code: 'http_error', message: `endpoint responded with HTTP ${status}` },
      durationMs: expect.any(Number),
      response: `answered ${status}`,
    });
  });

  it('reads Retry-After of a 429 in delta-seconds', async () => {
    const outcome = await send(receiver.url('/answer?status=429&retry-after=120'));
    expect(outcome).toMatchObject({ ok: false, status: 429, retryAfterMs: 120_000 });
  });

  it('reads Retry-After of a 503 as an HTTP date', async () => {
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    const outcome = await send(receiver.url(`/answer?status=503&retry-after=${inTwoMinutes}`));
    expect(outcome).toMatchObject({ ok: false, status: 503 });
    // The date has whole seconds and is read a moment after it was written: a little under two minutes.
    expect(outcome.retryAfterMs).toBeGreaterThan(60_000);
    expect(outcome.retryAfterMs).toBeLessThanOrEqual(120_000);
  });

  it('reads an HTTP date already past as no wait', async () => {
    const outcome = await send(receiver.url('/answer?status=503&retry-after=Sun, 06 Nov 1994 08:49:37 GMT'));
    expect(outcome.retryAfterMs).toBe(0);
  });

  it.each(['soon', '-5', '1.5', '0x10', 'Tomorrow', '2030-01-01', ''])(
    'ignores an invalid Retry-After (%j)',
    async (value) => {
      const outcome = await send(receiver.url(`/answer?status=429&retry-after=${encodeURIComponent(value)}`));
      expect(outcome).toMatchObject({ ok: false, status: 429 });
      expect(outcome.retryAfterMs).toBeUndefined();
    },
  );

  it('ignores Retry-After on other statuses', async () => {
    const outcome = await send(receiver.url('/answer?status=500&retry-after=120'));
    expect(outcome.retryAfterMs).toBeUndefined();
  });

  it.each([
    [301, '/moved'],
    [302, '/found'],
  ])('does not follow a %i: a failure, and the other URL receives nothing', async (status, path) => {
    const outcome = await send(receiver.url(path));

    expect(outcome).toMatchObject({
      ok: false,
      status,
      error: {
        code: 'http_error',
        message: `endpoint responded with HTTP ${status} (redirects are not followed)`,
      },
    });
    expect(received.map((delivery) => delivery.path)).toEqual([path]);
    expect(elsewhere.connections()).toBe(0);
  });

  it('gives up on an answer slower than the timeout', async () => {
    const outcome = await send(receiver.url('/slow'), { timeoutMs: 300 });

    expect(outcome).toEqual({
      ok: false,
      error: { code: 'timeout', message: 'timed out' },
      durationMs: expect.any(Number),
      response: '',
    });
    // It was delivered (the receiver reads it in this same process), but a receiver must answer in time.
    await vi.waitFor(() => expect(received).toHaveLength(1), { timeout: 10_000 });
    expect(verifies(onlyDelivery(), SECRET)).toBe(true);
  });

  it('reads only the first 1 KB of a huge answer and drops the connection', async () => {
    const cutOff = new Promise<boolean>((resolve) => (onHugeClosed = resolve));
    const outcome = await send(receiver.url('/huge'));

    expect(outcome.ok).toBe(true);
    const start = `<!doctype html><html><head><title>Huge</title></head><body>${'<p>filler text</p>\n'.repeat(60)}`;
    expect(outcome.response).toBe(start.slice(0, 1024));
    expect(await cutOff).toBe(true);
  });

  it('drops a multi-byte character the 1 KB cut in two, rather than mangle it', async () => {
    const outcome = await send(receiver.url('/cut-character'));
    expect(outcome.response).toBe('a'.repeat(1023));
  });

  it('reports a refused connection as unreachable', async () => {
    const closed = await startFixtureServer({});
    await closed.close();

    const outcome = await send(closed.url('/hook'));
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'unreachable', message: 'could not connect to 127.0.0.1' },
    });
    expect(outcome.status).toBeUndefined();
  });

  it('reports a connection dropped without an answer as unreachable', async () => {
    const outcome = await send(receiver.url('/reset'));
    expect(outcome).toMatchObject({ ok: false, error: { code: 'unreachable' } });
  });
});

describe('sendWebhook: SSRF', () => {
  const port = () => new URL(receiver.origin).port;

  async function expectRefused(url: string, options: SendOptions, code: string, message: RegExp) {
    const before = receiver.connections();
    const outcome = await send(url, options);
    expect(outcome).toMatchObject({ ok: false, error: { code, message: expect.stringMatching(message) } });
    expect(outcome.status).toBeUndefined();
    expect(receiver.connections()).toBe(before);
    expect(received).toEqual([]);
  }

  it.each([
    ['the receiver by its address', () => `http://127.0.0.1:${port()}/answer?status=200`],
    ['localhost', () => `http://localhost:${port()}/answer?status=200`],
    ['IPv6 loopback', () => `http://[::1]:${port()}/answer?status=200`],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port()}/answer?status=200`],
    ['decimal loopback', () => `http://2130706433:${port()}/answer?status=200`],
  ])('refuses %s without the loopback switch', async (_case, url) => {
    await expectRefused(url(), { allowLoopback: false }, 'private_address', /resolves to a private address/);
  });

  it.each([
    ['0.0.0.0 (which reaches this machine)', () => `http://0.0.0.0:${port()}/answer?status=200`],
    ['a private address', () => 'http://10.0.0.1/hook'],
    ['the metadata service', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('refuses %s even with the loopback switch', async (_case, url) => {
    await expectRefused(url(), {}, 'private_address', /resolves to a private address/);
  });

  it.each([
    ['a private address', ['10.0.0.1']],
    ['public and private addresses', ['93.184.216.34', '10.0.0.1']],
    ['loopback and private addresses', ['127.0.0.1', '10.0.0.1']],
  ])('refuses a name resolving to %s', async (_case, addresses) => {
    await expectRefused(
      `http://hooks.example:${port()}/answer?status=200`,
      { resolveHost: answering(...addresses) },
      'private_address',
      /^hooks\.example resolves to a private address/,
    );
  });

  it('refuses a name resolving to loopback without the loopback switch', async () => {
    await expectRefused(
      'http://hooks.example/hook',
      { allowLoopback: false, resolveHost: answering('127.0.0.1') },
      'private_address',
      /^hooks\.example resolves to a private address/,
    );
  });

  it('checks DNS again when sending: a name public when saved and private when sent is refused', async () => {
    const resolveHost = vi
      .fn<HostResolver>()
      .mockImplementationOnce(answering('93.184.216.34'))
      .mockImplementationOnce(answering('10.0.0.1'));

    expect(await checkWebhookUrl('http://hooks.example/hook', { resolveHost })).toBe(
      'http://hooks.example/hook',
    );
    await expectRefused(
      'http://hooks.example/hook',
      { resolveHost },
      'private_address',
      /^hooks\.example resolves to a private address/,
    );
    expect(resolveHost).toHaveBeenCalledTimes(2);
  });

  it('reports a name that does not resolve', async () => {
    await expectRefused(
      'https://hooks.invalid/',
      { resolveHost: answering() },
      'unresolvable',
      /^could not resolve host hooks\.invalid$/,
    );
  });

  it('sends over https only inside Lambda', async () => {
    useSettings({ AWS_LAMBDA_FUNCTION_NAME: 'webhooks-deliverer' });
    await expectRefused(receiver.url('/answer?status=200'), {}, 'invalid_url', /^URL must use https$/);
  });
});
