import type { AddressInfo } from 'node:net';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as authorize } from '../../functions/authorizer.ts';
import { createGateway } from '../../lib/local/gateway.ts';
import { tokenEvent } from '../../lib/local/lambda-events.ts';
import { RateLimiter } from '../../lib/local/rate-limiter.ts';
import { dynamo, tableName } from '../../shared/data/dynamo.ts';
import { tokenKey } from '../../shared/data/keys.ts';
import { changeTeamPlan, createToken, hashToken, setRateLimitPlan } from '../../shared/data/tokens.ts';
import { MESSAGES } from '../../shared/http/messages.ts';
import { RATE_LIMIT_DEFAULTS, type RateLimits } from '../../shared/rate-limits.ts';
import { type ApiResult, apiClient, newTeam, TEST_CONCURRENCY } from '../support/api.ts';
import { roundTrips } from '../support/round-trips.ts';

/**
 * Per-team rate limits as the stage's web ACL counts them: per token, under the plan the token names in
 * its first characters, requests in the last window against the plan's limit. The local gateway counts the same way.
 */
const LIMITS: RateLimits = {
  plans: {
    tiny: { limit: 10, windowSeconds: 60 },
    roomy: { limit: 100_000, windowSeconds: 60 },
    wide: { limit: 40, windowSeconds: 120 },
  },
  defaultPlan: 'tiny',
};
const TYPES = '/api/v1/contact-fields/types';

let url = '';
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  // Hundreds of token checks at once: the authorizer's reserved share is not what these tests are about.
  const server = createGateway(undefined, LIMITS, TEST_CONCURRENCY);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(() => close());

const statuses = (results: ApiResult[]) => results.map((r) => r.status);
const count = (results: ApiResult[], status: number) => results.filter((r) => r.status === status).length;

describe('the authorizer tells the plan a token is counted under', () => {
  it('answers the team and the plan its token names from the one read of the token item, no API key', async () => {
    const planned = await newTeam();
    const unplanned = await newTeam();
    await setRateLimitPlan(planned.teamId, 'roomy');
    // A token names its team's plan when it is made: `team plan` reissues the team's tokens.
    const plannedToken = await createToken(planned.teamId);
    expect(plannedToken).toMatch(new RegExp(`^tm_roomy_${planned.teamId}_`));
    const answer = (token: string) =>
      authorize(tokenEvent(`Bearer ${token}`, 'arn:aws:execute-api:r:a:api/s/GET/x'));
    // The first answer of the day also records the day on the token; the next ones read alone.
    await answer(plannedToken);
    const send = vi.spyOn(dynamo(), 'send');
    const withPlan = await answer(plannedToken);
    expect(send).toHaveBeenCalledTimes(1);
    send.mockRestore();
    const context = { scopes: '*', expiresAt: 0 };
    expect(withPlan.context).toEqual({ teamId: planned.teamId, rateLimitPlan: 'roomy', ...context });
    // Made before a plan was recorded: the default plan's name (cdk.json's here), which WAF counts it under.
    expect((await answer(unplanned.token)).context).toEqual({
      teamId: unplanned.teamId,
      rateLimitPlan: 'standard',
      ...context,
    });
    expect(withPlan.usageIdentifierKey).toBeUndefined();
  });

  it('holds a token made before tokens named their team to the default plan, whatever its team’s', async () => {
    const { teamId } = await newTeam();
    await setRateLimitPlan(teamId, 'roomy');
    const legacy = `tm_Legacy${teamId}${'x'.repeat(40)}`;
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...tokenKey(hashToken(legacy)), team_id: teamId, rate_limit_plan: 'roomy' },
      }),
    );
    const answer = await authorize(tokenEvent(`Bearer ${legacy}`, 'arn:aws:execute-api:r:a:api/s/GET/x'));
    expect(answer.context).toEqual({ teamId, rateLimitPlan: '', scopes: '*', expiresAt: 0 });
    // A token cannot claim another team: its team part is hashed with the rest.
    const claimed = await authorize(
      tokenEvent(`Bearer tm_${teamId}_${'x'.repeat(43)}`, 'arn:aws:execute-api:r:a:api/s/GET/x'),
    ).catch((error: Error) => error.message);
    expect(claimed).toBe('Unauthorized');
  });
});

describe('GET /api/v1/limits', () => {
  it('answers the token’s plan and its limits with the quotas, in the one read of the team item', async () => {
    const { teamId, token } = await newTeam();
    const client = apiClient(url, token);
    // The deployment's plans (configuration: cdk.json's defaults here), not the gateway's test plans.
    const { standard, bulk } = RATE_LIMIT_DEFAULTS.plans;
    expect((await client.get('/api/v1/limits')).body.rate_limit).toEqual({
      plan: 'standard',
      limit: standard?.limit,
      window_seconds: standard?.windowSeconds,
    });
    await setRateLimitPlan(teamId, 'bulk');
    // The plan the token names: the old token is still counted in the default plan, a new one in bulk.
    expect((await client.get('/api/v1/limits')).body.rate_limit.plan).toBe('standard');
    const bulkClient = apiClient(url, await createToken(teamId));
    const limits = await roundTrips(() => bulkClient.get('/api/v1/limits'));
    expect(limits.calls).toEqual(['GetItemCommand']);
    expect(limits.result.body).toMatchObject({
      quotas: { brands: { used: 0 } },
      rate_limit: { plan: 'bulk', limit: bulk?.limit, window_seconds: bulk?.windowSeconds },
    });
  });
});

describe('the local gateway counts each token as the web ACL does', () => {
  it('refuses one team’s flood with 429 while two other teams, flooding less, are all served', async () => {
    const runaway = await newTeam();
    const neighbours = [await newTeam(), await newTeam()];
    const flood = (token: string, requests: number) =>
      Promise.all(Array.from({ length: requests }, () => apiClient(url, token).get(TYPES)));
    // All at once, in the default plan: the runaway's 30 against a limit of 10, each neighbour's 8 under it.
    const [runawayResults, ...neighbourResults] = await Promise.all([
      flood(runaway.token, 30),
      ...neighbours.map((team) => flood(team.token, 8)),
    ]);
    for (const results of neighbourResults) expect(statuses(results).every((s) => s === 200)).toBe(true);
    expect(count(runawayResults, 200)).toBe(10);
    expect(count(runawayResults, 429)).toBe(20);
    for (const response of runawayResults.filter((r) => r.status === 429)) {
      expect(response.body).toEqual({ message: MESSAGES.tooManyRequests });
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(response.headers.get('ratelimit-policy')).toBe('"tiny";q=10;w=60');
      expect(response.headers.get('ratelimit')).toMatch(/^"tiny";r=0;t=\d+$/);
    }
    // The neighbours are still served afterwards.
    expect((await apiClient(url, neighbours[0]?.token).get(TYPES)).status).toBe(200);
  });

  it('tells every answer its policy and what is left of it', async () => {
    const { token } = await newTeam();
    const client = apiClient(url, token);
    const first = await client.get(TYPES);
    expect(first.headers.get('ratelimit-policy')).toBe('"tiny";q=10;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"tiny";r=9;t=(59|60)$/);
    const second = await client.get('/api/v1/brands');
    expect(second.headers.get('ratelimit')).toMatch(/^"tiny";r=8;t=\d+$/);
    // A public route with no token is nobody's: not counted, no policy.
    const docs = await fetch(`${url}/api/v1/openapi.json`);
    expect(docs.headers.get('ratelimit-policy')).toBeNull();
  });

  it('counts a token under the plan its first characters name, before the authorizer runs, as WAF does', async () => {
    // Tokens no team holds: the authorizer refuses them (401), but WAF has counted them first, each under
    // the plan its prefix names (shared/rate-limits.ts planOfAuthorization, the web ACL's own rule).
    const unknown = (prefix: string) => `Bearer ${prefix}${String(Date.now()).slice(-9)}_${'Zz9'.repeat(14)}`;
    const send = (authorization: string, requests: number, path = TYPES) =>
      Promise.all(
        Array.from({ length: requests }, () => fetch(`${url}${path}`, { headers: { authorization } })),
      );
    const wide = await send(unknown('tm_wide_'), 45);
    expect(wide.filter((r) => r.status === 401)).toHaveLength(40);
    const refused = wide.filter((r) => r.status === 429);
    expect(refused).toHaveLength(5);
    for (const response of refused)
      expect(response.headers.get('ratelimit-policy')).toBe('"wide";q=40;w=120');
    // A plan the deployment does not define, and the older forms, count in the default plan.
    for (const prefix of ['tm_gold_', 'tm_']) {
      const results = await send(unknown(prefix), 12);
      expect(
        results.filter((r) => r.status === 401),
        prefix,
      ).toHaveLength(10);
      const over = results.filter((r) => r.status === 429);
      expect(over, prefix).toHaveLength(2);
      for (const response of over) expect(response.headers.get('ratelimit-policy')).toBe('"tiny";q=10;w=60');
    }
    // The scheme in another case is the same token, and a public route's request with it is counted too.
    const token = unknown('tm_roomy_');
    const mixed = [
      ...(await send(token.replace('Bearer', 'BEARER'), 3)),
      ...(await send(token, 3, '/api/v1/openapi.json')),
    ];
    expect(mixed.map((r) => r.status)).toEqual([401, 401, 401, 200, 200, 200]);
    expect(mixed.at(-1)?.headers.get('ratelimit')).toMatch(/^"roomy";r=99994;t=\d+$/);
  });

  it('counts a plan change from the reissued token’s first request, under the new plan’s rule', async () => {
    const { teamId, token } = await newTeam();
    const client = apiClient(url, token);
    const burst = await Promise.all(Array.from({ length: 15 }, () => client.get(TYPES)));
    expect(count(burst, 429)).toBe(5);
    expect((await client.get(TYPES)).status).toBe(429);
    const { reissued } = await changeTeamPlan(teamId, 'roomy', new Date(Date.now() + 3600_000));
    const next = await apiClient(url, reissued[0]?.token).get(TYPES);
    expect(next.status).toBe(200);
    expect(next.headers.get('ratelimit-policy')).toBe('"roomy";q=100000;w=60');
    // The old token, through the overlap, is still counted in the plan it names: its count is still full.
    const old = await client.get(TYPES);
    expect([old.status, old.headers.get('ratelimit-policy')]).toEqual([429, '"tiny";q=10;w=60']);
  });

  it('counts each token of a team on its own, as WAF aggregates per Authorization header', async () => {
    const team = await newTeam();
    const first = await Promise.all(Array.from({ length: 12 }, () => apiClient(url, team.token).get(TYPES)));
    expect(count(first, 429)).toBe(2);
    const second = await createToken(team.teamId);
    expect((await apiClient(url, second).get(TYPES)).status).toBe(200);
  });

  it('does not count requests without a token, as WAF counts none without its key', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => fetch(`${url}/api/v1/openapi.json`)));
    expect(results.every((r) => r.status === 200)).toBe(true);
  });
});

describe('RateLimiter', () => {
  const plan = { limit: 3, windowSeconds: 60 } as const;

  it('lets `limit` requests through per window, per key, and counts refused ones too', () => {
    let now = Date.UTC(2030, 0, 1, 12);
    const limiter = new RateLimiter(() => now);
    const admitted = () => Array.from({ length: 5 }, () => limiter.admit('a', plan).allowed);
    expect(admitted()).toEqual([true, true, true, false, false]);
    expect(limiter.admit('b', plan)).toEqual({ allowed: true, remaining: 2, resetSeconds: 60 });
    now += 30_000;
    expect(limiter.admit('a', plan).allowed).toBe(false);
    // The first second's six requests leave the window 60 s after it; the one at 30 s stays.
    now += 30_000;
    expect(admitted()).toEqual([true, true, false, false, false]);
  });

  it('says when a refused request would pass: once enough requests have left the window', () => {
    let now = Date.UTC(2030, 0, 1, 12);
    const limiter = new RateLimiter(() => now);
    limiter.admit('a', plan);
    now += 10_000;
    limiter.admit('a', plan);
    limiter.admit('a', plan);
    const refused = limiter.admit('a', plan);
    // Four counted: two must leave; the second leaves with the bucket at 10 s, 60 s after it.
    expect(refused).toEqual({ allowed: false, remaining: 0, resetSeconds: 60 });
    now += 60_000;
    expect(limiter.admit('a', plan).allowed).toBe(true);
  });

  it('forgets keys idle for longer than any window', () => {
    let now = Date.UTC(2030, 0, 1, 12);
    const limiter = new RateLimiter(() => now);
    limiter.admit('idle', plan);
    now += 601_000;
    for (let i = 0; i < 10_000; i++) limiter.admit(`k${i % 5}`, plan);
    expect((limiter as unknown as { windows: Map<string, unknown> }).windows.has('idle')).toBe(false);
  });
});
