import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { hashToken, issueToken, listTokens, tokenOwner } from '../../shared/data/tokens.ts';
import { s3 } from '../../shared/files/s3.ts';
import { LIMITS } from '../../shared/limits.ts';
import { apiClient, useApi } from '../support/api.ts';
import { admin, useLocalConfigDir } from '../support/processes.ts';

/**
 * The admin CLI against the test run's DynamoDB Local and s3rver, found through a local.json; the tokens it
 * makes are used against the local gateway.
 */
const api = useApi();
const local = useLocalConfigDir('tm-admin-');

describe('admin CLI', () => {
  it('refuses a token past the live tokens a team may hold, saying what to do, and makes none', async () => {
    const team = await admin(['team', 'create', '--name', 'Full'], local.env);
    const teamId = Number(team.json.team_id);
    // team create made one; the rest up to the bound made here, as the dashboard would.
    for (let i = 1; i < LIMITS.liveTokensPerTeam; i++) await issueToken(teamId, { name: `token ${i}` });
    const refused = await admin(['token', 'create', '--team', String(teamId)], local.env);
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(refused.error).toBe(
      `team ${teamId} has ${LIMITS.liveTokensPerTeam} live tokens, the most a team may hold ` +
        `(${LIMITS.liveTokensPerTeam}): revoke one it no longer uses first (token list shows them)`,
    );
    expect(await listTokens(teamId)).toHaveLength(LIMITS.liveTokensPerTeam);
  });

  it('creates the entities the dashboard would, each printing one JSON object', async () => {
    const team = await admin(['team', 'create', '--name', 'Acme'], local.env);
    expect(team.code).toBe(0);
    const teamId = String(team.json.team_id);

    const [token, site, identity, field, list] = await Promise.all([
      admin(['token', 'create', '--team', teamId], local.env),
      admin(
        ['site', 'create', '--team', teamId, '--name', 'Main', '--domain', 'https://example.com'],
        local.env,
      ),
      admin(
        ['identity', 'create', '--team', teamId, '--kind', 'email', '--value', 'a@example.com'],
        local.env,
      ),
      admin(
        [
          'field',
          'create',
          '--team',
          teamId,
          '--integration',
          '7',
          '--name',
          'CRM id',
          '--tag',
          'crm_id',
        ].concat(['--type', 'text', '--contact-type', 'person']),
        local.env,
      ),
      admin(['list', 'create', '--team', teamId, '--kind', 'email', '--name', 'News'], local.env),
    ]);
    expect(token.json).toEqual({
      token: expect.stringMatching(new RegExp(`^tm_standard_${teamId}_[0-9A-Za-z]{43}$`)),
      id: expect.any(Number),
      name: null,
      prefix: `${token.json.token.slice(0, `tm_standard_${teamId}_`.length + 4)}…`,
      scopes: 'all',
      created_at: expect.any(String),
      expires_at: null,
    });
    expect(site.json).toEqual({ site_id: expect.any(Number) });
    expect(identity.json).toEqual({ identity_id: expect.any(Number) });
    expect(field.json).toEqual({
      id: expect.any(Number),
      name: 'CRM id',
      tag: 'crm_id',
      type: 'text',
      contact_type: 'person',
      max_length: 255,
      options: null,
      allow_multiple: false,
      integration_id: 7,
    });
    expect(list.json).toEqual({ list_id: expect.any(Number), brand_id: null });

    const page = await admin(
      [
        'page',
        'create',
        '--team',
        teamId,
        '--site',
        String(site.json.site_id),
        '--name',
        'Thanks',
        '--url',
        '/thanks',
      ],
      local.env,
    );
    expect(page.json).toEqual({ page_id: expect.any(Number) });
    const got = await admin(['list', 'get', '--team', teamId, '--id', String(list.json.list_id)], local.env);
    expect(got.json).toMatchObject({ id: list.json.list_id, kind: 'email', name: 'News', brand_id: null });

    const revoked = await admin(['token', 'revoke', '--token', token.json.token], local.env);
    expect(revoked.json).toEqual({ revoked: true });
  });

  it(`refuses a site's or a page's name, domain or URL over ${LIMITS.textLength} characters`, async () => {
    const team = await admin(['team', 'create', '--name', 'Long'], local.env);
    const teamId = String(team.json.team_id);
    const long = 'x'.repeat(LIMITS.textLength + 1);
    const site = await admin(
      ['site', 'create', '--team', teamId, '--name', long, '--domain', 'https://a.example'],
      local.env,
    );
    expect([site.code, site.stderr]).toEqual([1, expect.stringContaining('--name')]);
    const domain = `https://${'d'.repeat(LIMITS.textLength)}.example`;
    const wide = await admin(
      ['site', 'create', '--team', teamId, '--name', 'Main', '--domain', domain],
      local.env,
    );
    expect([wide.code, wide.stderr]).toEqual([1, expect.stringContaining('--domain')]);
    const made = await admin(
      ['site', 'create', '--team', teamId, '--name', 'Main', '--domain', 'https://a.example'],
      local.env,
    );
    const siteId = String(made.json.site_id);
    const page = (name: string, url: string) =>
      admin(['page', 'create', '--team', teamId, '--site', siteId, '--name', name, '--url', url], local.env);
    expect((await page(long, '/a')).stderr).toContain('--name');
    expect((await page('A', `/${long}`)).stderr).toContain('--url');
    expect((await page('x'.repeat(LIMITS.textLength), `/${'u'.repeat(LIMITS.textLength - 1)}`)).code).toBe(0);
  });

  it('assigns a team to a rate limit plan, telling the plan it had and reissuing its token with it', async () => {
    const team = await admin(['team', 'create', '--name', 'Planned'], local.env);
    const teamId = String(team.json.team_id);
    const token = String(team.json.token);
    expect((await tokenOwner(token))?.rateLimitPlan).toBe('standard');
    const bulk = await admin(['team', 'plan', '--team', teamId, '--plan', 'bulk'], local.env);
    expect(bulk.code).toBe(0);
    expect(bulk.json).toMatchObject({ team_id: Number(teamId), plan: 'bulk', previous_plan: null });
    expect(bulk.json.note).toContain('reissued');
    const [reissued] = bulk.json.tokens;
    expect((await tokenOwner(reissued.token))?.rateLimitPlan).toBe('bulk');
    // The old token works on through the overlap (24 hours by default), in the plan it names.
    expect(Date.parse(reissued.replaced_expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect((await tokenOwner(token))?.rateLimitPlan).toBe('standard');
    const standard = await admin(['team', 'plan', '--team', teamId, '--plan', 'standard'], local.env);
    expect(standard.json).toMatchObject({ plan: 'standard', previous_plan: 'bulk' });
    // Only the deployment's plans.
    const unknown = await admin(['team', 'plan', '--team', teamId, '--plan', 'gold'], local.env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--plan');
    expect((await tokenOwner(standard.json.tokens[0].token))?.rateLimitPlan).toBe('standard');
  });

  it('creates a token with a name, scopes and an expiry, and lists the team’s tokens by their first characters only', async () => {
    const team = await admin(['team', 'create', '--name', 'Lifecycle'], local.env);
    const teamId = String(team.json.team_id);
    const created = await admin(
      [
        'token',
        'create',
        '--team',
        teamId,
        '--name',
        'Zapier',
        '--scopes',
        'brands:read,webhooks:write',
        '--expires',
        '90d',
      ],
      local.env,
    );
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ name: 'Zapier', scopes: ['brands:read', 'webhooks:write'] });
    const days = (Date.parse(created.json.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);
    const owner = await tokenOwner(created.json.token);
    expect(owner).toMatchObject({ scopes: ['brands:read', 'webhooks:write'] });
    expect(owner?.expiresAt?.toISOString()).toBe(created.json.expires_at);
    const dated = await admin(['token', 'create', '--team', teamId, '--expires', '2099-01-31'], local.env);
    expect(dated.json.expires_at).toBe('2099-01-31T00:00:00.000Z');

    const list = () => admin(['token', 'list', '--team', teamId], local.env);
    const before = await list();
    expect(before.json.tokens).toEqual([
      expect.objectContaining({ id: expect.any(Number), name: null, scopes: 'all', expires_at: null }),
      {
        id: created.json.id,
        name: 'Zapier',
        prefix: created.json.prefix,
        scopes: ['brands:read', 'webhooks:write'],
        created_at: created.json.created_at,
        expires_at: created.json.expires_at,
        last_used_on: null,
        replaced_by: null,
      },
      expect.objectContaining({ id: dated.json.id }),
    ]);
    // Enough to recognise a token, never the token or its hash.
    expect(created.json.prefix).toMatch(new RegExp(`^tm_standard_${teamId}_[0-9A-Za-z]{4}…$`));
    for (const token of [team.json.token, created.json.token, dated.json.token]) {
      expect(before.stdout).not.toContain(token.slice(-20));
      expect(before.stdout).not.toContain(hashToken(token));
    }
    // Used today: the listing says so.
    expect((await apiClient(api.url, created.json.token).get('/api/v1/brands')).status).toBe(200);
    const after = await list();
    const today = new Date().toISOString().slice(0, 10);
    expect(after.json.tokens[1].last_used_on).toBe(today);
    expect(after.json.tokens[0].last_used_on).toBeNull();
  });

  it('revokes a token by id and every token of a team, refusing another team’s id', async () => {
    const [mine, theirs] = await Promise.all([
      admin(['team', 'create', '--name', 'Mine'], local.env),
      admin(['team', 'create', '--name', 'Theirs'], local.env),
    ]);
    const teamId = String(mine.json.team_id);
    const [second, third, other] = await Promise.all([
      admin(['token', 'create', '--team', teamId, '--name', 'second'], local.env),
      admin(['token', 'create', '--team', teamId, '--name', 'third'], local.env),
      admin(['token', 'create', '--team', String(theirs.json.team_id)], local.env),
    ]);
    const status = async (token: string) => (await apiClient(api.url, token).get('/api/v1/brands')).status;
    expect(await status(second.json.token)).toBe(200);

    const refused = await admin(
      ['token', 'revoke', '--team', teamId, '--id', String(other.json.id)],
      local.env,
    );
    expect([refused.code, refused.error]).toEqual([1, `team ${teamId} has no token ${other.json.id}`]);
    expect(await status(other.json.token)).toBe(200);

    const byId = await admin(
      ['token', 'revoke', '--team', teamId, '--id', String(second.json.id)],
      local.env,
    );
    expect(byId.json).toEqual({ team_id: Number(teamId), id: second.json.id, revoked: true });
    expect(await status(second.json.token)).toBe(401);
    expect(await status(third.json.token)).toBe(200);
    const again = await admin(
      ['token', 'revoke', '--team', teamId, '--id', String(second.json.id)],
      local.env,
    );
    expect(again.error).toMatch(
      new RegExp(`^team ${teamId}'s token ${second.json.id} already revoked at \\d{4}-`),
    );

    const all = await admin(['token', 'revoke', '--team', teamId, '--all'], local.env);
    expect(all.json).toEqual({ team_id: Number(teamId), revoked: 2 });
    expect(await status(third.json.token)).toBe(401);
    expect(await status(mine.json.token)).toBe(401);
    expect((await admin(['token', 'list', '--team', teamId], local.env)).json.tokens).toEqual([]);
    // Another team's tokens are untouched.
    expect(await status(other.json.token)).toBe(200);
  });

  it('puts a file into the team library', async () => {
    const team = await admin(['team', 'create', '--name', 'Files'], local.env);
    const file = join(local.dir, 'logo.png');
    await writeFile(file, Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    const put = await admin(
      ['file', 'put', '--team', String(team.json.team_id), '--path', 'logos/a.png', '--file', file],
      local.env,
    );
    expect(put.json).toEqual({ path: 'logos/a.png' });
    const object = await s3().send(
      new GetObjectCommand({
        Bucket: process.env.PRIVATE_BUCKET,
        Key: `teams/${team.json.team_id}/logos/a.png`,
      }),
    );
    expect(object.ContentType).toBe('image/png');
    expect(Buffer.from(await (object.Body?.transformToByteArray() ?? new Uint8Array()))).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]),
    );
  });

  it.each([
    [['team', 'create'], /--name is required/],
    [['token', 'create', '--team', 'abc'], /--team must be a positive integer/],
    [['token', 'create', '--team', '999999999'], /no team 999999999/],
    [
      ['identity', 'create', '--team', '1', '--kind', 'fax', '--value', 'x'],
      /--kind must be one of email, phone|no team/,
    ],
    [['team', 'create', '--bogus', 'x'], /bogus/],
    [['token', 'revoke', '--token', 'tm_nope'], /no such token/],
    [['team', 'plan', '--team', '1', '--plan', 'gold'], /--plan must be one of standard, bulk/],
    [['team', 'plan', '--team', '999999999', '--plan', 'bulk'], /no team 999999999/],
    [['team', 'plan', '--team', '1', '--plan', 'bulk', '--overlap', 'a day'], /--overlap must be a duration/],
    [
      ['token', 'create', '--team', '1', '--scopes', 'brands:read,brands:delete'],
      /--scopes: unknown scope "brands:delete"; valid scopes: brands:read, brands:write, .*webhooks:write .*or all/,
    ],
    [
      ['token', 'create', '--team', '1', '--expires', '2001-01-01'],
      /--expires 2001-01-01 is not in the future/,
    ],
    [['token', 'create', '--team', '1', '--expires', 'soon'], /--expires must be an ISO date/],
    [['token', 'create', '--team', '1', '--expires', '0d'], /not in the future/],
    [['token', 'revoke', '--team', '1'], /--id is required/],
  ])('refuses %j with a clear message and a non-zero exit', async (args, message) => {
    const result = await admin(args, local.env);
    expect(result.code).not.toBe(0);
    expect(result.error).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('explains how to target a stack when there is no local one', async () => {
    const result = await admin(['team', 'create', '--name', 'X'], {
      ...local.env,
      DATA_DIR: join(local.dir, 'none'),
    });
    expect(result.code).toBe(1);
    expect(result.error).toMatch(/run npm start first/);
  });
});
