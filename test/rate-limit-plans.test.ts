import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../lib/admin/args.ts';
import { runCommand } from '../lib/admin/commands.ts';
import { getTeam, tokenOwner } from '../shared/data/teams.ts';
import { EMPTY_PLAN_PATTERN, planSetPatterns, planSetTeams } from '../shared/rate-limits.ts';
import { FakeControlPlane } from './support/fake-control-plane.ts';

/**
 * The admin CLI against a deployed stack's control planes (a stand-in that counts every call; the table is
 * DynamoDB Local): creating teams calls none, assigning a named plan writes the plan's WAF regex pattern set,
 * and `migrate` rewrites the sets from the table and deletes the per-team API keys of the usage-plan design.
 */
const controlPlane = new FakeControlPlane();
let planSets = '';
const saved = { ...process.env };
beforeAll(async () => {
  const endpoint = await controlPlane.start();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_WAFV2: endpoint,
    AWS_ENDPOINT_URL_API_GATEWAY: endpoint,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  });
  planSets = `bulk=${controlPlane.addSet('TeamMessagingApi-plan-bulk', 'bulk-set-id', [EMPTY_PLAN_PATTERN])}`;
});
afterAll(async () => {
  for (const name of [
    'AWS_ENDPOINT_URL_WAFV2',
    'AWS_ENDPOINT_URL_API_GATEWAY',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
  ]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await controlPlane.stop();
});

const deployedFlags = () => ['--plan-sets', planSets, '--default-plan', 'standard', '--rest-api', 'abc123'];
const run = (...argv: string[]) =>
  runCommand(parseCommandLine([...argv, ...deployedFlags()])) as Promise<Record<string, unknown>>;
const bulkTeams = () => planSetTeams(controlPlane.sets.get('bulk-set-id')?.patterns ?? []);

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
  }, 120_000);

  it('puts a team in its named plan’s set and takes it out again, stamping its tokens', async () => {
    const { team_id: teamId, token } = await run('team', 'create', '--name', 'Planned');
    const before = controlPlane.calls.length;
    expect(await run('team', 'plan', '--team', String(teamId), '--plan', 'bulk')).toEqual({
      team_id: teamId,
      plan: 'bulk',
      previous_plan: null,
    });
    expect(controlPlane.calls.slice(before)).toEqual(['GetRegexPatternSet', 'UpdateRegexPatternSet']);
    expect(bulkTeams().has(Number(teamId))).toBe(true);
    expect(await tokenOwner(String(token))).toMatchObject({ teamId, rateLimitPlan: 'bulk' });
    // A token made after the assignment carries the plan too.
    const { token: later } = await run('token', 'create', '--team', String(teamId));
    expect((await tokenOwner(String(later)))?.rateLimitPlan).toBe('bulk');

    await run('team', 'plan', '--team', String(teamId), '--plan', 'standard');
    expect(bulkTeams().has(Number(teamId))).toBe(false);
    expect(await tokenOwner(String(token))).toMatchObject({ teamId, rateLimitPlan: 'standard' });
  });

  it('writes the set again when another writer changed it in between', async () => {
    const { team_id: teamId } = await run('team', 'create', '--name', 'Contended');
    controlPlane.lockConflicts = 1;
    const before = controlPlane.calls.length;
    await run('team', 'plan', '--team', String(teamId), '--plan', 'bulk');
    expect(controlPlane.calls.slice(before)).toEqual([
      'GetRegexPatternSet',
      'UpdateRegexPatternSet',
      'GetRegexPatternSet',
      'UpdateRegexPatternSet',
    ]);
    expect(bulkTeams().has(Number(teamId))).toBe(true);
  });

  it('refuses a team its plan’s set has no room for, and records nothing', async () => {
    const set = controlPlane.sets.get('bulk-set-id');
    if (!set) throw new Error('no set');
    const saved = set.patterns;
    const { team_id: teamId } = await run('team', 'create', '--name', 'Overflow');
    // As many seven-digit team ids as WAF's quota of a set allows, with no room left for one more.
    const full: number[] = [];
    while (planSetPatterns([...full, 1_000_000 + full.length])) full.push(1_000_000 + full.length);
    expect(planSetPatterns([...full, Number(teamId)])).toBeUndefined();
    set.patterns = planSetPatterns(full) as string[];
    await expect(run('team', 'plan', '--team', String(teamId), '--plan', 'bulk')).rejects.toThrow(
      /plan bulk is full/,
    );
    expect(bulkTeams().has(Number(teamId))).toBe(false);
    const { team_id: again } = await run('team', 'plan', '--team', String(teamId), '--plan', 'standard');
    expect(again).toBe(teamId);
    set.patterns = saved;
  });

  it('migrates: every named-plan team into its set, and the old per-team API keys deleted, resumably', async () => {
    const { team_id: teamId } = await run('team', 'create', '--name', 'Migrated');
    await run('team', 'plan', '--team', String(teamId), '--plan', 'bulk');
    // A deploy that reset the set to what the stack declares.
    const set = controlPlane.sets.get('bulk-set-id');
    if (set) set.patterns = [EMPTY_PLAN_PATTERN];
    controlPlane.apiKeys.set('k1', 'team-1-abc123');
    controlPlane.apiKeys.set('k2', 'team-51-abc123');
    controlPlane.apiKeys.set('k3', 'team-51-otherapi');
    controlPlane.apiKeys.set('k4', 'partner-key');
    const migrated = await run('migrate');
    expect(migrated.team_api_keys_deleted).toBe(2);
    expect([...controlPlane.apiKeys.keys()]).toEqual(['k3', 'k4']);
    expect(bulkTeams().has(Number(teamId))).toBe(true);
    expect((migrated.plan_set_teams as Record<string, number>).bulk).toBe(bulkTeams().size);
    // Run again (after an interruption, say): nothing is left to delete.
    expect((await run('migrate')).team_api_keys_deleted).toBe(0);
  }, 60_000);
});
