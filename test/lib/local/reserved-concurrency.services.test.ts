import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONCURRENCY_DEFAULTS, type ConcurrencySettings } from '../../../lib/cdk/concurrency.ts';
import { createGateway } from '../../../lib/local/gateway.ts';
import { dynamo } from '../../../shared/data/dynamo.ts';
import { MESSAGES } from '../../../shared/http/messages.ts';
import { TIMEOUTS } from '../../../shared/limits.ts';
import { type FixtureServer, startFixtureServer } from '../../shared/autoconfigure/fixture-server.ts';
import { type ApiResult, apiClient, newTeam } from '../../support/api.ts';
import { useSettings } from '../../support/settings.ts';

/**
 * The local gateway keeps each function's reserved concurrency as Lambda does (lib/local/reserved-concurrency.ts):
 * a request whose function's share is full gets the deployed stack's 503 with Retry-After, and nothing runs. A
 * gateway with small shares (auto-configure 2, the authorizer 2); the slow work is a page that answers only when
 * the test lets it, and token checks held on the real DynamoDB client until the test lets them go: counted, never
 * timed.
 */
const SMALL: ConcurrencySettings = { ...CONCURRENCY_DEFAULTS, autoConfigure: 2, authorizer: 2 };

let gateway: { url: string; close: () => Promise<void> };
let site: FixtureServer;
/** Page requests the site holds open, each answered when the test ends it. */
const held: Array<{ url: string; answer: () => void }> = [];
const arrivals: Array<() => void> = [];

const PAGE = '<!doctype html><html><head><title>Held Page</title></head><body></body></html>';

function holdPage(request: IncomingMessage, response: ServerResponse): void {
  held.push({
    url: request.url ?? '',
    answer: () => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
  });
  for (const wake of arrivals.splice(0)) wake();
}

/** Resolves once the site holds `count` requests. */
async function holding(count: number): Promise<void> {
  while (held.length < count) await new Promise<void>((resolve) => arrivals.push(resolve));
}

beforeAll(async () => {
  const server = createGateway(undefined, undefined, SMALL);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  gateway = {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  site = await startFixtureServer({ '/held': holdPage });
});
afterAll(async () => {
  for (const request of held.splice(0)) request.answer();
  await site?.close();
  await gateway?.close();
});

const expectUnavailable = (response: ApiResult) => {
  expect(response.status).toBe(503);
  expect(response.body).toEqual({ message: MESSAGES.unavailable });
  expect(response.headers.get('retry-after')).toBe(String(TIMEOUTS.retryAfterSeconds));
  expect(response.headers.get('x-request-id')).toBeTruthy();
};

describe('the local gateway enforces reserved concurrency', () => {
  it('a third auto-configure call while 2 run (the share) gets the 503 at once, unrun; once they end, calls run again', async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    // Three teams, so that only the function's share is at stake here, not a team's own.
    const [a, b, c] = await Promise.all(['A', 'B', 'C'].map((name) => newTeam(`Share ${name}`)));
    const call = (team: { token: string } | undefined) =>
      apiClient(gateway.url, team?.token).post('/api/v1/brands/auto-configure', { url: site.url('/held') });
    const first = call(a);
    const second = call(b);
    await holding(2);
    // Both slots are taken: the third is refused without running (the site never sees it).
    expectUnavailable(await call(c));
    expect(held).toHaveLength(2);
    for (const request of held.splice(0)) request.answer();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    // Slots free again: the same call runs.
    const again = call(c);
    await holding(1);
    for (const request of held.splice(0)) request.answer();
    const answered = await again;
    expect(answered.status).toBe(200);
    expect(answered.body.suggestions.name).toBe('Held Page');
  });

  it("a token check while the authorizer's 2 checks run gets the 503; once they end, checks run again", async () => {
    const team = await newTeam('Authorizer share');
    const client = apiClient(gateway.url, team.token);
    const reads = holdReads('TOKEN#');
    try {
      const checks = [client.get('/api/v1/limits'), client.get('/api/v1/limits')];
      await reads.waiting(2);
      expectUnavailable(await client.get('/api/v1/limits'));
      expect(reads.held()).toBe(2);
      reads.stop();
      for (const response of await Promise.all(checks)) expect(response.status).toBe(200);
      expect((await client.get('/api/v1/limits')).status).toBe(200);
    } finally {
      reads.stop();
    }
  });

  it('a plain route (apiRoute 0) reserves nothing: more of its requests run at once than any share here', async () => {
    const team = await newTeam('Plain route');
    const client = apiClient(gateway.url, team.token);
    // The route's read of the team, held: its handlers stay running until the test lets them go.
    const reads = holdReads(`TEAM#${team.teamId}`);
    try {
      // One after another into the route, each past the authorizer (whose share is 2) before the next is sent.
      const requests: Array<Promise<ApiResult>> = [];
      for (let running = 1; running <= 4; running++) {
        requests.push(client.get('/api/v1/limits'));
        await reads.waiting(running);
      }
      reads.stop();
      const answers = await Promise.all(requests);
      expect(answers.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    } finally {
      reads.stop();
    }
  });
});

/**
 * Holds the real client's GetItem of partitions starting with `prefix` until `stop()`: a slow dependency made
 * by the test (the call still goes to DynamoDB Local once let go). `waiting(n)` resolves once n are held.
 */
function holdReads(prefix: string) {
  const name = `hold-${prefix}-${Math.random()}`;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let held = 0;
  const changed: Array<() => void> = [];
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      // The document client's key (plain) or the marshalled one ({S: ...}), whichever this step sees.
      const pk = (args.input as { Key?: { pk?: string | { S?: string } } }).Key?.pk;
      const partition = typeof pk === 'string' ? pk : pk?.S;
      if (/^Get(Item)?Command$/.test(context.commandName ?? '') && partition?.startsWith(prefix)) {
        held += 1;
        for (const wake of changed.splice(0)) wake();
        await stopped;
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return {
    held: () => held,
    waiting: async (count: number) => {
      while (held < count) await new Promise<void>((resolve) => changed.push(resolve));
    },
    stop: () => {
      stop();
      dynamo().middlewareStack.remove(name);
    },
  };
}
