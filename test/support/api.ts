import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { CONCURRENCY_DEFAULTS, type ConcurrencySettings } from '../../lib/cdk/concurrency.ts';
import { createGateway } from '../../lib/local/gateway.ts';
import { createTeam } from '../../shared/data/teams.ts';
import { createToken, type TokenOptions } from '../../shared/data/tokens.ts';
import { BEARER_CHALLENGE } from '../../shared/http/messages.ts';
import type { RateLimits } from '../../shared/rate-limits.ts';
import type { Scope } from '../../shared/scopes.ts';
import { contractProblems } from './contract.ts';

/**
 * A plan no test reaches: the tests fire hundreds of requests per team at once to test other things (the
 * fuzz suite, races). test/shared/rate-limits.services.test.ts starts its own gateway with small plans to test the limits.
 */
const TEST_RATE_LIMITS: RateLimits = {
  plans: { test: { limit: 1_000_000_000, windowSeconds: 60 } },
  defaultPlan: 'test',
  // Every test's requests come from 127.0.0.1: test/tenant-isolation/front-door.services.test.ts tests the source limit.
  perSource: { limit: 1_000_000_000, windowSeconds: 60 },
};

/**
 * No reserved concurrency, for the same reason: a test's hundreds of requests at once would find the
 * authorizer's 20 full (the local gateway checks every request's token; API Gateway caches them).
 * test/lib/local/reserved-concurrency.services.test.ts and the tenant-isolation tests start gateways that enforce shares.
 */
export const TEST_CONCURRENCY: ConcurrencySettings = { ...CONCURRENCY_DEFAULTS, reserve: false };

/**
 * The local gateway on a random port of 127.0.0.1, serving the route table in this process; its rate limit
 * plans and concurrency shares are those no test reaches unless others are given (the deployment's, say).
 */
export async function startApi(
  rateLimits: RateLimits = TEST_RATE_LIMITS,
  concurrency: ConcurrencySettings = TEST_CONCURRENCY,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createGateway(undefined, rateLimits, concurrency);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface TestTeam {
  teamId: number;
  token: string;
}

/** A new team and a token of it: of full access unless `token` names scopes or an expiry. */
export async function newTeam(name = 'Test team', token: TokenOptions = {}): Promise<TestTeam> {
  const team = await createTeam(name);
  return { teamId: team.id, token: await createToken(team.id, token) };
}

/**
 * The local gateway for the calling test file: started before its tests, closed after them. Read `url`
 * and call `caller()` inside tests and hooks, once the gateway is up.
 */
export function useApi(): { readonly url: string; caller: () => Promise<Caller> } {
  let api: Awaited<ReturnType<typeof startApi>> | undefined;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api?.close());
  const url = () => {
    if (!api) throw new Error('The test API is not started yet: use it inside a test or hook.');
    return api.url;
  };
  return {
    get url() {
      return url();
    },
    caller: () => newCaller(url()),
  };
}

/** A fresh team with an HTTP client acting for it. */
export interface Caller extends TestTeam {
  client: ApiClient;
}

export async function newCaller(baseUrl: string): Promise<Caller> {
  const team = await newTeam();
  return { ...team, client: apiClient(baseUrl, team.token) };
}

// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely and assert on them.
export interface ApiResult<T = any> {
  status: number;
  body: T;
  /** The body as it came over the wire (and all there is of an answer that is not JSON). */
  text: string;
  headers: Headers;
}

/**
 * A small HTTP client for one caller: JSON in, JSON out, the status and headers kept; every response is
 * checked against the OpenAPI document (support/contract.ts).
 */
export function apiClient(baseUrl: string, token?: string) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        Accept: 'application/json',
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
        ...(token && { Authorization: `Bearer ${token}` }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    const result = { status: response.status, text, headers: response.headers };
    const problems = contractProblems(method, baseUrl + path, result);
    if (problems.length > 0)
      throw new Error(`The response breaks the OpenAPI document:\n${problems.join('\n')}`);
    // A text answer (the reference page, its script) has no JSON body, only its text.
    const json = response.headers.get('content-type')?.startsWith('application/json');
    return { ...result, body: text && json ? JSON.parse(text) : undefined } as ApiResult;
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      call('POST', path, body, headers),
    put: (path: string, body?: unknown, headers?: Record<string, string>) => call('PUT', path, body, headers),
    delete: (path: string, headers?: Record<string, string>) => call('DELETE', path, undefined, headers),
  };
}

export type ApiClient = ReturnType<typeof apiClient>;

/** A 403 `insufficient_scope` naming `scope` and the route, with its RFC 6750 challenge. */
export function expectInsufficientScope(response: ApiResult, scope: Scope, route: string): void {
  expect(response.status, response.text).toBe(403);
  expect(response.body).toEqual({
    message: expect.stringContaining(`lacks the scope ${scope}`),
    error_code: 'insufficient_scope',
    required_scope: scope,
  });
  expect(response.body.message).toContain(route);
  expect(response.headers.get('www-authenticate')).toBe(
    `${BEARER_CHALLENGE}, error="insufficient_scope", scope="${scope}"`,
  );
}
