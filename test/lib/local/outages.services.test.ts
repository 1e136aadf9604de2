import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3rver, freePort, startDynamoDbProcess } from '../../../lib/local/services.ts';
import { MESSAGES } from '../../../shared/http/messages.ts';
import { TIMEOUTS } from '../../../shared/limits.ts';
import { type Route, routes } from '../../../shared/routes.ts';
import { type ApiResult, apiClient } from '../../support/api.ts';
import { PNG, uploadFile } from '../../support/images.ts';
import { runScript, stopChild, waitForOutput } from '../../support/processes.ts';
import { HANG_MS } from '../../support/timeouts.ts';

/**
 * Outages of the real local stack: `bin/local.ts` in its own process, against a DynamoDB Local and an
 * s3rver that this file starts, pauses, kills and restarts on the same port and data. Only the processes
 * started here are signalled.
 */
let dir: string;
let dynamoPort: number;
let db: Awaited<ReturnType<typeof startDynamoDbProcess>>;
let s3Port: number;
let s3: S3rver | undefined;
let server: ReturnType<typeof runScript>;
let client: ReturnType<typeof apiClient>;

const startDynamoDb = () => startDynamoDbProcess(dynamoPort, join(dir, 'dynamodb'));

async function startS3(): Promise<void> {
  s3 = createS3rver({ address: '127.0.0.1', port: s3Port, silent: true, directory: join(dir, 's3') });
  await s3.run();
}

async function stopS3(): Promise<void> {
  await s3?.close();
  s3 = undefined;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tm-outages-'));
  [dynamoPort, s3Port] = [await freePort(), await freePort()];
  db = await startDynamoDb();
  await startS3();
  await startServer();
});

/** `npm start`'s program on the servers above; the demo team's token is kept in its data directory. */
async function startServer(): Promise<void> {
  server = runScript('bin/local.ts', [], {
    PORT: '0',
    DATA_DIR: join(dir, 'api'),
    DYNAMODB_ENDPOINT: db.endpoint,
    S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
    LOG_LEVEL: 'info',
    // Production's SDK timeouts (limits.ts), not the test run's: the slow dependency is what is tested here.
    SDK_CONNECT_TIMEOUT_MS: undefined,
    SDK_REQUEST_TIMEOUT_MS: undefined,
    LOCAL_GATEWAY_WAIT_MS: undefined,
  });
  const [, url = ''] = await waitForOutput(server, /listening on (http:\S+)/);
  const [, token = ''] = server.output().stdout.match(/API token: (tm_\w+)/) ?? [];
  client = apiClient(url, token);
}

afterAll(async () => {
  db.child.kill('SIGCONT');
  await stopChild(server.child, server.exited);
  await db.stop();
  await stopS3();
  await rm(dir, { recursive: true, force: true });
});

const BRANDS = '/api/v1/brands';

/**
 * A request as a client sends it once the dependency is back: a 503 is retried after its Retry-After, as it
 * asks (on two busy cores the first calls after a resume or a restart can still meet production's 1.5 s SDK
 * timeout), until another answer comes or a hang is reached. No restart of the API in between.
 */
async function onceRecovered(call: () => Promise<ApiResult>): Promise<ApiResult> {
  const deadline = Date.now() + HANG_MS;
  for (;;) {
    const response = await call();
    if (response.status !== 503 || Date.now() > deadline) return response;
    await new Promise((resolve) => setTimeout(resolve, TIMEOUTS.retryAfterSeconds * 1000));
  }
}

function expectUnavailable(response: ApiResult, what: string): void {
  expect(response.status, what).toBe(503);
  expect(response.headers.get('retry-after'), what).toBe(String(TIMEOUTS.retryAfterSeconds));
  expect(response.body, what).toEqual({ message: MESSAGES.unavailable });
}

/**
 * One request per route of the route table; ids point at a real brand, the reference page's asset at its
 * script, bodies are minimal.
 */
function everyRoute(brandId: number): Promise<Array<{ what: string; response: ApiResult; route: Route }>> {
  return Promise.all(
    routes.map(async (route) => {
      const path = route.path.replace('{id}', String(brandId)).replace('{asset}', 'redoc.standalone.js');
      const body = route.method === 'POST' || route.method === 'PUT' ? { name: 'x' } : undefined;
      const call =
        route.method === 'GET'
          ? client.get(path)
          : route.method === 'DELETE'
            ? client.delete(path)
            : route.method === 'POST'
              ? client.post(path, body)
              : client.put(path, body);
      return { what: `${route.method} ${route.path}`, response: await call, route };
    }),
  );
}

describe('outages of the real local stack', () => {
  it('DynamoDB hung (SIGSTOP): every route behind the token answers 503 with Retry-After within the bound, then recovers', async () => {
    const brand = await client.post(BRANDS, { name: 'Before the freeze' });
    expect(brand.status).toBe(201);

    db.child.kill('SIGSTOP');
    let answers: Awaited<ReturnType<typeof everyRoute>>;
    const started = Date.now();
    try {
      answers = await everyRoute(brand.body.id);
    } finally {
      db.child.kill('SIGCONT');
    }
    // A bound, not a speed target: API Gateway would have cut every request at 29 s.
    expect(Date.now() - started).toBeLessThan(TIMEOUTS.gatewayMs);
    for (const { what, response, route } of answers) {
      // A public route needs neither the authorizer nor the table: it keeps answering.
      if (route.public) expect(response.status, what).toBe(200);
      else expectUnavailable(response, what);
    }
    // Powertools writes WARN and above to stderr.
    expect(server.output().stderr).toMatch(
      /"level":"WARN","message":"dependency unavailable".*"error":"\w+"/,
    );

    const after = await onceRecovered(() => client.get(`${BRANDS}/${brand.body.id}`));
    expect(after.status).toBe(200);
    expect(after.body.name).toBe('Before the freeze');
  });

  it('DynamoDB killed: 503 with Retry-After; back on the same data, the API answers without a restart', async () => {
    const kept = await client.post(BRANDS, { name: 'Acknowledged before the kill' });
    expect(kept.status).toBe(201);
    // DynamoDB Local acknowledges a transaction a moment before it commits it; real DynamoDB does not.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    db.child.kill('SIGKILL');
    await db.exited;

    const key = { 'Idempotency-Key': `outage-${Date.now()}` };
    expectUnavailable(await client.get(BRANDS), 'GET /brands while down');
    expectUnavailable(await client.post(BRANDS, { name: 'Keyed' }, key), 'keyed create while down');

    db = await startDynamoDb();
    const list = await onceRecovered(() => client.get(BRANDS));
    expect(list.status).toBe(200);
    expect(list.body.map((b: { name: string }) => b.name)).toContain('Acknowledged before the kill');

    // The 503 was not stored under the key: the retry executes afresh, and only then is it replayed.
    const retried = await client.post(BRANDS, { name: 'Keyed' }, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replay')).toBeNull();
    const replayed = await client.post(BRANDS, { name: 'Keyed' }, key);
    expect(replayed.headers.get('idempotent-replay')).toBe('true');
    expect(replayed.body.id).toBe(retried.body.id);
  });

  it('the API process killed mid-request leaves the key free: the retry executes at once', async () => {
    const key = { 'Idempotency-Key': `crash-${Date.now()}` };
    db.child.kill('SIGSTOP');
    let inFlight: Promise<unknown> | undefined;
    try {
      inFlight = client.post(BRANDS, { name: 'Crashed' }, key).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 500));
      server.child.kill('SIGKILL');
      await server.exited;
    } finally {
      db.child.kill('SIGCONT');
    }
    expect(await inFlight).toBeInstanceOf(Error); // the connection died with the process
    await startServer();
    const retried = await client.post(BRANDS, { name: 'Crashed' }, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replay')).toBeNull();
    const replayed = await client.post(BRANDS, { name: 'Crashed' }, key);
    expect(replayed.headers.get('idempotent-replay')).toBe('true');
    const names = (await client.get(BRANDS)).body.map((b: { name: string }) => b.name);
    expect(names.filter((name: string) => name === 'Crashed')).toHaveLength(1);
  });

  it('s3rver stopped: brand writes with an image path answer 503 and write nothing; once back they succeed', async () => {
    await uploadFile(client, 'logos/outage.png', PNG, 'image/png');
    const brand = await client.post(BRANDS, { name: 'Without a logo yet' });

    await stopS3();
    try {
      const body = { name: 'Logo while S3 is down', logo_image_path: 'logos/outage.png' };
      expectUnavailable(await client.post(BRANDS, body), 'create with an image path');
      expectUnavailable(
        await client.put(`${BRANDS}/${brand.body.id}`, { logo_image_path: 'logos/outage.png' }),
        'update with an image path',
      );
      const names = (await client.get(BRANDS)).body.map((b: { name: string }) => b.name);
      expect(names).not.toContain('Logo while S3 is down');
      expect((await client.get(`${BRANDS}/${brand.body.id}`)).body.logo_image).toBeNull();
    } finally {
      await startS3();
    }
    const created = await client.post(BRANDS, {
      name: 'Logo once S3 is back',
      logo_image_path: 'logos/outage.png',
    });
    expect(created.status).toBe(201);
    expect(created.body.logo_image).toMatch(/\/outage\.png$/);
  });
});
