import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as authorize } from '../functions/authorizer.ts';
import { createGateway } from '../lib/local/gateway.ts';
import { tokenEvent } from '../lib/local/lambda-events.ts';
import { RateLimiter } from '../lib/local/rate-limiter.ts';
import { dynamo } from '../shared/data/dynamo.ts';
import { setRateLimitPlan, teamRateLimit, usageKeyFor } from '../shared/data/teams.ts';
import { MESSAGES } from '../shared/http/messages.ts';
import { RATE_LIMIT_DEFAULTS } from '../shared/rate-limits.ts';
import { type ApiResult, apiClient, newTeam } from './support/api.ts';
import { roundTrips } from './support/round-trips.ts';

/** Per-team rate limits: the authorizer names the team's key, the local gateway enforces its usage plan. */
const PLANS = {
  tiny: { rate: 5, burst: 5 },
  roomy: { rate: 1000, burst: 1000 },
  capped: { rate: 100, burst: 100, dailyQuota: 3 },
};
const LIMITS = { plans: PLANS, defaultPlan: 'roomy' };
const TYPES = '/api/v1/contact-fields/types';

let url = '';
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  const server = createGateway(undefined, LIMITS);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(() => close());

const statuses = (results: ApiResult[]) => results.map((r) => r.status);

describe('the authorizer names the team’s usage plan key', () => {
  it('returns the team’s own key, with or without a plan, in one read of the token item', async () => {
    const planned = await newTeam();
    const unplanned = await newTeam();
    await setRateLimitPlan(planned.teamId, 'tiny');
    const answer = (token: string) =>
      authorize(tokenEvent(`Bearer ${token}`, 'arn:aws:execute-api:r:a:api/s/GET/x'));
    const send = vi.spyOn(dynamo(), 'send');
    const withPlan = await answer(planned.token);
    expect(send).toHaveBeenCalledTimes(1);
    send.mockRestore();
    const withoutPlan = await answer(unplanned.token);
    expect(withPlan.usageIdentifierKey).toBe(usageKeyFor('api', planned.teamId));
    // A team without a plan has its key too: `team create` puts it in the default plan.
    expect(withoutPlan.usageIdentifierKey).toBe(usageKeyFor('api', unplanned.teamId));
    expect(usageKeyFor('api', planned.teamId)).not.toBe(usageKeyFor('api', unplanned.teamId));
    // Key values are unique in an account: two stacks' APIs give one team two keys.
    const otherApi = await authorize(
      tokenEvent(`Bearer ${planned.token}`, 'arn:aws:execute-api:r:a:b2/s/GET/x'),
    );
    expect(otherApi.usageIdentifierKey).toBe(usageKeyFor('b2', planned.teamId));
    expect(otherApi.usageIdentifierKey).not.toBe(withPlan.usageIdentifierKey);
    // API Gateway's minimum API key length, with a REST API id's 10 characters.
    expect(usageKeyFor('a1b2c3d4e5', 1).length).toBeGreaterThanOrEqual(20);
  });

  it('tells the plan and limits that apply to a team, the default plan when it has none', async () => {
    const { teamId } = await newTeam();
    expect(await teamRateLimit(teamId, LIMITS)).toEqual({ plan: 'roomy', rate: 1000, burst: 1000 });
    expect(await setRateLimitPlan(teamId, 'capped')).toBeUndefined();
    expect(await teamRateLimit(teamId, LIMITS)).toEqual({
      plan: 'capped',
      rate: 100,
      burst: 100,
      dailyQuota: 3,
    });
    // A plan since removed from cdk.json falls back to the default.
    expect(await setRateLimitPlan(teamId, 'gone')).toBe('capped');
    expect((await teamRateLimit(teamId, LIMITS)).plan).toBe('roomy');
  });
});

describe('GET /api/v1/limits', () => {
  it('answers the caller’s plan and its limits with its quotas, in the one read of the team item', async () => {
    const { teamId, token } = await newTeam();
    const client = apiClient(url, token);
    // The deployment's plans (configuration: cdk.json's defaults here), not the gateway's test plans.
    const { standard, bulk } = RATE_LIMIT_DEFAULTS.plans;
    expect((await client.get('/api/v1/limits')).body.rate_limit).toEqual({
      plan: 'standard',
      rate: standard?.rate,
      burst: standard?.burst,
      daily_quota: null,
    });
    await setRateLimitPlan(teamId, 'bulk');
    const limits = await roundTrips(() => client.get('/api/v1/limits'));
    expect(limits.calls).toEqual(['GetItemCommand']);
    expect(limits.result.body).toMatchObject({
      quotas: { brands: { used: 0 } },
      rate_limit: { plan: 'bulk', rate: bulk?.rate, burst: bulk?.burst, daily_quota: bulk?.dailyQuota },
    });
  });
});

describe('the local gateway enforces each team’s usage plan', () => {
  it('throttles a team over its rate with 429 JSON and Retry-After, leaving another team untouched', async () => {
    const runaway = await newTeam();
    const neighbour = await newTeam();
    await setRateLimitPlan(runaway.teamId, 'tiny');
    const runawayClient = apiClient(url, runaway.token);
    const neighbourClient = apiClient(url, neighbour.token);
    // 40 requests at once need 7 s of a 5/s plan to pass: far more than they take to arrive.
    const [runawayResults, neighbourResults] = await Promise.all([
      Promise.all(Array.from({ length: 40 }, () => runawayClient.get(TYPES))),
      Promise.all(Array.from({ length: 40 }, () => neighbourClient.get(TYPES))),
    ]);
    expect(statuses(neighbourResults).every((status) => status === 200)).toBe(true);
    expect(statuses(runawayResults).every((status) => status === 200 || status === 429)).toBe(true);
    const throttled = runawayResults.filter((r) => r.status === 429);
    expect(throttled.length).toBeGreaterThan(0);
    expect(runawayResults.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(5);
    for (const response of throttled) {
      expect(response.body).toEqual({ message: MESSAGES.tooManyRequests });
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }

    // After the wait it was told, the team is served again.
    const wait = Math.max(...throttled.map((r) => Number(r.headers.get('retry-after'))));
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    expect((await runawayClient.get(TYPES)).status).toBe(200);
  });

  it('refuses a team past its daily quota until the next UTC day', async () => {
    const { teamId, token } = await newTeam();
    await setRateLimitPlan(teamId, 'capped');
    const client = apiClient(url, token);
    for (let i = 0; i < 3; i++) expect((await client.get(TYPES)).status).toBe(200);
    const refused = await client.get(TYPES);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: MESSAGES.tooManyRequests });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
  });

  it('does not count public routes against anyone', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => fetch(`${url}/api/v1/openapi.json`)));
    expect(results.map((r) => r.status).every((status) => status === 200)).toBe(true);
  });
});

describe('RateLimiter', () => {
  it('lets a burst through, then the steady rate, per key', () => {
    let now = Date.UTC(2030, 0, 1, 12);
    const limiter = new RateLimiter(() => now);
    const plan = { rate: 2, burst: 3 };
    const admitted = () => Array.from({ length: 5 }, () => limiter.admit('a', plan).allowed);
    expect(admitted()).toEqual([true, true, true, false, false]);
    expect(limiter.admit('b', plan).allowed).toBe(true);
    expect(limiter.admit('a', plan)).toEqual({ allowed: false, retryAfterSeconds: 1, quota: false });
    now += 1000; // two tokens back
    expect(admitted()).toEqual([true, true, false, false, false]);
  });

  it('resets the daily quota at UTC midnight', () => {
    let now = Date.UTC(2030, 0, 1, 23, 59, 0);
    const limiter = new RateLimiter(() => now);
    const plan = { rate: 100, burst: 100, dailyQuota: 2 };
    expect([1, 2, 3].map(() => limiter.admit('a', plan).allowed)).toEqual([true, true, false]);
    expect(limiter.admit('a', plan)).toEqual({ allowed: false, retryAfterSeconds: 60, quota: true });
    now += 60_000;
    expect(limiter.admit('a', plan).allowed).toBe(true);
  });
});
