import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONCURRENCY_DEFAULTS } from '../../lib/cdk/concurrency.ts';
import { createGateway } from '../../lib/local/gateway.ts';
import { SHARE_FULL_MESSAGE } from '../../shared/autoconfigure/team-share.ts';
import {
  AUTO_CONFIGURE_LEASE_MS,
  AUTO_CONFIGURE_READ_MS,
  releaseAutoConfigureSlot,
  takeAutoConfigureSlot,
} from '../../shared/data/auto-configure-slots.ts';
import { dynamo, tableName } from '../../shared/data/dynamo.ts';
import { autoConfigureSlotsKey } from '../../shared/data/keys.ts';
import { MESSAGES } from '../../shared/http/messages.ts';
import { LIMITS, TIMEOUTS } from '../../shared/limits.ts';
import { type FixtureServer, html, startFixtureServer } from '../shared/autoconfigure/fixture-server.ts';
import { type ApiResult, apiClient, newTeam } from '../support/api.ts';
import { useSettings } from '../support/settings.ts';

/**
 * Auto-configure's reserved executions (10 by default) serve every team, and a page that sends a
 * byte a second holds a call for the whole fetch budget. Each team now has a share of them
 * (LIMITS.autoConfigurePerTeam, 2): the slots on DynamoDB Local, taken by real parallel writers; then the
 * local gateway, enforcing the pool's 10 as Lambda does, with the real handler and a site on 127.0.0.1 whose
 * slow page trickles bytes until the test ends it. Counted, never timed.
 */
const SHARE = LIMITS.autoConfigurePerTeam;

/** The team's leases as stored (token → until). */
async function leasesOf(teamId: number): Promise<Record<string, number>> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: autoConfigureSlotsKey(teamId), ConsistentRead: true }),
  );
  return (Item?.leases as Record<string, number> | undefined) ?? {};
}

/**
 * Makes the real client's next UpdateItem of a team's slots fail after DynamoDB has applied it, as a lost
 * answer does (the SDK then retries it): the fault injected around the real call, nothing answered for it.
 */
function loseNextSlotAnswer(teamId: number): { lost: () => number; stop: () => void } {
  const name = `lose-answer-${teamId}`;
  let lost = 0;
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const input = args.input as { Key?: { pk?: { S?: string } | string } };
      const pk = typeof input.Key?.pk === 'string' ? input.Key.pk : input.Key?.pk?.S;
      if (lost === 0 && pk === autoConfigureSlotsKey(teamId).pk) {
        lost += 1;
        throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError', code: 'ECONNRESET' });
      }
      return result;
    },
    { step: 'deserialize', name, priority: 'high' },
  );
  return { lost: () => lost, stop: () => dynamo().middlewareStack.remove(name) };
}

describe('the team slots (shared/data/auto-configure-slots.ts, DynamoDB Local)', () => {
  it(`20 takers at once, in parallel: ${SHARE} hold a slot, the rest are refused; a release frees one once the page is read`, async () => {
    const { teamId } = await newTeam('Slots race');
    const now = Date.now();
    const slots = await Promise.all(Array.from({ length: 20 }, () => takeAutoConfigureSlot(teamId, now)));
    const held = slots.filter((slot) => slot.held);
    expect(held).toHaveLength(SHARE);
    expect(Object.keys(await leasesOf(teamId)).sort()).toEqual(held.map((slot) => slot.token).sort());
    // Full: refused, the item unchanged.
    expect((await takeAutoConfigureSlot(teamId, now)).held).toBe(false);
    const [first] = held;
    if (!first?.held) throw new Error('no slot held');
    // Its fetches ended: the lease is cut to the reading of the page, and the slot is free after it.
    const fetched = now + 1000;
    await releaseAutoConfigureSlot(teamId, first.token, fetched);
    expect((await leasesOf(teamId))[first.token]).toBe(fetched + AUTO_CONFIGURE_READ_MS);
    expect((await takeAutoConfigureSlot(teamId, fetched + AUTO_CONFIGURE_READ_MS - 1)).held).toBe(false);
    const later = fetched + AUTO_CONFIGURE_READ_MS;
    const again = await Promise.all(Array.from({ length: 5 }, () => takeAutoConfigureSlot(teamId, later)));
    expect(again.filter((slot) => slot.held)).toHaveLength(1);
    expect(Object.keys(await leasesOf(teamId))).not.toContain(first.token);
    // A release of a lease already taken over changes nothing.
    await releaseAutoConfigureSlot(teamId, first.token, later);
    expect(Object.keys(await leasesOf(teamId))).toHaveLength(SHARE);
    // A lease its taker knows has ended (a call of this process) is removed by the take, in its one write.
    const [second] = again.filter((slot) => slot.held);
    if (!second?.held) throw new Error('no slot held');
    const cut = await releaseAutoConfigureSlot(teamId, second.token, later);
    const next = await takeAutoConfigureSlot(teamId, later, { ended: { [second.token]: cut } });
    expect(next.held).toBe(true);
    expect(Object.keys(await leasesOf(teamId))).not.toContain(second.token);
    expect(Object.keys(await leasesOf(teamId))).toHaveLength(SHARE);
  });

  it("a lease that ran out (its call crashed) is taken over, by one of the takers at once; another team's slots are its own", async () => {
    const { teamId } = await newTeam('Slots crash');
    const { teamId: otherTeam } = await newTeam('Slots bystander');
    const start = Date.now();
    const crashed = await Promise.all(
      Array.from({ length: SHARE }, () => takeAutoConfigureSlot(teamId, start)),
    );
    expect(crashed.every((slot) => slot.held)).toBe(true);
    // Before the leases run out: the team is full, another team is not.
    expect((await takeAutoConfigureSlot(teamId, start + AUTO_CONFIGURE_LEASE_MS - 1)).held).toBe(false);
    expect((await takeAutoConfigureSlot(otherTeam, start)).held).toBe(true);
    // Once they ran out: the share again, never more, the dead leases gone from the item.
    const later = start + AUTO_CONFIGURE_LEASE_MS;
    const takers = await Promise.all(Array.from({ length: 10 }, () => takeAutoConfigureSlot(teamId, later)));
    const taken = takers.filter((slot) => slot.held);
    expect(taken).toHaveLength(SHARE);
    const leases = await leasesOf(teamId);
    expect(Object.keys(leases).sort()).toEqual(taken.map((slot) => slot.held && slot.token).sort());
    expect(Object.values(leases).every((until) => until === later + AUTO_CONFIGURE_LEASE_MS)).toBe(true);
  });

  it('a take whose answer was lost is retried by the SDK and recognised as its own (not a second slot)', async () => {
    const { teamId } = await newTeam('Slots retry');
    const now = Date.now();
    // The first take (the item made), then a second into the map: each answer lost once, after it was written.
    for (const expected of [1, SHARE]) {
      const fault = loseNextSlotAnswer(teamId);
      try {
        const slot = await takeAutoConfigureSlot(teamId, now);
        expect(fault.lost()).toBe(1);
        expect(slot.held).toBe(true);
        expect(Object.keys(await leasesOf(teamId))).toHaveLength(expected);
        expect(Object.keys(await leasesOf(teamId))).toContain(slot.held && slot.token);
      } finally {
        fault.stop();
      }
    }
    // The team holds its share, each slot once: the next taker is refused.
    expect((await takeAutoConfigureSlot(teamId, now)).held).toBe(false);
  });
});

/** The slow page: its head and then a byte at a time, until the test ends it; the fast one answers at once. */
const SLOW_HEAD = '<!doctype html><html><head><title>Slow Site</title>';
const FAST_PAGE = '<!doctype html><html><head><title>Bystander Site</title></head><body></body></html>';

let gateway: { url: string; close: () => Promise<void> };
let site: FixtureServer;
/** Slow pages being sent now, each ended by the test. */
const slow: Array<{ end: () => void }> = [];
const arrived: Array<() => void> = [];
let slowRequests = 0;
let fastRequests = 0;

function trickle(_request: IncomingMessage, response: ServerResponse): void {
  slowRequests += 1;
  response.writeHead(200, { 'content-type': 'text/html' });
  response.write(SLOW_HEAD);
  // A byte at a time, as the page sends them: the call holds its execution while they come.
  const timer = setInterval(() => response.write(' '), 200);
  const end = () => {
    clearInterval(timer);
    response.end('</head><body></body></html>');
  };
  response.once('close', () => clearInterval(timer));
  slow.push({ end });
  for (const wake of arrived.splice(0)) wake();
}

beforeAll(async () => {
  // The deployed shares: auto-configure's pool of 10 for every team, and the authorizer's 20.
  const server = createGateway(undefined, undefined, CONCURRENCY_DEFAULTS);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  gateway = {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const fast = html(FAST_PAGE);
  site = await startFixtureServer({
    '/slow': trickle,
    '/fast': (request, response, origin) => {
      fastRequests += 1;
      fast(request, response, origin);
    },
  });
});
afterAll(async () => {
  for (const page of slow.splice(0)) page.end();
  await site?.close();
  await gateway?.close();
});

const autoConfigure = (token: string, path: string) =>
  apiClient(gateway.url, token).post('/api/v1/brands/auto-configure', { url: site.url(path) });

describe("one team's slow pages take its own share of auto-configure, not the other teams'", () => {
  it(`a team firing 10 calls at once at a slow page (the whole pool) fetches ${SHARE}, the rest are 429 while those run; another team is served`, async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    const [hostile, bystander] = await Promise.all([newTeam('Slow pages'), newTeam('Bystander')]);
    const POOL = CONCURRENCY_DEFAULTS.autoConfigure;
    const answered: ApiResult[] = [];
    const changed: Array<() => void> = [];
    const calls = Array.from({ length: POOL }, () =>
      autoConfigure(hostile.token, '/slow').then((response) => {
        answered.push(response);
        for (const wake of changed.splice(0)) wake();
        return response;
      }),
    );
    // Until each call is either answered or has its slow page being sent: the share's calls hold theirs open.
    while (answered.length + slow.length < POOL) {
      await new Promise<void>((resolve) => {
        changed.push(resolve);
        arrived.push(resolve);
      });
    }
    expect(slow).toHaveLength(SHARE);
    expect(answered.map((response) => response.status)).toEqual(answered.map(() => 429));
    for (const refused of answered) {
      expect(refused.body).toEqual({ message: SHARE_FULL_MESSAGE });
      expect(refused.headers.get('retry-after')).toBe(String(TIMEOUTS.retryAfterSeconds));
    }
    // The site saw the share's requests and no other: a call over the share sends it nothing.
    expect(slowRequests).toBe(SHARE);
    expect(Object.keys(await leasesOf(hostile.teamId))).toHaveLength(SHARE);

    // Meanwhile the other team's call runs and answers.
    const served = await autoConfigure(bystander.token, '/fast');
    expect(served.status).toBe(200);
    expect(served.body.suggestions.name).toBe('Bystander Site');
    expect(fastRequests).toBe(1);
    expect(slow).toHaveLength(SHARE);

    // The slow pages end: their calls ran (a 200, or the 422 of the fetch budget on a very busy machine),
    // and their leases were cut to the reading of the page.
    const ending = Date.now();
    for (const page of slow.splice(0)) page.end();
    const all = await Promise.all(calls);
    const ran = all.filter((response) => response.status !== 429);
    expect(ran).toHaveLength(SHARE);
    for (const response of ran) expect([200, 422]).toContain(response.status);
    expect(all.filter((response) => response.status === 503)).toEqual([]);
    const cut = Object.values(await leasesOf(hostile.teamId));
    expect(cut).toHaveLength(SHARE);
    for (const until of cut) {
      expect(until).toBeGreaterThanOrEqual(ending + AUTO_CONFIGURE_READ_MS);
      expect(until).toBeLessThanOrEqual(Date.now() + AUTO_CONFIGURE_READ_MS);
    }
    // Then the team's calls run again: a client that retries after Retry-After, as the 429 asks, is served.
    let again = await autoConfigure(hostile.token, '/fast');
    for (let retry = 1; again.status === 429 && retry <= 20; retry++) {
      await new Promise((resolve) => setTimeout(resolve, Number(again.headers.get('retry-after')) * 1000));
      again = await autoConfigure(hostile.token, '/fast');
    }
    expect(again.status).toBe(200);
  });
});

describe('a table that cannot answer', () => {
  it('auto-configure is the 503 with Retry-After, and the site is sent nothing (never a fetch without a slot)', async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    const team = await newTeam('Slots outage');
    const name = 'slots-outage';
    // Every write of the team's slots fails as an unreachable DynamoDB does (after the SDK's retries).
    dynamo().middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Key?: { pk?: { S?: string } | string } };
        const pk = typeof input.Key?.pk === 'string' ? input.Key.pk : input.Key?.pk?.S;
        if (pk === autoConfigureSlotsKey(team.teamId).pk) {
          throw Object.assign(new Error('connect ECONNREFUSED'), { name: 'Error', code: 'ECONNREFUSED' });
        }
        return next(args);
      },
      { step: 'deserialize', name, priority: 'high' },
    );
    const before = fastRequests;
    try {
      const response = await autoConfigure(team.token, '/fast');
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ message: MESSAGES.unavailable });
      expect(response.headers.get('retry-after')).toBe(String(TIMEOUTS.retryAfterSeconds));
      expect(fastRequests).toBe(before);
    } finally {
      dynamo().middlewareStack.remove(name);
    }
  });
});
