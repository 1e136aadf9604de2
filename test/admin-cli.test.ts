import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenOwner } from '../shared/data/teams.ts';
import { s3 } from '../shared/files/s3.ts';
import { LIMITS } from '../shared/limits.ts';
import { admin, writeTestRunLocalConfig } from './support/processes.ts';

/** The admin CLI against the test run's DynamoDB Local and s3rver, found through a local.json. */
let dataDir = '';
let env: Record<string, string>;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tm-admin-'));
  await writeTestRunLocalConfig(dataDir);
  // The CLI must find its target through local.json alone.
  env = { DATA_DIR: dataDir, TABLE_NAME: '', DYNAMODB_ENDPOINT: '', S3_ENDPOINT: '' };
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('admin CLI', () => {
  it('creates the entities the dashboard would, each printing one JSON object', async () => {
    const team = await admin(['team', 'create', '--name', 'Acme'], env);
    expect(team.code).toBe(0);
    const teamId = String(team.json.team_id);

    const [token, site, identity, field, list] = await Promise.all([
      admin(['token', 'create', '--team', teamId], env),
      admin(['site', 'create', '--team', teamId, '--name', 'Main', '--domain', 'https://example.com'], env),
      admin(['identity', 'create', '--team', teamId, '--kind', 'email', '--value', 'a@example.com'], env),
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
        env,
      ),
      admin(['list', 'create', '--team', teamId, '--kind', 'email', '--name', 'News'], env),
    ]);
    expect(token.json).toEqual({
      token: expect.stringMatching(new RegExp(`^tm_${teamId}_[0-9A-Za-z]{43}$`)),
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
      env,
    );
    expect(page.json).toEqual({ page_id: expect.any(Number) });
    const got = await admin(['list', 'get', '--team', teamId, '--id', String(list.json.list_id)], env);
    expect(got.json).toMatchObject({ id: list.json.list_id, kind: 'email', name: 'News', brand_id: null });

    const revoked = await admin(['token', 'revoke', '--token', token.json.token], env);
    expect(revoked.json).toEqual({ revoked: true });
  }, 60_000);

  it(`refuses a site's or a page's name, domain or URL over ${LIMITS.textLength} characters`, async () => {
    const team = await admin(['team', 'create', '--name', 'Long'], env);
    const teamId = String(team.json.team_id);
    const long = 'x'.repeat(LIMITS.textLength + 1);
    const site = await admin(
      ['site', 'create', '--team', teamId, '--name', long, '--domain', 'https://a.example'],
      env,
    );
    expect([site.code, site.stderr]).toEqual([1, expect.stringContaining('--name')]);
    const domain = `https://${'d'.repeat(LIMITS.textLength)}.example`;
    const wide = await admin(['site', 'create', '--team', teamId, '--name', 'Main', '--domain', domain], env);
    expect([wide.code, wide.stderr]).toEqual([1, expect.stringContaining('--domain')]);
    const made = await admin(
      ['site', 'create', '--team', teamId, '--name', 'Main', '--domain', 'https://a.example'],
      env,
    );
    const siteId = String(made.json.site_id);
    const page = (name: string, url: string) =>
      admin(['page', 'create', '--team', teamId, '--site', siteId, '--name', name, '--url', url], env);
    expect((await page(long, '/a')).stderr).toContain('--name');
    expect((await page('A', `/${long}`)).stderr).toContain('--url');
    expect((await page('x'.repeat(LIMITS.textLength), `/${'u'.repeat(LIMITS.textLength - 1)}`)).code).toBe(0);
  }, 60_000);

  it('assigns a team to a rate limit plan, telling the plan it had', async () => {
    const team = await admin(['team', 'create', '--name', 'Planned'], env);
    const teamId = String(team.json.team_id);
    const bulk = await admin(['team', 'plan', '--team', teamId, '--plan', 'bulk'], env);
    expect(bulk.code).toBe(0);
    expect(bulk.json).toEqual({ team_id: Number(teamId), plan: 'bulk', previous_plan: null });
    const token = String(team.json.token);
    expect((await tokenOwner(token))?.rateLimitPlan).toBe('bulk');
    const standard = await admin(['team', 'plan', '--team', teamId, '--plan', 'standard'], env);
    expect(standard.json).toMatchObject({ plan: 'standard', previous_plan: 'bulk' });
    // Only the deployment's plans.
    const unknown = await admin(['team', 'plan', '--team', teamId, '--plan', 'gold'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--plan');
    expect((await tokenOwner(token))?.rateLimitPlan).toBe('standard');
  });

  it('refuses to assign a plan on a deployed stack without its plan sets', async () => {
    const deployed = { DATA_DIR: join(dataDir, 'none'), DYNAMODB_ENDPOINT: '', AWS_REGION: 'eu-west-1' };
    const planned = await admin(['team', 'plan', '--team', '1', '--plan', 'bulk', '--table', 't'], deployed);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain('--plan-sets');
  });

  it('puts a file into the team library', async () => {
    const team = await admin(['team', 'create', '--name', 'Files'], env);
    const file = join(dataDir, 'logo.png');
    await writeFile(file, Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    const put = await admin(
      ['file', 'put', '--team', String(team.json.team_id), '--path', 'logos/a.png', '--file', file],
      env,
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
    [['frobnicate', 'now'], /unknown command/],
    [['team', 'create', '--bogus', 'x'], /bogus/],
    [['token', 'revoke', '--token', 'tm_nope'], /no such token/],
    [['team', 'plan', '--team', '1', '--plan', 'gold'], /--plan must be one of standard, bulk/],
    [['team', 'plan', '--team', '999999999', '--plan', 'bulk'], /no team 999999999/],
  ])('refuses %j with a clear message and a non-zero exit', async (args, message) => {
    const result = await admin(args, env);
    expect(result.code).not.toBe(0);
    expect(result.error).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('explains how to target a stack when there is no local one', async () => {
    const result = await admin(['team', 'create', '--name', 'X'], {
      ...env,
      DATA_DIR: join(dataDir, 'none'),
    });
    expect(result.code).toBe(1);
    expect(result.error).toMatch(/run npm start first/);
  });
});
