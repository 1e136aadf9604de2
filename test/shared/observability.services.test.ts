import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnsweredRequest, createGateway } from '../../lib/local/gateway.ts';
import { type ApiResult, apiClient } from '../support/api.ts';
import { runScript, stopChild, waitForOutput } from '../support/processes.ts';

/**
 * What a request leaves behind for operators: `npm start`'s program in its own process, its stdout not a
 * terminal, so the handlers write what they write in Lambda (JSON log lines and embedded-metric lines).
 */
let dir: string;
let server: ReturnType<typeof runScript>;
let url: string;
let token: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tm-observability-'));
  // The test runner's own settings silence logs and metrics; this server runs with the defaults.
  server = runScript('bin/local.ts', [], { PORT: '0', DATA_DIR: dir, LOG_LEVEL: '', METRICS: '' });
  [, url = ''] = await waitForOutput(server, /listening on (http:\S+)/);
  [, token = ''] = server.output().stdout.match(/API token: (tm_\w+)/) ?? [];
});

afterAll(async () => {
  await stopChild(server.child, server.exited);
  await rm(dir, { recursive: true, force: true });
});

type Line = Record<string, unknown>;
/** The JSON lines the server has written (the start banner is text). */
const jsonLines = (): Line[] =>
  server
    .output()
    .stdout.split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);

const requestId = (response: ApiResult) => response.headers.get('x-request-id') ?? '';

/** The log line of one request, waited for: it is written as the response leaves. */
async function logLineOf(response: ApiResult): Promise<Line> {
  for (let i = 0; i < 50; i++) {
    const line = jsonLines().find((l) => l.message === 'request' && l.request_id === requestId(response));
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no log line for request ${requestId(response)}`);
}

/** The embedded-metric-format lines: metric name → dimensions and value, one entry per line and metric. */
function metricsWritten(): Array<{ name: string; value: unknown; namespace: string; dimensions: Line }> {
  return jsonLines()
    .filter((line) => typeof line._aws === 'object')
    .flatMap((line) => {
      const aws = line._aws as { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][] }> };
      const [directive] = aws.CloudWatchMetrics;
      const dimensions = Object.fromEntries(
        (directive?.Dimensions[0] ?? []).map((name) => [name, line[name]]),
      );
      return Object.keys(line)
        .filter((key) => key !== '_aws' && !(key in dimensions))
        .map((name) => ({ name, value: line[name], namespace: directive?.Namespace ?? '', dimensions }));
    });
}

describe('a request, seen by an operator', () => {
  it('writes one log line with its ids, team, route, status and latency, and metrics per route', async () => {
    const client = apiClient(url, token);
    const key = { 'Idempotency-Key': 'observability-1' };
    const created = await client.post('/api/v1/brands', { name: 'Observed' }, key);
    const replayed = await client.post('/api/v1/brands', { name: 'Observed' }, key);
    const conflict = await client.post('/api/v1/brands', { name: 'Other body' }, key);
    const invalid = await client.post('/api/v1/brands', { name: '' });
    const missing = await client.get('/api/v1/brands/987654321');
    const refused = await client.post('/api/v1/brands/auto-configure', { url: 'http://10.0.0.1/' });
    expect([created, replayed, conflict, invalid, missing, refused].map((r) => r.status)).toEqual([
      201, 201, 409, 422, 404, 422,
    ]);
    expect(replayed.headers.get('idempotent-replay')).toBe('true');

    const line = await logLineOf(created);
    expect(line).toMatchObject({
      level: 'INFO',
      service: 'team-messaging-api',
      request_id: requestId(created),
      method: 'POST',
      route: '/api/v1/brands',
      path: '/api/v1/brands',
      status: 201,
      team_id: expect.any(Number),
      cold_start: expect.any(Boolean),
      idempotent_replay: false,
    });
    expect(line.function_request_id).toEqual(expect.any(String));
    expect(line.latency_ms).toEqual(expect.any(Number));
    expect((await logLineOf(replayed)).idempotent_replay).toBe(true);
    expect(await logLineOf(missing)).toMatchObject({ route: '/api/v1/brands/{id}', status: 404 });
    // Every request of this process after the first is warm.
    expect((await logLineOf(missing)).cold_start).toBe(false);

    const metrics = metricsWritten();
    const sum = (name: string, dimensions: Line) =>
      metrics
        .filter((m) => m.name === name && Object.entries(dimensions).every(([k, v]) => m.dimensions[k] === v))
        .reduce((total, m) => total + Number(m.value), 0);
    const brandsCreate = { service: 'team-messaging-api', route: 'POST /api/v1/brands' };
    expect(metrics.every((m) => m.namespace === 'TeamMessagingApi')).toBe(true);
    expect(sum('Requests', brandsCreate)).toBe(4);
    expect(sum('ClientErrors', brandsCreate)).toBe(2);
    expect(sum('ServerErrors', brandsCreate)).toBe(0);
    expect(sum('IdempotentReplays', brandsCreate)).toBe(1);
    expect(sum('IdempotencyKeyConflicts', brandsCreate)).toBe(1);
    expect(metrics.some((m) => m.name === 'Latency' && m.dimensions.route === 'POST /api/v1/brands')).toBe(
      true,
    );
    expect(sum('ClientErrors', { route: 'GET /api/v1/brands/{id}' })).toBe(1);
    expect(sum('AutoConfigureRefused', { reason: 'private_address' })).toBe(1);
    expect(sum('AuthorizerAllowed', { service: 'team-messaging-api' })).toBeGreaterThanOrEqual(6);
  });

  it('writes no secret: no token, Authorization header or presigned URL in any log or metric line', async () => {
    const client = apiClient(url, token);
    const upload = await client.post('/api/v1/files', {
      path: 'logos/secret.png',
      content_type: 'image/png',
      size: 1,
    });
    expect(upload.status).toBe(200);
    // A well-formed token nobody made reaches the authorizer, which denies it; a malformed one is refused
    // before it (the validation expression), so only the first is counted as denied.
    const invented = `tm_${'N'.repeat(43)}`;
    for (const refused of [invented, 'tm_notARealToken123'])
      expect((await apiClient(url, refused).get('/api/v1/brands')).status).toBe(401);
    await logLineOf(upload);

    const written = server
      .output()
      .stdout.split('\n')
      .filter((line) => line.startsWith('{'))
      .join('\n');
    const presigned = JSON.stringify(upload.body).match(/https?:[^"]+/)?.[0] ?? 'missing';
    for (const secret of [token, invented, 'tm_notARealToken123', 'Bearer', 'X-Amz-Signature', presigned]) {
      expect(written.includes(secret), secret).toBe(false);
    }
    expect(server.output().stderr).not.toContain(token);
    const counted = metricsWritten().filter((m) => m.name === 'AuthorizerDenied');
    expect(counted.reduce((total, m) => total + Number(m.value), 0)).toBe(1);
  });
});

describe('the local gateway on a terminal', () => {
  it('reports each answered request as method, path, status, milliseconds and request id', async () => {
    const answered: AnsweredRequest[] = [];
    const gateway = createGateway((request) => answered.push(request));
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
      const response = await apiClient(base).get('/api/v1/brands?tag=x');
      expect(response.status).toBe(401);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(answered).toEqual([
        {
          method: 'GET',
          path: '/api/v1/brands?tag=x',
          status: 401,
          ms: expect.any(Number),
          requestId: requestId(response),
        },
      ]);
    } finally {
      await new Promise((resolve) => gateway.close(resolve));
    }
  });
});
