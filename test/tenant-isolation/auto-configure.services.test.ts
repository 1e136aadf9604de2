import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertParseable } from '../../shared/autoconfigure/page-complexity.ts';
import { LIMITS } from '../../shared/limits.ts';
import {
  type FixtureServer,
  html,
  type Route,
  respond,
  startFixtureServer,
} from '../shared/autoconfigure/fixture-server.ts';
import { apiClient, newTeam, startApi } from '../support/api.ts';
import { HOSTILE_PAGES, LARGEST_PAGE_BYTES } from '../support/hostile-pages.ts';
import { useSettings } from '../support/settings.ts';

/**
 * Auto-configure's work is bounded by the page it reads. Each measured case against the local
 * gateway (handlers run in this process, so a page that burns CPU would hold every other team's request too), over
 * real HTTP from a local site. Outcomes are asserted, never timings: a page within the bounds answers 200, one past
 * them the 422 that says it is too complex, none hangs or answers 500. The CPU each page costs is in `npm run bench`.
 */

const TOO_COMPLEX = /^page is too complex to read \(.+\)$/;

/** The first measurement: `a` + 100,000 spaces + `b` as the title, a page of about 100 KB (35.6 s). */
const WHITESPACE_TITLE = `<!doctype html><html><head><title>a${' '.repeat(100_000)}b</title></head><body></body></html>`;
/** The second: `<div>` nested 40,000 deep (11.8 s). */
const NESTED_40000 = `<!doctype html><html><body>${'<div>'.repeat(40_000)}`;

let api: Awaited<ReturnType<typeof startApi>>;
let site: FixtureServer;
/** Page fetches the site has received, in order, so a test can act while auto-configure is reading one. */
const fetched: string[] = [];
const waiters: Array<() => void> = [];

function counted(route: Route): Route {
  return (request, response, origin) => {
    fetched.push(request.url ?? '');
    for (const wake of waiters.splice(0)) wake();
    route(request, response, origin);
  };
}

beforeAll(async () => {
  api = await startApi();
  const routes: Record<string, Route> = {
    '/whitespace-title': counted(html(WHITESPACE_TITLE)),
    '/nested-40000': counted(html(NESTED_40000)),
  };
  for (const [index, page] of HOSTILE_PAGES.entries()) {
    routes[`/hostile/${index}`] = counted(html(page.html()));
    const manifest = page.manifest?.();
    if (manifest !== undefined) {
      routes['/site.webmanifest'] = respond(manifest, { 'content-type': 'application/manifest+json' });
    }
  }
  site = await startFixtureServer(routes);
});
afterAll(async () => {
  await site?.close();
  await api?.close();
});

async function hostileCaller() {
  useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
  return apiClient(api.url, (await newTeam('Hostile')).token);
}

describe('auto-configure work is bounded by the page it reads', () => {
  it('36.1 a title of a + 100,000 spaces + b (about 100 KB) answers 200, its whitespace read as one space', async () => {
    const client = await hostileCaller();
    const response = await client.post('/api/v1/brands/auto-configure', {
      url: site.url('/whitespace-title'),
    });
    expect(response.status).toBe(200);
    // An unsplit title names the site only with the domain behind it; 127.0.0.1 has none, so it stands alone.
    expect(response.body.suggestions.name).toBe('a b');
    expect(response.body.sources.name).toBe('title');
  });

  it('36.1 <div> nested 40,000 deep answers the 422 "too complex", naming the nesting bound', async () => {
    const client = await hostileCaller();
    const response = await client.post('/api/v1/brands/auto-configure', { url: site.url('/nested-40000') });
    expect(response.status).toBe(422);
    const message = `page is too complex to read (elements nested more than ${LIMITS.autoConfigurePageDepth} deep)`;
    expect(response.body).toEqual({ message, errors: { url: [message] } });
    // The parse that was refused would have nested 40,000 deep: counted, not timed.
    expect(() => assertParseable(NESTED_40000)).toThrow(message);
  });

  it('36.1 a page of the largest size read (5 MiB) of each hostile kind answers 200 or the 422 "too complex"', async () => {
    const client = await hostileCaller();
    const outcomes: Record<string, number> = {};
    for (const [index, page] of HOSTILE_PAGES.entries()) {
      const response = await client.post('/api/v1/brands/auto-configure', {
        url: site.url(`/hostile/${index}`),
      });
      outcomes[page.name] = response.status;
      expect([200, 422], `${page.name}: ${response.text.slice(0, 200)}`).toContain(response.status);
      if (response.status === 422) {
        expect(response.body.message, page.name).toMatch(TOO_COMPLEX);
        expect(response.body.errors, page.name).toEqual({ url: [response.body.message] });
      }
    }
    // Pages within the bounds are read, those past them refused: both kinds are in the set.
    expect(Object.values(outcomes)).toContain(200);
    expect(Object.values(outcomes)).toContain(422);
    // Every page is as large as auto-configure reads (and the manifest too).
    const sizes = HOSTILE_PAGES.flatMap((page) => [page.html().length, page.manifest?.().length ?? 0]);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(LARGEST_PAGE_BYTES);
    expect(sizes.filter((size) => size > LARGEST_PAGE_BYTES - 1024)).toHaveLength(HOSTILE_PAGES.length + 1);
  });

  it("36.1 another team's GET /api/v1/limits is answered while a hostile auto-configure loop is still running", async () => {
    const hostile = await hostileCaller();
    const other = apiClient(api.url, (await newTeam('Bystander')).token);
    const events: string[] = [];
    // The heaviest page that is read rather than refused, again and again until the other team is answered
    // (at most ROUNDS times: each request's work is bounded, so the other team's turn comes within a few
    // rounds however busy the machine; a loop that ran out first would mean it was starved).
    const ROUNDS = 10;
    const heaviest = HOSTILE_PAGES.findIndex((page) => page.name === 'thousands of links and icons');
    expect(heaviest).toBeGreaterThanOrEqual(0);
    const firstFetch = new Promise<void>((resolve) => waiters.push(resolve));
    const before = fetched.length;
    let answered = false;
    const loop = (async () => {
      for (let round = 1; round <= ROUNDS && !answered; round++) {
        const response = await hostile.post('/api/v1/brands/auto-configure', {
          url: site.url(`/hostile/${heaviest}`),
        });
        events.push(`hostile ${round}: ${response.status}`);
      }
    })();
    // Once auto-configure is reading the first page, the other team asks for its limits.
    await firstFetch;
    expect(fetched.length).toBeGreaterThan(before);
    const limits = other.get('/api/v1/limits').then((response) => {
      answered = true;
      events.push(`limits: ${response.status}`);
      return response;
    });
    await Promise.all([loop, limits]);
    expect((await limits).body).toEqual(expect.any(Object));
    const hostileAnswers = events.filter((event) => event.startsWith('hostile'));
    // Answered while the loop still ran: before its last round's answer.
    const lastRound = events.indexOf(`hostile ${ROUNDS}: 200`);
    expect(events).toContain('limits: 200');
    expect(lastRound === -1 || events.indexOf('limits: 200') < lastRound, events.join(', ')).toBe(true);
    expect(hostileAnswers).toEqual(hostileAnswers.map((_, index) => `hostile ${index + 1}: 200`));
  });
});
