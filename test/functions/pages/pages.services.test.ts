import { describe, expect, it } from 'vitest';
import { createPage } from '../../../shared/data/pages.ts';
import { createSite } from '../../../shared/data/sites.ts';
import { LIMITS } from '../../../shared/limits.ts';
import { useApi } from '../../support/api.ts';
import { admin } from '../../support/processes.ts';
import { roundTrips } from '../../support/round-trips.ts';

const api = useApi();

const PAGES = '/api/v1/pages';

/** Creates a page and fails the test if the team has no such site. */
async function page(teamId: number, siteId: number, name: string, url: string) {
  const created = await createPage(teamId, siteId, name, url);
  if (!created) throw new Error(`team ${teamId} has no site ${siteId}`);
  return created;
}

const names = (body: Array<{ name: string }>) => body.map((p) => p.name);

describe('GET /api/v1/pages', () => {
  it('lists the team’s pages with their site, full URL and timestamps', async () => {
    const { teamId, client } = await api.caller();
    const site = await createSite(teamId, 'Main site', 'https://example.com');
    const thanks = await page(teamId, site.id, 'Thanks', '/thanks');
    const response = await client.get(PAGES);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      {
        id: thanks.id,
        site_id: site.id,
        site_name: 'Main site',
        name: 'Thanks',
        url: '/thanks',
        full_url: 'https://example.com/thanks',
        created_at: thanks.created_at,
        updated_at: thanks.updated_at,
      },
    ]);
    expect(response.body[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('joins the domain and the page path with exactly one slash', async () => {
    const { teamId, client } = await api.caller();
    const slashed = await createSite(teamId, 'Slashed', 'https://slashed.example/');
    const bare = await createSite(teamId, 'Bare', 'https://bare.example');
    await page(teamId, slashed.id, 'A', '/a/b');
    await page(teamId, bare.id, 'B', '/');
    await page(teamId, bare.id, 'C', 'c?x=1');
    const urls = (await client.get(PAGES)).body.map((p: { full_url: string }) => p.full_url);
    expect(urls).toEqual([
      'https://slashed.example/a/b',
      'https://bare.example/',
      'https://bare.example/c?x=1',
    ]);
  });

  it('orders by name, case-insensitively, ties by id', async () => {
    const { teamId, client } = await api.caller();
    const site = await createSite(teamId, 'Main', 'https://example.com');
    const created = [];
    for (const name of ['banana', 'Cherry', 'apple', 'Banana', 'Éclair', 'date', 'Apple']) {
      created.push(await page(teamId, site.id, name, `/${created.length}`));
    }
    const response = await client.get(PAGES);
    expect(names(response.body)).toEqual(['apple', 'Apple', 'banana', 'Banana', 'Cherry', 'date', 'Éclair']);
    const apples = response.body.filter((p: { name: string }) => p.name.toLowerCase() === 'apple');
    expect(apples[0].id).toBeLessThan(apples[1].id);
  });

  it('restricts to the sites named by site_id, in every form, ignoring other teams’ sites', async () => {
    const [{ teamId, client }, other] = await Promise.all([api.caller(), api.caller()]);
    const [one, two, three] = await Promise.all([
      createSite(teamId, 'One', 'https://one.example'),
      createSite(teamId, 'Two', 'https://two.example'),
      createSite(teamId, 'Three', 'https://three.example'),
    ]);
    const theirSite = await createSite(other.teamId, 'Theirs', 'https://theirs.example');
    await page(teamId, one.id, 'On one', '/1');
    await page(teamId, two.id, 'On two', '/2');
    await page(teamId, three.id, 'On three', '/3');
    await page(other.teamId, theirSite.id, 'Not yours', '/x');

    expect(names((await client.get(`${PAGES}?site_id=${two.id}`)).body)).toEqual(['On two']);
    expect(names((await client.get(`${PAGES}?site_id[]=${one.id}&site_id[]=${three.id}`)).body)).toEqual([
      'On one',
      'On three',
    ]);
    expect(
      names((await client.get(`${PAGES}?site_id%5B%5D=${one.id}&site_id%5B%5D=${two.id}`)).body),
    ).toEqual(['On one', 'On two']);
    expect(names((await client.get(`${PAGES}?site_id=${one.id}&site_id=${three.id}`)).body)).toEqual([
      'On one',
      'On three',
    ]);
    expect((await client.get(`${PAGES}?site_id=${theirSite.id}`)).body).toEqual([]);
    expect(names((await client.get(`${PAGES}?site_id[]=${theirSite.id}&site_id[]=${one.id}`)).body)).toEqual([
      'On one',
    ]);
    expect(names((await client.get(PAGES)).body)).toEqual(['On one', 'On three', 'On two']);
    expect(names((await other.client.get(PAGES)).body)).toEqual(['Not yours']);
  });

  it.each(['site_id=abc', 'site_id=1.5', 'site_id=', 'site_id[]=1&site_id[]=x', 'site_id=1e3'])(
    'refuses ?%s with a 422',
    async (query) => {
      const { client } = await api.caller();
      const response = await client.get(`${PAGES}?${query}`);
      expect(response.status).toBe(422);
      expect(response.body).toEqual({
        message: 'The site id field must be an integer.',
        errors: { site_id: ['The site id field must be an integer.'] },
      });
    },
  );

  it(`takes at most ${LIMITS.pageSiteIds} site ids, both spellings counted together; one more is a 422`, async () => {
    const { teamId, client } = await api.caller();
    const site = await createSite(teamId, 'Main', 'https://example.com');
    await page(teamId, site.id, 'Home', '/');
    // The team's site among ids that name no site of it, half of them as `site_id[]`.
    const ids = (count: number) =>
      [site.id, ...Array.from({ length: count - 1 }, (_, i) => 900_000_000 + i)]
        .map((id, i) => `${i % 2 ? 'site_id[]' : 'site_id'}=${id}`)
        .join('&');
    const most = await client.get(`${PAGES}?${ids(LIMITS.pageSiteIds)}`);
    expect([most.status, names(most.body)]).toEqual([200, ['Home']]);
    const over = await client.get(`${PAGES}?${ids(LIMITS.pageSiteIds + 1)}`);
    expect(over.status).toBe(422);
    expect(over.body).toEqual({
      message: `The site id field must not have more than ${LIMITS.pageSiteIds} items.`,
      errors: { site_id: [`The site id field must not have more than ${LIMITS.pageSiteIds} items.`] },
    });
  });

  it('answers an empty array for a team without pages, in one Query', async () => {
    const { teamId, client } = await api.caller();
    const empty = await roundTrips(() => client.get(PAGES));
    expect(empty.result).toMatchObject({ status: 200, body: [] });
    expect(empty.calls).toEqual(['QueryCommand']);
    const site = await createSite(teamId, 'Main', 'https://example.com');
    await Promise.all(['a', 'b', 'c'].map((name) => page(teamId, site.id, name, `/${name}`)));
    const listed = await roundTrips(() => client.get(`${PAGES}?site_id=${site.id}`));
    expect(names(listed.result.body)).toEqual(['a', 'b', 'c']);
    expect(listed.calls).toEqual(['QueryCommand']);
  });

  it('shows sites and pages made with the admin CLI', async () => {
    const { teamId, client } = await api.caller();
    const team = String(teamId);
    const site = await admin(
      ['site', 'create', '--team', team, '--name', 'Shop', '--domain', 'https://shop.example/'],
      {},
    );
    expect(site.code, site.stderr).toBe(0);
    const siteId = String(site.json.site_id);
    const created = await admin(
      ['page', 'create', '--team', team, '--site', siteId, '--name', 'Checkout done', '--url', '/done'],
      {},
    );
    expect(created.code, created.stderr).toBe(0);
    const response = await client.get(`${PAGES}?site_id=${siteId}`);
    expect(response.body).toEqual([
      {
        id: created.json.page_id,
        site_id: site.json.site_id,
        site_name: 'Shop',
        name: 'Checkout done',
        url: '/done',
        full_url: 'https://shop.example/done',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
  });
});
