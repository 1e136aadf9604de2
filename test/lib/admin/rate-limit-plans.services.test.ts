import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseCommandLine } from '../../../lib/admin/args.ts';
import { runCommand } from '../../../lib/admin/commands.ts';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import { teamTokensIndexPk, tokenKey } from '../../../shared/data/keys.ts';
import { getTeam } from '../../../shared/data/teams.ts';
import { countTokensToReissue, hashToken, tokenOwner } from '../../../shared/data/tokens.ts';
import { RATE_LIMIT_DEFAULTS } from '../../../shared/rate-limits.ts';
import { apiClient, useApi } from '../../support/api.ts';
import { FakeControlPlane } from '../../support/fake-control-plane.ts';
import { useOwnTable } from '../../support/own-table.ts';

/**
 * The admin CLI on a deployed stack (a stand-in for API Gateway's control plane that counts every call;
 * the table is DynamoDB Local): a token names its plan, so creating teams and moving one to a named plan are
 * data writes alone, no AWS call; a plan change reissues the team's tokens with an overlap. `migrate`
 * deletes the per-team API keys of the usage-plan design and counts the tokens still to reissue.
 */
const api = useApi();
const controlPlane = new FakeControlPlane();
const saved = { ...process.env };
beforeAll(async () => {
  const endpoint = await controlPlane.start();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_API_GATEWAY: endpoint,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  });
});
afterAll(async () => {
  for (const name of ['AWS_ENDPOINT_URL_API_GATEWAY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await controlPlane.stop();
});

const run = (...argv: string[]) =>
  runCommand(parseCommandLine([...argv, '--rest-api', 'abc123'])) as Promise<Record<string, unknown>>;
// biome-ignore lint/suspicious/noExplicitAny: the CLI prints loosely typed JSON, which the tests assert on.
type Printed = Record<string, any>;
/** The clock of this process (the CLI's, the authorizer's), stopped: expiry is tested without waiting. */
const stopClock = () => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
const setClock = (iso: string, plusMs: number) => vi.setSystemTime(new Date(iso).getTime() + plusMs);
afterEach(() => {
  vi.useRealTimers();
});

describe('admin CLI on a deployed stack: rate limit plans', () => {
  it('creates 1,000 teams with data writes alone: no control-plane call', async () => {
    const before = controlPlane.calls.length;
    const made: number[] = [];
    for (let batch = 0; batch < 50; batch++) {
      const teams = await Promise.all(
        Array.from({ length: 20 }, () => run('team', 'create', '--name', 'Scale')),
      );
      made.push(...teams.map((team) => Number(team.team_id)));
    }
    expect(new Set(made).size).toBe(1000);
    expect(controlPlane.calls.slice(before)).toEqual([]);
    const last = made.at(-1) as number;
    expect(await getTeam(last)).toMatchObject({ id: last, name: 'Scale' });
  });

  it('reissues each live token with the new plan in its first characters, the old one working until the overlap ends', async () => {
    const { team_id: teamId, token: first } = await run('team', 'create', '--name', 'Planned');
    const team = String(teamId);
    expect(first).toMatch(new RegExp(`^tm_standard_${team}_`));
    const named = (await run(
      'token',
      'create',
      '--team',
      team,
      '--name',
      'CI',
      '--scopes',
      'brands:read',
      '--expires',
      '30d',
    )) as Printed;
    const revoked = (await run('token', 'create', '--team', team)) as Printed;
    await run('token', 'revoke', '--team', team, '--id', String(revoked.id));
    const before = controlPlane.calls.length;
    stopClock();
    const moved = (await run('team', 'plan', '--team', team, '--plan', 'bulk', '--overlap', '2s')) as Printed;
    expect(controlPlane.calls.slice(before)).toEqual([]);
    expect(moved).toMatchObject({ team_id: teamId, plan: 'bulk', previous_plan: null });
    expect(moved.note).toMatch(/2 token\(s\) reissued .*tm_bulk_/);
    // The two live tokens, not the revoked one; same name, scopes and expiry.
    expect(moved.tokens).toHaveLength(2);
    const reissuedNamed = moved.tokens.find((token: Printed) => token.replaces === named.id);
    expect(reissuedNamed).toMatchObject({
      name: 'CI',
      scopes: ['brands:read'],
      expires_at: named.expires_at,
      token: expect.stringMatching(new RegExp(`^tm_bulk_${team}_[0-9A-Za-z]{43}$`)),
      replaced_expires_at: moved.overlap_ends_at,
    });
    for (const { token } of moved.tokens) {
      expect(await tokenOwner(token)).toMatchObject({ teamId, rateLimitPlan: 'bulk' });
      // GET /limits reports the plan the new token names: the one WAF counts it under.
      const limits = await apiClient(api.url, token).get('/api/v1/limits');
      expect(limits.body.rate_limit).toMatchObject({
        plan: 'bulk',
        limit: RATE_LIMIT_DEFAULTS.plans.bulk?.limit,
      });
    }
    // The old tokens still work, counted in their old plan, until the overlap ends; then they stop.
    const old = apiClient(api.url, String(first));
    const oldLimits = await old.get('/api/v1/limits');
    expect([oldLimits.status, oldLimits.body.rate_limit.plan]).toEqual([200, 'standard']);
    const listed = (await run('token', 'list', '--team', team)) as Printed;
    const newIds = moved.tokens.map((token: Printed) => token.id);
    expect(listed.tokens.map((token: Printed) => token.id)).toEqual([
      expect.any(Number),
      named.id,
      ...newIds,
    ]);
    expect(listed.tokens[1]).toMatchObject({
      replaced_by: reissuedNamed.id,
      expires_at: moved.overlap_ends_at,
    });
    setClock(moved.overlap_ends_at, -1);
    expect((await old.get('/api/v1/limits')).status).toBe(200);
    setClock(moved.overlap_ends_at, 0);
    expect((await old.get('/api/v1/limits')).status).toBe(401);
    expect((await apiClient(api.url, reissuedNamed.token).get('/api/v1/brands')).status).toBe(200);

    // Moving again reissues the new tokens only: the replaced ones are on their way out.
    const back = (await run('team', 'plan', '--team', team, '--plan', 'standard')) as Printed;
    expect(back.previous_plan).toBe('bulk');
    expect(back.tokens.map((token: Printed) => token.replaces).sort()).toEqual(newIds.sort());
    // The plan unchanged: every token already names it, none is reissued.
    expect(((await run('team', 'plan', '--team', team, '--plan', 'standard')) as Printed).tokens).toEqual([]);
  });

  it('takes a deployed stack’s plans from --default-plan and --plans', async () => {
    const { team_id: teamId } = await run('team', 'create', '--name', 'Gold', '--default-plan', 'basic');
    const team = String(teamId);
    const flags = ['--default-plan', 'basic', '--plans', 'basic,gold'];
    const token = (await run('token', 'create', '--team', team, ...flags)) as Printed;
    expect(token.token).toMatch(new RegExp(`^tm_basic_${team}_`));
    await expect(run('team', 'plan', '--team', team, '--plan', 'bulk', ...flags)).rejects.toThrow(
      '--plan must be one of basic, gold',
    );
    const moved = (await run('team', 'plan', '--team', team, '--plan', 'gold', ...flags)) as Printed;
    expect(moved.tokens[0].token).toMatch(new RegExp(`^tm_gold_${team}_`));
  });

  describe('on a table of its own (`migrate` works on the whole table, here 1,000 teams and more)', () => {
    useOwnTable();
    it('migrates: counts the tokens of named-plan teams made before tokens named their plan, and deletes the old per-team API keys, resumably', async () => {
      const { team_id: teamId } = await run('team', 'create', '--name', 'Migrated');
      const team = Number(teamId);
      await run('team', 'plan', '--team', String(team), '--plan', 'bulk');
      // A token of the `tm_<team>_<secret>` form, as made before tokens named their plan: no id, no prefix.
      const legacy = `tm_${team}_${'L'.repeat(43)}`;
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...tokenKey(hashToken(legacy)),
            gsi1pk: teamTokensIndexPk(team),
            gsi1sk: 'TOKEN',
            team_id: team,
          },
        }),
      );
      const ofTeam = () => countTokensToReissue(new Map([[team, 'bulk']]), ['bulk']);
      expect(await ofTeam()).toBe(1);
      expect(await tokenOwner(legacy)).toMatchObject({ teamId: team, rateLimitPlan: undefined });
      controlPlane.apiKeys.set('k1', 'team-1-abc123');
      controlPlane.apiKeys.set('k2', 'team-51-abc123');
      controlPlane.apiKeys.set('k3', 'team-51-otherapi');
      controlPlane.apiKeys.set('k4', 'partner-key');
      const migrated = (await run('migrate')) as Printed;
      expect(migrated.team_api_keys_deleted).toBe(2);
      expect([...controlPlane.apiKeys.keys()]).toEqual(['k3', 'k4']);
      expect(migrated.tokens_to_reissue).toBeGreaterThanOrEqual(1);
      expect(migrated.tokens_numbered).toBeGreaterThanOrEqual(1);
      // Numbered: listed with an id, so it can be revoked by it.
      const listed = ((await run('token', 'list', '--team', String(team))) as Printed).tokens.find(
        (token: Printed) => token.prefix === null,
      );
      expect(listed).toMatchObject({ id: expect.any(Number), prefix: null, scopes: 'all' });
      // `team plan` again reissues it with the plan's prefix.
      const again = (await run('team', 'plan', '--team', String(team), '--plan', 'bulk')) as Printed;
      expect(again.tokens).toEqual([expect.objectContaining({ replaces: listed.id })]);
      expect(await ofTeam()).toBe(0);
      // Run again (after an interruption, say): nothing is left to delete.
      expect(((await run('migrate')) as Printed).team_api_keys_deleted).toBe(0);
    });
  });
});
