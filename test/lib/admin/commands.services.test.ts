import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandFlags, USAGE } from '../../../lib/admin/commands.ts';
import { hashToken } from '../../../shared/data/tokens.ts';
import { admin, useLocalConfigDir } from '../../support/processes.ts';

/**
 * The admin CLI's answers to a person finding their way: a mistyped command is told the
 * commands as text, revoking twice says when it was revoked, and teams and tokens can be listed. Each test
 * spawns the real CLI (tsx compiles it as it starts: the timeouts are for hangs only).
 */
const local = useLocalConfigDir('tm-admin-commands-');

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('an unknown command', () => {
  it('is told commands each of which has its usage', () => {
    for (const command of COMMANDS)
      expect(USAGE, command).toMatch(new RegExp(`(\\n  |\\s{3})${command}( |\\n|$)`));
    expect(commandFlags('token revoke')).toEqual(['--team', '--id', '--all', '--token']);
    expect(commandFlags('list get')).toEqual(['--team', '--id']);
  });

  it.each([
    [
      ['frobnicate', 'now'],
      'unknown command "frobnicate now": the commands are team create, team plan, team list, token create,',
    ],
    [
      ['team', 'frobnicate'],
      'unknown command "team frobnicate": the team commands are team create, team plan, team list\n',
    ],
    [
      ['token', 'lst', '--team', '1'],
      'unknown command "token lst": the token commands are token create, token list, token revoke\n',
    ],
    [[], 'no command given: the commands are team create,'],
  ])(
    '%j is told the valid commands and the usage as text on stderr, exit 2',
    async (args, first) => {
      // No local stack: a mistyped command needs none to be answered.
      const result = await admin(args, { ...local.env, DATA_DIR: join(local.dir, 'none') });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.startsWith(first)).toBe(true);
      expect(isJson(result.stderr)).toBe(false);
      expect(result.stderr).not.toContain('\\n');
      // The usage follows as lines of text.
      expect(result.stderr).toContain(
        '\nusage: npm run admin -- <command> [flags]\n  team create --name N\n',
      );
    },
    120_000,
  );
});

describe('an unknown flag', () => {
  it.each([
    [
      ['team', 'create', '--nme', 'Acme'],
      'unknown flag --nme for "team create": its flags are --name; target flags: --data-dir,',
    ],
    // Another command's flag: refused, not ignored.
    [
      ['list', 'get', '--team', '1', '--kind', 'email'],
      'unknown flag --kind for "list get": its flags are --team, --id; target flags:',
    ],
    [['migrate', '--all'], 'unknown flag --all for "migrate": it takes no flags; target flags: --data-dir,'],
  ])(
    '%j names the command’s flags (JSON on stderr, exit 1)',
    async (args, message) => {
      const result = await admin(args, { ...local.env, DATA_DIR: join(local.dir, 'none') });
      expect([result.code, result.stdout]).toEqual([1, '']);
      expect(result.error?.startsWith(message)).toBe(true);
    },
    120_000,
  );
});

describe('revoking a revoked token', () => {
  it('says it is already revoked and when, by token and by id; an unknown token is still "no such token"', async () => {
    const team = await admin(['team', 'create', '--name', 'Twice'], local.env);
    const teamId = String(team.json.team_id);
    const [byToken, byId] = await Promise.all([
      admin(['token', 'create', '--team', teamId, '--name', 'a'], local.env),
      admin(['token', 'create', '--team', teamId, '--name', 'b'], local.env),
    ]);
    const [first, firstById] = await Promise.all([
      admin(['token', 'revoke', '--token', byToken.json.token], local.env),
      admin(['token', 'revoke', '--team', teamId, '--id', String(byId.json.id)], local.env),
    ]);
    expect(first.json).toEqual({ revoked: true });
    expect(firstById.json).toEqual({ team_id: Number(teamId), id: byId.json.id, revoked: true });

    const [again, againById, unknown] = await Promise.all([
      admin(['token', 'revoke', '--token', byToken.json.token], local.env),
      admin(['token', 'revoke', '--team', teamId, '--id', String(byId.json.id)], local.env),
      admin(['token', 'revoke', '--token', `tm_standard_${teamId}_${'x'.repeat(43)}`], local.env),
    ]);
    const at = /already revoked at (\d{4}-\d{2}-\d{2}T[0-9:.]+Z)/;
    expect(again.code).toBe(1);
    expect(again.error).toMatch(at);
    expect(again.error).toContain(`(${byToken.json.prefix}, id ${byToken.json.id}, team ${teamId})`);
    const revokedAt = Date.parse(at.exec(again.error ?? '')?.[1] ?? '');
    expect(revokedAt).toBeGreaterThanOrEqual(Date.parse(byToken.json.created_at));
    expect(revokedAt).toBeLessThanOrEqual(Date.now());
    // Never the token or its hash.
    expect(again.stderr).not.toContain(byToken.json.token.slice(-20));
    expect(again.stderr).not.toContain(hashToken(byToken.json.token));
    expect([againById.code, againById.error]).toEqual([
      1,
      expect.stringMatching(new RegExp(`^team ${teamId}'s token ${byId.json.id} ${at.source}$`)),
    ]);
    expect([unknown.code, unknown.error]).toEqual([1, expect.stringMatching(/^no such token/)]);
    // Another team does not learn of this team's revoked token by its id.
    const other = await admin(['team', 'create', '--name', 'Other'], local.env);
    const foreign = await admin(
      ['token', 'revoke', '--team', String(other.json.team_id), '--id', String(byId.json.id)],
      local.env,
    );
    expect(foreign.error).toBe(`team ${other.json.team_id} has no token ${byId.json.id}`);
  });
});

describe('listing', () => {
  it('lists every team with its plan and creation time, and every team’s tokens without a team', async () => {
    const [acme, bulky] = await Promise.all([
      admin(['team', 'create', '--name', 'Listed Acme'], local.env),
      admin(['team', 'create', '--name', 'Listed Bulk'], local.env),
    ]);
    const bulkPlan = await admin(
      ['team', 'plan', '--team', String(bulky.json.team_id), '--plan', 'bulk'],
      local.env,
    );
    expect(bulkPlan.code).toBe(0);
    const [teams, tokens] = await Promise.all([
      admin(['team', 'list'], local.env),
      admin(['token', 'list'], local.env),
    ]);
    expect(teams.code).toBe(0);
    const listed = teams.json.teams as { id: number; name: string; plan: string; created_at: string }[];
    expect(listed.find((team) => team.id === acme.json.team_id)).toEqual({
      id: acme.json.team_id,
      name: 'Listed Acme',
      plan: 'standard',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(listed.find((team) => team.id === bulky.json.team_id)).toMatchObject({
      name: 'Listed Bulk',
      plan: 'bulk',
    });
    const ids = listed.map((team) => team.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    expect(tokens.code).toBe(0);
    const all = tokens.json.tokens as { team_id: number; id: number; prefix: string }[];
    const acmeTokens = all.filter((token) => token.team_id === acme.json.team_id);
    expect(acmeTokens).toEqual([
      expect.objectContaining({ team_id: acme.json.team_id, prefix: expect.stringMatching(/^tm_standard_/) }),
    ]);
    // The bulk team's reissued token and the one it replaces (working until the overlap ends).
    expect(all.filter((token) => token.team_id === bulky.json.team_id).map((token) => token.prefix)).toEqual([
      expect.stringMatching(/^tm_standard_/),
      expect.stringMatching(/^tm_bulk_/),
    ]);
    for (const token of [acme.json.token, bulky.json.token, bulkPlan.json.tokens[0].token]) {
      expect(tokens.stdout).not.toContain(token.slice(-20));
      expect(tokens.stdout).not.toContain(hashToken(token));
    }
  });
});
