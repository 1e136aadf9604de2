import { describe, expect, it } from 'vitest';
import { createPage } from '../../../shared/data/pages.ts';
import { getQuotas, setQuota } from '../../../shared/data/quotas.ts';
import { createSite } from '../../../shared/data/sites.ts';
import { useApi } from '../../support/api.ts';
import { admin } from '../../support/processes.ts';
import { roundTrips } from '../../support/round-trips.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';

/** Per-team quotas, enforced in the creates' own transactions, on the real local stack. */
const api = useApi();

const BRANDS = '/api/v1/brands';
const FIELDS = '/api/v1/contact-fields';
const quotaError = (limit: number, what: string) => ({
  message: `The team has reached its quota of ${limit} ${what}; delete some or ask for a higher quota.`,
  errors: {
    quota: [`The team has reached its quota of ${limit} ${what}; delete some or ask for a higher quota.`],
  },
});

describe('quotas', () => {
  it('never overshoot: 50 parallel creates against a quota with 10 left create exactly 10', async () => {
    const { teamId, client } = await api.caller();
    for (let i = 0; i < 5; i++) expect((await client.post(BRANDS, { name: `Before ${i}` })).status).toBe(201);
    await setQuota(teamId, 'brands', 15);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client.post(BRANDS, { name: `Parallel ${i}` })),
    );
    // Counted by status, so that a failure shows every status met.
    const statuses: Record<number, number> = {};
    for (const { status } of responses) statuses[status] = (statuses[status] ?? 0) + 1;
    expect(statuses).toEqual({ 201: 10, 422: 40 });
    expect(responses.find((response) => response.status === 422)?.body).toEqual(quotaError(15, 'brands'));
    expect((await client.get(BRANDS)).body).toHaveLength(15);
    expect((await client.get('/api/v1/limits')).body.quotas.brands).toEqual({ limit: 15, used: 15 });
  });

  it('give a unit back on delete, and a replayed create takes none', async () => {
    const { teamId, client } = await api.caller();
    await setQuota(teamId, 'contact_fields', 2);
    const field = (tag: string) =>
      client.post(FIELDS, { name: tag, tag, type: 'text', contact_type: 'person' });
    const first = await client.post(
      FIELDS,
      { name: 'a', tag: 'a', type: 'text', contact_type: 'person' },
      {
        'Idempotency-Key': 'quota-replay',
      },
    );
    const replay = await client.post(
      FIELDS,
      { name: 'a', tag: 'a', type: 'text', contact_type: 'person' },
      {
        'Idempotency-Key': 'quota-replay',
      },
    );
    expect([first.status, replay.headers.get('idempotent-replay')]).toEqual([201, 'true']);
    expect((await field('b')).status).toBe(201);
    const refused = await field('c');
    expect([refused.status, refused.body]).toEqual([422, quotaError(2, 'contact fields')]);
    expect((await client.delete(`${FIELDS}/${first.body.id}`)).status).toBe(200);
    expect((await field('c')).status).toBe(201);
    expect((await getQuotas(teamId)).contact_fields).toEqual({ limit: 2, used: 2 });
  });

  it('cover sites and pages (the admin CLI makes them) and the default applies without an override', async () => {
    const { teamId, client } = await api.caller();
    await setQuota(teamId, 'sites', 1);
    await setQuota(teamId, 'pages', 1);
    const site = await createSite(teamId, 'Main', 'https://example.com');
    await expect(createSite(teamId, 'Second', 'https://example.org')).rejects.toMatchObject({
      name: 'ValidationError',
    });
    expect(await createPage(teamId, site.id, 'Thanks', '/thanks')).toBeDefined();
    const cli = await admin(
      [
        'page',
        'create',
        '--team',
        String(teamId),
        '--site',
        String(site.id),
        '--name',
        'More',
        '--url',
        '/more',
      ],
      {},
    );
    expect([cli.code, cli.error]).toEqual([1, quotaError(1, 'pages').message]);
    const limits = (await client.get('/api/v1/limits')).body.quotas;
    expect(limits).toEqual({
      brands: { limit: 500, used: 0 },
      contact_fields: { limit: 5000, used: 0 },
      sites: { limit: 1, used: 1 },
      pages: { limit: 1, used: 1 },
      webhook_endpoints: { limit: 20, used: 0 },
      uploads: { limit: 10_000, used: 0 },
      upload_bytes: { limit: 5 * 1024 ** 3, used: 0 },
    });
  });

  it('are set and reset per team with the admin CLI', async () => {
    const { teamId } = await api.caller();
    const set = await admin(
      ['quota', 'set', '--team', String(teamId), '--kind', 'brands', '--limit', '7'],
      {},
    );
    expect(set.json, set.stderr).toEqual({ limit: 7, used: 0 });
    const reset = await admin(
      ['quota', 'set', '--team', String(teamId), '--kind', 'brands', '--limit', 'default'],
      {},
    );
    expect(reset.json).toEqual({ limit: 500, used: 0 });
    const bad = await admin(
      ['quota', 'set', '--team', String(teamId), '--kind', 'brands', '--limit', 'many'],
      {},
    );
    expect([bad.code, bad.error]).toEqual([1, '--limit must be a whole number or "default"']);
  });

  it('cost no round trip: the count is taken in the create’s own transaction', async () => {
    const { client } = await api.caller();
    await client.post(BRANDS, { name: 'Warm-up' });
    expect((await roundTrips(() => client.post(BRANDS, { name: 'Counted' }))).calls).toEqual([
      'TransactWriteItemsCommand',
    ]);
    expect((await roundTrips(() => client.get('/api/v1/limits'))).calls).toEqual(['GetItemCommand']);
  });

  it("take the deployment's defaults from QUOTAS (cdk.json's quotas), a quota of 0 refusing every create", async () => {
    const { teamId, client } = await api.caller();
    useSettings({ QUOTAS: '{"sites": 0, "brands": 1}' });
    try {
      await expect(createSite(teamId, 'None', 'https://example.com')).rejects.toMatchObject({
        name: 'ValidationError',
      });
      expect((await client.post(BRANDS, { name: 'Only' })).status).toBe(201);
      expect((await client.post(BRANDS, { name: 'Second' })).body).toEqual(quotaError(1, 'brands'));
      expect((await client.get('/api/v1/limits')).body.quotas.contact_fields.limit).toBe(5000);
    } finally {
      restoreSettings();
    }
  });
});
