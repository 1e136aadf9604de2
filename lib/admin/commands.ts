import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { config } from '../../shared/config.ts';
import { contactFieldView, createContactField } from '../../shared/data/contact-fields.ts';
import { createIdentity } from '../../shared/data/identities.ts';
import { createList, getList } from '../../shared/data/lists.ts';
import { createPage } from '../../shared/data/pages.ts';
import { getQuotas, QUOTA_KINDS, recountUsage, setQuota } from '../../shared/data/quotas.ts';
import { createSite } from '../../shared/data/sites.ts';
import { createTeam, getTeam, listTeams, teamPlans } from '../../shared/data/teams.ts';
import {
  changeTeamPlan,
  countTokensToReissue,
  issueToken,
  listAllTokens,
  listTokens,
  revokeAllTokens,
  revokeToken,
  revokeTokenById,
  TokenLimitError,
  tokenRevocation,
  tokenRevocationById,
  wholeSecond,
} from '../../shared/data/tokens.ts';
import { newContactFieldSchema } from '../../shared/domain/contact-field-input.ts';
import { validate } from '../../shared/domain/validation.ts';
import { putPrivateFile } from '../../shared/files/library.ts';
import { LIMITS } from '../../shared/limits.ts';
import { type Args, UnknownCommandError, UsageError } from './args.ts';
import { deleteTeamApiKeys } from './legacy-api-keys.ts';
import { migrateDefaultPointers, stampDefaultBrands } from './migrations/brands.ts';
import { moveEventLogs } from './migrations/events.ts';
import { numberTokens } from './migrations/tokens.ts';
import { migrateDeliveryKeys } from './migrations/webhook-deliveries.ts';
import { moveWebhookEndpoints, sealPlaintextSecrets } from './migrations/webhook-endpoints.ts';
import { parseExpiry, parseOverlapMs, parseScopes } from './token-flags.ts';

/**
 * The admin CLI's commands: what the team dashboard would do, written with the same data modules as the
 * API. Loaded only once the target stack's environment is set (the modules read it when loaded).
 */

/**
 * A command of the CLI, a row of COMMAND_TABLE as a route is a row of the route table: its name, its usage
 * (the forms it takes; the flags there are the only ones it accepts, and `help <command>` shows it), its
 * parser, which reads and checks the flags (a team named must exist) before anything is done, and its
 * action, which does the command with what the parser read and answers one JSON value.
 */
export interface AdminCommand<Input = unknown> {
  name: string;
  usage: string;
  /** Shown on the usage line of the command before it (two short commands of one entity). */
  sharesLine?: true;
  parse(args: Args): Promise<Input>;
  run(input: Input): Promise<unknown>;
}

/** A row of the table, its action typed by what its parser reads. */
const command = <Input>(row: AdminCommand<Input>): AdminCommand => row;

const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
};

/**
 * The deployment's rate limit plans: the configuration's (RATE_LIMITS, else cdk.json's defaults), or a
 * deployed stack's as `--default-plan` and `--plans` name them. Nothing in AWS is per plan or per team:
 * a token names its plan (shared/data/tokens.ts), so the CLI needs the plans' names alone.
 */
function plans(args: Args): { names: string[]; defaultPlan: string } {
  const configured = config.rateLimits();
  const defaultPlan = args.optional('default-plan') ?? configured.defaultPlan;
  const listed = args
    .optional('plans')
    ?.split(',')
    .map((plan) => plan.trim())
    .filter(Boolean);
  const names = listed ?? Object.keys(configured.plans);
  return { names: names.includes(defaultPlan) ? names : [defaultPlan, ...names], defaultPlan };
}

/** A site's or page's string: the pages API answers it, and documents its length. */
function pageText(args: Args, name: string): string {
  const value = args.text(name);
  if (value.length > LIMITS.textLength) {
    throw new UsageError(`--${name} must be at most ${LIMITS.textLength} characters`);
  }
  return value;
}

/** `--team`, a team there is. */
async function team(args: Args): Promise<number> {
  const id = args.integer('team');
  if (!(await getTeam(id))) throw new UsageError(`no team ${id}`);
  return id;
}

function tokenName(args: Args): string | undefined {
  const name = args.optional('name');
  if (name !== undefined && (name.trim() === '' || name.length > LIMITS.textLength)) {
    throw new UsageError(`--name must be 1 to ${LIMITS.textLength} characters`);
  }
  return name;
}

/** `token revoke`'s three forms: one token by its text, or a team's token by id, or all of a team's. */
type Revocation = { token: string } | { teamId: number; all: true } | { teamId: number; id: number };

async function revoke(revocation: Revocation): Promise<unknown> {
  if ('token' in revocation) {
    const { token } = revocation;
    if (await revokeToken(token)) return { revoked: true };
    const revoked = await tokenRevocation(token);
    if (revoked) {
      const which = [revoked.prefix, revoked.id !== null && `id ${revoked.id}`, `team ${revoked.team_id}`];
      throw new UsageError(
        `token already revoked at ${revoked.revoked_at} (${which.filter(Boolean).join(', ')})`,
      );
    }
    throw new UsageError(
      'no such token: never issued, or revoked before revocations were recorded (token list --team T lists the live ones)',
    );
  }
  const { teamId } = revocation;
  if ('all' in revocation) return { team_id: teamId, revoked: await revokeAllTokens(teamId) };
  const { id } = revocation;
  if (await revokeTokenById(teamId, id)) return { team_id: teamId, id, revoked: true };
  const revoked = await tokenRevocationById(teamId, id);
  if (revoked) throw new UsageError(`team ${teamId}'s token ${id} already revoked at ${revoked.revoked_at}`);
  throw new UsageError(`team ${teamId} has no token ${id}`);
}

/** After deploying a new version over an existing table: each one-off migration, run again harmlessly. */
async function migrate(input: {
  restApiId?: string;
  names: string[];
  defaultPlan: string;
}): Promise<unknown> {
  const { restApiId, names, defaultPlan } = input;
  return {
    default_brand_pointers: await migrateDefaultPointers(),
    default_brands_stamped: await stampDefaultBrands(),
    events_moved: await moveEventLogs(),
    webhook_endpoints_moved: await moveWebhookEndpoints(),
    webhook_delivery_keys: await migrateDeliveryKeys(),
    webhook_secrets_encrypted: await sealPlaintextSecrets(),
    teams_recounted: await recountUsage(),
    tokens_numbered: await numberTokens(),
    // Tokens made before tokens named their plan: WAF counts them in the default plan until `team plan`
    // (run again for their team) reissues them.
    tokens_to_reissue: await countTokensToReissue(
      await planOfTeams(),
      names.filter((plan) => plan !== defaultPlan),
    ),
    ...(restApiId && { team_api_keys_deleted: await deleteTeamApiKeys(restApiId) }),
  };
}

/** The commands, in the order the usage lists them. */
export const COMMAND_TABLE: readonly AdminCommand[] = [
  command({
    name: 'team create',
    usage: 'team create --name N',
    parse: async (args) => ({ name: args.text('name'), defaultPlan: plans(args).defaultPlan }),
    run: async ({ name, defaultPlan }) => {
      // Data only: a new team is in the default plan, which needs nothing of its own in AWS.
      const created = await createTeam(name);
      const { token } = await issueToken(created.id, { defaultPlan });
      return { team_id: created.id, token };
    },
  }),
  command({
    name: 'team plan',
    usage:
      "team plan --team T --plan standard|bulk [--overlap 24h]   (reissues the team's tokens: the plan is in them)",
    parse: async (args) => {
      const plan = args.oneOf('plan', plans(args).names);
      const overlapMs = parseOverlapMs(args.optional('overlap'));
      return { plan, overlapMs, teamId: await team(args) };
    },
    run: async ({ plan, overlapMs, teamId }) => {
      const overlapEndsAt = wholeSecond(new Date(Date.now() + overlapMs));
      const { previousPlan, reissued } = await changeTeamPlan(teamId, plan, overlapEndsAt);
      return {
        team_id: teamId,
        plan,
        previous_plan: previousPlan ?? null,
        // WAF tells a plan's tokens by their first characters: a plan change is new tokens, not a setting.
        note:
          `${reissued.length} token(s) reissued with the plan in their first characters (tm_${plan}_); ` +
          'hand each new token to its integration: the token it replaces keeps working until its ' +
          `replaced_expires_at (at most the ${overlapMs / 1000} s overlap), then stops`,
        overlap_ends_at: overlapEndsAt.toISOString(),
        tokens: reissued,
      };
    },
  }),
  command({
    name: 'team list',
    usage: 'team list                      (every team: id, name, plan, created_at; a Scan of the table)',
    parse: async (args) => plans(args).defaultPlan,
    run: async (defaultPlan) => {
      const teams = await listTeams();
      return {
        teams: teams.map(({ id, name, plan, created_at }) => ({
          id,
          name,
          plan: plan ?? defaultPlan,
          created_at,
        })),
      };
    },
  }),
  command({
    name: 'token create',
    usage:
      'token create --team T [--name N] [--scopes brands:read,webhooks:write|all] [--expires 2027-01-31|90d]',
    parse: async (args) => {
      const teamId = await team(args);
      const options = {
        name: tokenName(args),
        scopes: parseScopes(args.optional('scopes')),
        expiresAt: parseExpiry(args.optional('expires')),
        defaultPlan: plans(args).defaultPlan,
      };
      return { teamId, options };
    },
    run: async ({ teamId, options }) => {
      const { token, id, name, prefix, scopes, created_at, expires_at } = await issueToken(
        teamId,
        options,
      ).catch((error: unknown) => {
        // The operator's to act on (revoke one first), not a failure of the CLI.
        throw error instanceof TokenLimitError ? new UsageError(error.message) : error;
      });
      return { token, id, name, prefix, scopes, created_at, expires_at };
    },
  }),
  command({
    name: 'token list',
    usage: "token list --team T            token list   (every team's tokens: a Scan of the table)",
    // Without --team, every team's.
    parse: async (args) => (args.optional('team') === undefined ? undefined : await team(args)),
    run: async (teamId) =>
      teamId === undefined
        ? { tokens: await listAllTokens() }
        : { team_id: teamId, tokens: await listTokens(teamId) },
  }),
  command<Revocation>({
    name: 'token revoke',
    usage: 'token revoke --team T --id N   token revoke --team T --all   token revoke --token X',
    parse: async (args) => {
      const token = args.optional('token');
      if (token !== undefined) return { token };
      const teamId = await team(args);
      return args.flags.all === true ? { teamId, all: true } : { teamId, id: args.integer('id') };
    },
    run: revoke,
  }),
  command({
    name: 'site create',
    usage: 'site create --team T --name N --domain https://example.com',
    parse: async (args) => {
      const teamId = await team(args);
      const domain = pageText(args, 'domain');
      if (!/^https?:\/\/[^/\s]+\/?$/.test(domain)) {
        throw new UsageError('--domain must be like https://example.com');
      }
      return { teamId, name: pageText(args, 'name'), domain: domain.replace(/\/$/, '') };
    },
    run: async ({ teamId, name, domain }) => ({ site_id: (await createSite(teamId, name, domain)).id }),
  }),
  command({
    name: 'page create',
    usage: 'page create --team T --site S --name N --url /path',
    parse: async (args) => {
      const teamId = await team(args);
      const url = pageText(args, 'url');
      if (!url.startsWith('/')) throw new UsageError('--url must be a path starting with /');
      return { teamId, siteId: args.integer('site'), name: pageText(args, 'name'), url };
    },
    run: async ({ teamId, siteId, name, url }) => {
      const page = await createPage(teamId, siteId, name, url);
      if (!page) throw new UsageError(`team ${teamId} has no site ${siteId}`);
      return { page_id: page.id };
    },
  }),
  command({
    name: 'identity create',
    usage: 'identity create --team T --kind email|phone --value V [--unverified]',
    parse: async (args) => ({
      teamId: await team(args),
      kind: args.oneOf('kind', ['email', 'phone'] as const),
      value: args.text('value'),
      verified: args.flags.unverified !== true,
    }),
    run: async ({ teamId, kind, value, verified }) => ({
      identity_id: (await createIdentity(teamId, kind, value, verified)).id,
    }),
  }),
  command({
    name: 'list create',
    usage: 'list create --team T --kind email|sms|push --name N',
    parse: async (args) => ({
      teamId: await team(args),
      kind: args.oneOf('kind', ['email', 'sms', 'push'] as const),
      name: args.text('name'),
    }),
    run: async ({ teamId, kind, name }) => {
      const list = await createList(teamId, kind, name);
      return { list_id: list.id, brand_id: list.brand_id };
    },
  }),
  command({
    name: 'list get',
    usage: 'list get --team T --id L',
    sharesLine: true,
    parse: async (args) => ({ teamId: await team(args), id: args.integer('id') }),
    run: async ({ teamId, id }) => {
      const list = await getList(teamId, id);
      if (!list) throw new UsageError(`team ${teamId} has no list ${id}`);
      return list;
    },
  }),
  command({
    name: 'field create',
    usage: 'field create --team T --integration I --name N --tag t --type text --contact-type person',
    parse: async (args) => {
      const teamId = await team(args);
      // The API's own rules, so an integration field is as valid as one made through the API.
      const input = validate(newContactFieldSchema, {
        name: args.text('name'),
        tag: args.text('tag'),
        type: args.text('type'),
        contact_type: args.text('contact-type'),
      });
      return { teamId, field: { ...input, integration_id: args.integer('integration') } };
    },
    run: async ({ teamId, field }) => contactFieldView(await createContactField(teamId, field)),
  }),
  command({
    name: 'file put',
    usage: 'file put --team T --path logos/a.png --file ./a.png',
    parse: async (args) => ({ teamId: await team(args), path: args.text('path'), file: args.text('file') }),
    run: async ({ teamId, path, file }) => {
      // A relative --file is the caller's: npm runs scripts from the package's folder, INIT_CWD is theirs.
      const bytes = await readFile(resolve(process.env.INIT_CWD ?? process.cwd(), file)).catch(() => {
        throw new UsageError(`cannot read --file ${file}`);
      });
      const contentType = CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
      await putPrivateFile(teamId, path, bytes, contentType);
      return { path };
    },
  }),
  command({
    name: 'quota set',
    usage:
      'quota set --team T --kind brands|contact_fields|sites|pages|webhook_endpoints|uploads|upload_bytes --limit N|default',
    parse: async (args) => {
      const teamId = await team(args);
      const kind = args.oneOf('kind', QUOTA_KINDS);
      const limit = args.text('limit');
      if (limit !== 'default' && !/^\d{1,15}$/.test(limit)) {
        throw new UsageError('--limit must be a whole number or "default"');
      }
      return { teamId, kind, limit: limit === 'default' ? null : Number(limit) };
    },
    run: async ({ teamId, kind, limit }) => {
      await setQuota(teamId, kind, limit);
      return (await getQuotas(teamId))[kind];
    },
  }),
  command({
    name: 'quota get',
    usage: 'quota get --team T',
    parse: team,
    run: getQuotas,
  }),
  command({
    name: 'migrate',
    usage: 'migrate                        (after deploying a new version over an existing table)',
    parse: async (args) => ({ restApiId: args.optional('rest-api'), ...plans(args) }),
    run: migrate,
  }),
];

/** The flags that choose the stack, which every command takes, as the usage's last lines show them. */
const TARGET_USAGE = `target flags: --data-dir D (local, default $DATA_DIR or .data)
  | --table --private-bucket --public-bucket --rest-api (a deployed stack: its AdminTarget output)
    [--default-plan P --plans P,Q,...] (a deployed stack's plans, when cdk.json changes them)`;

/** The usage, from the table: a line per command (or two sharing one), then the target flags. */
export const USAGE = [
  'usage: npm run admin -- <command> [flags]',
  ...COMMAND_TABLE.reduce<string[]>((lines, command) => {
    const last = lines.length - 1;
    if (command.sharesLine && last >= 0) lines[last] += `      ${command.usage}`;
    else lines.push(`  ${command.usage}`);
    return lines;
  }, []),
  TARGET_USAGE,
].join('\n');

/** Every command the CLI runs: what an unknown command is told to choose from. */
export const COMMANDS = COMMAND_TABLE.map((command) => command.name);

/**
 * What a command line naming no command is told, as text: the command it typed, the commands of the same
 * entity when its first word names one (else all of them), and the usage.
 */
export function unknownCommandText(command: string): string {
  const entity = command.split(' ')[0];
  const related = COMMANDS.filter((name) => name.split(' ')[0] === entity);
  const choices = related.length
    ? `the ${entity} commands are ${related.join(', ')}`
    : `the commands are ${COMMANDS.join(', ')}`;
  const said = command ? `unknown command "${command}"` : 'no command given';
  return `${said}: ${choices}\n\n${USAGE}`;
}

const flagsIn = (text: string): string[] => [...new Set(text.match(/--[a-z-]+/g) ?? [])];

/** The flags that choose the stack, which every command takes. */
export const TARGET_FLAGS = flagsIn(TARGET_USAGE);

/** The flags a command takes, as its usage shows them (an entity's word alone: those of its commands). */
export function commandFlags(command: string): string[] {
  const rows = COMMAND_TABLE.filter((row) => row.name === command || row.name.startsWith(`${command} `));
  return flagsIn(rows.map((row) => row.usage).join(' '));
}

/** What an unknown flag is told: the flags of the command it was given to, and the target flags. */
export function unknownFlagText(flag: string, command: string): string {
  const flags = commandFlags(command);
  return (
    `unknown flag ${flag} for "${command}": ` +
    `${flags.length ? `its flags are ${flags.join(', ')}` : 'it takes no flags'}; ` +
    `target flags: ${TARGET_FLAGS.join(', ')}`
  );
}

/**
 * `--help` (anywhere), `-h` or `help [command]`: the usage of the commands named (all of them when none
 * is, or none matches), or undefined when the command line asks for no help.
 */
export function helpText(argv: readonly string[]): string | undefined {
  const asked = argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');
  if (!asked) return undefined;
  const words = argv.filter((arg) => !arg.startsWith('-') && arg !== 'help');
  const [title = '', ...lines] = USAGE.split('\n');
  const targets = lines.findIndex((line) => line.startsWith('target flags'));
  const commands = lines.slice(0, targets);
  const named = words.length ? commands.filter((line) => line.includes(words.join(' '))) : [];
  return named.length ? [title, ...named, ...lines.slice(targets)].join('\n') : USAGE;
}

/** Runs the command `args` names: its row's parser, then its action. */
export async function runCommand(args: Args): Promise<unknown> {
  const row = COMMAND_TABLE.find((candidate) => candidate.name === args.command);
  if (!row) throw new UnknownCommandError(args.command);
  return row.run(await row.parse(args));
}

/** The plan the table records for each team that has one (`migrate`: a Scan). */
async function planOfTeams(): Promise<Map<number, string>> {
  const plans = new Map<number, string>();
  for await (const { teamId, plan } of teamPlans()) if (plan) plans.set(teamId, plan);
  return plans;
}
