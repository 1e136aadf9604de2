import { describe, expect, it } from 'vitest';
import { deleteBrand } from '../../../shared/data/brand-deletes.ts';
import { createBrand, updateBrand } from '../../../shared/data/brand-writes.ts';
import { createContactField, deleteContactField } from '../../../shared/data/contact-fields.ts';
import { createPage } from '../../../shared/data/pages.ts';
import { createSite } from '../../../shared/data/sites.ts';
import { INVALID_CURSOR } from '../../../shared/http/cursors.ts';
import { LIMITS } from '../../../shared/limits.ts';
import { type ApiClient, useApi } from '../../support/api.ts';
import { writeEvents } from '../../support/events.ts';
import { nextLink, pathOf, walkPages } from '../../support/link-pages.ts';
import { roundTrips } from '../../support/round-trips.ts';

const api = useApi();

const BRANDS = '/api/v1/brands';
const FIELDS = '/api/v1/contact-fields';
const PAGES = '/api/v1/pages';
const EVENTS = '/api/v1/events';

interface Listed {
  id: number;
  name: string;
}

/** Follows the Link headers from `first` until the last page; every item and the number of pages. */
const walk = <T = Listed>(client: ApiClient, first: string, during?: () => Promise<void>) =>
  walkPages<T>(api.url, client, first, during);

async function field(teamId: number, tag: string, contactType: 'person' | 'organization' = 'person') {
  return createContactField(teamId, { name: `Field ${tag}`, tag, type: 'text', contact_type: contactType });
}

/** Runs `make(i)` for 0 ≤ i < count, `batch` at a time. */
async function inBatches<T>(count: number, batch: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const made: T[] = [];
  for (let start = 0; start < count; start += batch) {
    const size = Math.min(batch, count - start);
    made.push(...(await Promise.all(Array.from({ length: size }, (_, k) => make(start + k)))));
  }
  return made;
}

const ids = (items: Listed[]) => items.map((item) => item.id);

describe('paged lists', () => {
  it('pages through the brands with several limits: the whole list, in order, no Link on the last page', async () => {
    const { teamId, client } = await api.caller();
    // Names that tie case- and accent-insensitively, so ties by id cross page boundaries.
    const names = [
      'beta',
      'Alpha',
      'alpha',
      'ÄLPHA',
      'Gamma',
      'delta',
      'Beta',
      'epsilon',
      'Zeta',
      'eta',
      'b',
    ];
    for (const name of names) await createBrand(teamId, { name });
    const all = await client.get(BRANDS);
    expect(all.headers.get('link')).toBeNull();
    expect(all.body).toHaveLength(names.length);
    for (const limit of [1, 2, 3, 5, 10, 11, 12, 200]) {
      const { items, pages } = await walk(client, `${BRANDS}?limit=${limit}`);
      expect(items, `limit ${limit}`).toEqual(all.body);
      expect(pages).toBe(Math.max(1, Math.ceil(names.length / limit)));
    }
  });

  it('pages through the contact fields by id, and through the pages by name', async () => {
    const { teamId, client } = await api.caller();
    await inBatches(23, 23, (i) => field(teamId, `field_${i}`, i % 3 ? 'person' : 'organization'));
    const fields = (await client.get(FIELDS)).body;
    expect(ids(fields)).toEqual([...ids(fields)].sort((a, b) => a - b));
    for (const limit of [1, 4, 22, 23, 24]) {
      expect((await walk(client, `${FIELDS}?limit=${limit}`)).items, `limit ${limit}`).toEqual(fields);
    }
    const site = await createSite(teamId, 'Main', 'https://example.com');
    for (const name of ['Thanks', 'about', 'About', 'contact', 'Blog', 'Zoo', 'home']) {
      await createPage(teamId, site.id, name, `/${name}`);
    }
    const pages = (await client.get(PAGES)).body;
    for (const limit of [1, 2, 6, 7, 8]) {
      expect((await walk(client, `${PAGES}?limit=${limit}`)).items, `limit ${limit}`).toEqual(pages);
    }
  });

  it('combines paging with the filters, which the Link repeats', async () => {
    const { teamId, client } = await api.caller();
    await inBatches(30, 30, (i) => field(teamId, `field_${i}`, i % 4 === 0 ? 'organization' : 'person'));
    for (const type of ['person', 'organization']) {
      const filtered = (await client.get(`${FIELDS}?contact_type=${type}`)).body;
      expect(filtered.length).toBeGreaterThan(0);
      const { items } = await walk(client, `${FIELDS}?contact_type=${type}&limit=3`);
      expect(items).toEqual(filtered);
    }
    const response = await client.get(`${FIELDS}?contact_type=organization&limit=2`);
    expect(new URL(nextLink(response.headers) ?? '').searchParams.getAll('contact_type')).toEqual([
      'organization',
    ]);

    const sites = await Promise.all(
      ['One', 'Two', 'Three'].map((name) => createSite(teamId, name, 'https://x.example')),
    );
    for (let i = 0; i < 15; i++) {
      const site = sites[i % 3] as (typeof sites)[number];
      await createPage(teamId, site.id, `Page ${String.fromCharCode(97 + ((i * 7) % 15))}`, `/p${i}`);
    }
    const [one, two] = sites as [(typeof sites)[number], (typeof sites)[number]];
    const single = (await client.get(`${PAGES}?site_id=${one.id}`)).body;
    expect(single).toHaveLength(5);
    expect((await walk(client, `${PAGES}?site_id=${one.id}&limit=2`)).items).toEqual(single);
    const both = (await client.get(`${PAGES}?site_id[]=${one.id}&site_id[]=${two.id}`)).body;
    expect(both).toHaveLength(10);
    expect((await walk(client, `${PAGES}?site_id[]=${two.id}&site_id[]=${one.id}&limit=3`)).items).toEqual(
      both,
    );
  });

  it('reads one Query per page of brands, pages and (unfiltered) contact fields', async () => {
    const { teamId, client } = await api.caller();
    for (let i = 0; i < 6; i++) await createBrand(teamId, { name: `Brand ${i}` });
    await inBatches(6, 6, (i) => field(teamId, `f_${i}`));
    const site = await createSite(teamId, 'Main', 'https://example.com');
    for (let i = 0; i < 6; i++) await createPage(teamId, site.id, `Page ${i}`, `/${i}`);
    for (const list of [BRANDS, FIELDS, PAGES]) {
      const first = await roundTrips(() => client.get(`${list}?limit=2`));
      expect(first.calls, list).toEqual(['QueryCommand']);
      const next = pathOf(api.url, nextLink(first.result.headers) ?? '');
      expect((await roundTrips(() => client.get(next))).calls, list).toEqual(['QueryCommand']);
    }
  });

  it('reads one Query per page of events, and one GetItem per event read by id', async () => {
    const { teamId, client } = await api.caller();
    const [event] = await writeEvents(teamId, 6);
    const first = await roundTrips(() => client.get(`${EVENTS}?limit=2`));
    expect(first.calls).toEqual(['QueryCommand']);
    const next = pathOf(api.url, nextLink(first.result.headers) ?? '');
    expect((await roundTrips(() => client.get(next))).calls).toEqual(['QueryCommand']);
    expect((await roundTrips(() => client.get(`${EVENTS}/${event?.id}`))).calls).toEqual(['GetItemCommand']);
    // A malformed id names no item: nothing is read.
    expect((await roundTrips(() => client.get(`${EVENTS}/evt_x`))).calls).toEqual([]);
  });

  it('finds the few events a filter matches among many in a few Queries, growing each', async () => {
    const { teamId, client } = await api.caller();
    const [oldest] = await writeEvents(teamId, 1, { newest: new Date(Date.now() - 3_600_000), brandId: 2 });
    await writeEvents(teamId, 600, { brandId: 3 });
    const sparse = await roundTrips(() => client.get(`${EVENTS}?resource=brand:2&limit=1`));
    expect(sparse.result.body.map((event: { id: string }) => event.id)).toEqual([oldest?.id]);
    // Pages of 2, 16, 128, 1,024 events: 4 reads where pages of 2 would take 301.
    expect(sparse.calls).toEqual(['QueryCommand', 'QueryCommand', 'QueryCommand', 'QueryCommand']);
    expect(sparse.result.headers.get('link')).toBeNull();
  });

  it('walks 1,000 contact fields stably while another client creates and deletes fields', async () => {
    const { teamId, client } = await api.caller();
    const before = await inBatches(1000, 100, (i) => field(teamId, `stable_${i}`));
    const deleted = new Set<number>();
    let walking = true;
    let churned = 0;
    // Deletes fields spread over the whole range (behind and ahead of the walk) and creates new ones.
    const churn = (async () => {
      for (let round = 0; walking; round++) {
        const victim = before[(round * 397) % before.length] as { id: number };
        if (!deleted.has(victim.id)) {
          deleted.add(victim.id);
          await deleteContactField(teamId, victim.id);
        }
        await field(teamId, `churn_${round}`);
        churned++;
      }
    })();
    const { items, pages } = await walk(client, `${FIELDS}?limit=50`).finally(() => {
      walking = false;
    });
    await churn;
    expect(churned).toBeGreaterThan(0);
    const seen = ids(items);
    expect(new Set(seen).size, 'no duplicates').toBe(seen.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const present = new Set(seen);
    const missing = before.filter((made) => !deleted.has(made.id) && !present.has(made.id));
    expect(missing).toEqual([]);
    expect(pages).toBeGreaterThanOrEqual(Math.floor((1000 - deleted.size) / 50));
  });

  it('walks 150 brands stably while others are created, renamed and deleted', async () => {
    const { teamId, client } = await api.caller();
    const stable = await inBatches(150, 50, (i) =>
      createBrand(teamId, { name: `Brand ${String(i).padStart(3, '0')}` }),
    );
    const churning = await inBatches(30, 30, (i) => createBrand(teamId, { name: `Brand ${i * 5}x` }));
    const renamed = new Set<number>();
    let walking = true;
    const churn = (async () => {
      for (let round = 0; walking; round++) {
        const target = churning[round % churning.length] as { id: number };
        if (round % 3 === 0) {
          await deleteBrand(teamId, target.id).catch(() => undefined);
        } else {
          renamed.add(target.id);
          await updateBrand(teamId, target.id, { name: `Brand ${(round * 37) % 150}y` }).catch(
            () => undefined,
          );
        }
        await createBrand(teamId, { name: `Brand ${(round * 53) % 150}z` });
      }
    })();
    const { items } = await walk(client, `${BRANDS}?limit=7`).finally(() => {
      walking = false;
    });
    await churn;
    const counts = new Map<number, number>();
    for (const id of ids(items)) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const brand of stable) expect(counts.get(brand.id), brand.name).toBe(1);
    // A brand renamed during the walk may move from behind the cursor to ahead of it: only it may repeat.
    for (const [id, count] of counts) if (count > 1) expect(renamed.has(id), `brand ${id} twice`).toBe(true);
  });
});

describe('bad paging parameters', () => {
  /** A valid cursor: the one in the Link of the first page. */
  async function cursorOf(client: ApiClient, path: string): Promise<string> {
    const response = await client.get(path);
    const next = nextLink(response.headers);
    if (!next) throw new Error(`no next page for ${path}`);
    return new URL(next).searchParams.get('cursor') as string;
  }

  async function expectInvalidCursor(client: ApiClient, path: string) {
    const response = await client.get(path);
    expect(response.status, `${path}: ${response.text}`).toBe(400);
    expect(response.body).toEqual({ message: INVALID_CURSOR });
  }

  it('answers 400 {message} to a cursor that is malformed, tampered with or not for this list, team and filters', async () => {
    const { teamId, client } = await api.caller();
    const other = await api.caller();
    for (let i = 0; i < 3; i++) {
      await createBrand(teamId, { name: `Brand ${i}` });
      await createBrand(other.teamId, { name: `Brand ${i}` });
    }
    await inBatches(4, 4, (i) => field(teamId, `f_${i}`, i % 2 ? 'person' : 'organization'));
    const site = await createSite(teamId, 'Main', 'https://example.com');
    for (let i = 0; i < 3; i++) await createPage(teamId, site.id, `Page ${i}`, `/${i}`);

    const brands = await cursorOf(client, `${BRANDS}?limit=1`);
    const [payload, tag] = brands.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const reencoded = (changed: unknown) => Buffer.from(JSON.stringify(changed)).toString('base64url');
    const edited = [
      `${reencoded({ ...decoded, p: ['Brand 2', decoded.p[1]] })}.${tag}`,
      `${reencoded({ ...decoded, t: decoded.t + 1 })}.${tag}`,
      `${reencoded({ ...decoded, p: ['Brand 0', 1] })}.${'A'.repeat(43)}`,
      reencoded({ ...decoded, p: ['Brand 0', 1] }),
    ];
    const malformed = [
      '',
      'abc',
      '!!!',
      'a.b.c',
      `${payload}.`,
      `.${tag}`,
      brands.slice(0, -5),
      brands.slice(5),
    ];
    for (const cursor of [...malformed, ...edited]) {
      await expectInvalidCursor(client, `${BRANDS}?limit=1&cursor=${encodeURIComponent(cursor)}`);
    }
    // Given twice.
    await expectInvalidCursor(client, `${BRANDS}?limit=1&cursor=${brands}&cursor=${brands}`);
    // Another team's valid cursor, and this team's cursor used by another team.
    await expectInvalidCursor(
      client,
      `${BRANDS}?limit=1&cursor=${await cursorOf(other.client, `${BRANDS}?limit=1`)}`,
    );
    await expectInvalidCursor(other.client, `${BRANDS}?limit=1&cursor=${brands}`);
    // Another list's cursor.
    await expectInvalidCursor(client, `${PAGES}?limit=1&cursor=${brands}`);
    await expectInvalidCursor(
      client,
      `${FIELDS}?limit=1&cursor=${await cursorOf(client, `${PAGES}?limit=1`)}`,
    );
    // Other filters than the cursor was issued for.
    const persons = await cursorOf(client, `${FIELDS}?contact_type=person&limit=1`);
    await expectInvalidCursor(client, `${FIELDS}?contact_type=organization&limit=1&cursor=${persons}`);
    await expectInvalidCursor(client, `${FIELDS}?limit=1&cursor=${persons}`);
    const ofSite = await cursorOf(client, `${PAGES}?site_id=${site.id}&limit=1`);
    await expectInvalidCursor(client, `${PAGES}?limit=1&cursor=${ofSite}`);
    await expectInvalidCursor(client, `${PAGES}?site_id=${site.id}&site_id=9&limit=1&cursor=${ofSite}`);
    // The same cursor where it belongs still works, with another limit too.
    expect((await client.get(`${FIELDS}?contact_type=person&limit=5&cursor=${persons}`)).status).toBe(200);
    expect((await client.get(`${PAGES}?site_id[]=${site.id}&cursor=${ofSite}`)).status).toBe(200);
  });

  it(`issues cursors within ${LIMITS.cursorLength} characters, and refuses a longer one`, async () => {
    const { teamId, client } = await api.caller();
    // The longest position a cursor carries: a name of 255 characters that JSON escapes to 6 each.
    const name = '\u0001'.repeat(LIMITS.textLength);
    for (let i = 0; i < 2; i++) await createBrand(teamId, { name });
    const longest = await cursorOf(client, `${BRANDS}?limit=1`);
    expect(longest.length).toBeGreaterThan(2000);
    expect(longest.length).toBeLessThanOrEqual(LIMITS.cursorLength);
    expect((await client.get(`${BRANDS}?limit=1&cursor=${longest}`)).status).toBe(200);
    const [payload, tag] = longest.split('.') as [string, string];
    const padded = `${payload}${'A'.repeat(LIMITS.cursorLength - longest.length + 1)}.${tag}`;
    await expectInvalidCursor(client, `${BRANDS}?limit=1&cursor=${padded}`);
  });

  it('answers 422 naming limit when it is not an integer from 1 to 200', async () => {
    const { client } = await api.caller();
    for (const list of [BRANDS, FIELDS, PAGES, EVENTS]) {
      for (const limit of ['0', '201', 'abc', '1.5', '-1', '', '1e2']) {
        const response = await client.get(`${list}?limit=${limit}`);
        expect(response.status, `${list} limit=${limit}`).toBe(422);
        expect(Object.keys(response.body.errors)).toEqual(['limit']);
      }
      expect((await client.get(`${list}?limit=1&limit=2`)).status).toBe(422);
      expect((await client.get(`${list}?limit=200`)).status).toBe(200);
    }
  });
});
