import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { config } from '../../shared/config.ts';
import { contactFieldView, createContactField } from '../../shared/data/contact-fields.ts';
import { moveEventLogs } from '../../shared/data/events.ts';
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
  numberTokens,
  revokeAllTokens,
  revokeToken,
  revokeTokenById,
  TokenLimitError,
  tokenRevocation,
  tokenRevocationById,
  wholeSecond,
} from '../../shared/data/tokens.ts';
import { migrateDeliveryKeys } from '../../shared/data/webhook-deliveries.ts';
import { moveWebhookEndpoints, sealPlaintextSecrets } from '../../shared/data/webhook-endpoints.ts';
import { newContactFieldSchema } from '../../shared/domain/contact-field-input.ts';
import { putPrivateFile } from '../../shared/files/library.ts';
import { validate } from '../../shared/http/validation.ts';
import { LIMITS } from '../../shared/limits.ts';
import { type Args, UnknownCommandError, UsageError } from './args.ts';
import { deleteTeamApiKeys } from './legacy-api-keys.ts';
import { migrateDefaultPointers, stampDefaultBrands } from './migrations/brands.ts';
import { parseExpiry, parseOverlapMs, parseScopes } from './token-flags.ts';

/**
 * The admin CLI's commands: what the team dashboard would do, written with the same data modules as the
 * API. Loaded only once the target stack's environment is set (the modules read it when loaded).
 */
export const USAGE = `usage: npm run admin -- <command> [flags]
  team create --name N
  team plan --team T --plan standard|bulk [--overlap 24h]   (reissues the team's tokens: the plan is in them)
  team list                      (every team: id, name, plan, created_at; a Scan of the table)
  token create --team T [--name N] [--scopes brands:read,webhooks:write|all] [--expires 2027-01-31|90d]
  token list --team T            token list   (every team's tokens: a Scan of the table)
  token revoke --team T --id N   token revoke --team T --all   token revoke --token X
  site create --team T --name N --domain https://example.com
  page create --team T --site S --name N --url /path
  identity create --team T --kind email|phone --value V [--unverified]
  list create --team T --kind email|sms|push --name N      list get --team T --id L
  field create --team T --integration I --name N --tag t --type text --contact-type person
  file put --team T --path logos/a.png --file ./a.png
  quota set --team T --kind brands|contact_fields|sites|pages|webhook_endpoints|uploads|upload_bytes --limit N|default
  quota get --team T
  migrate                        (after deploying a new version over an existing table)
target flags: --data-dir D (local, default $DATA_DIR or .data)
  | --table --private-bucket --public-bucket --rest-api (a deployed stack: its AdminTarget output)
    [--default-plan P --plans P,Q,...] (a deployed stack's plans, when cdk.json changes them)`;

/** Every command the CLI runs (`runCommand`'s cases): what an unknown command is told to choose from. */
export const COMMANDS = [
  'team create',
  'team plan',
  'team list',
  'token create',
  'token list',
  'token revoke',
  'site create',
  'page create',
  'identity create',
  'list create',
  'list get',
  'field create',
  'file put',
  'quota set',
  'quota get',
  'migrate',
] as const;

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

const USAGE_LINES = USAGE.split('\n');
const TARGET_LINE = USAGE_LINES.findIndex((line) => line.startsWith('target flags'));
const flagsIn = (text: string): string[] => [...new Set(text.match(/--[a-z-]+/g) ?? [])];

/** The flags that choose the stack, which every command takes. */
export const TARGET_FLAGS = flagsIn(USAGE_LINES.slice(TARGET_LINE).join(' '));

/** The flags a command takes, as its usage shows them (a line may hold two commands: only its own part). */
export function commandFlags(command: string): string[] {
  const own = USAGE_LINES.slice(1, TARGET_LINE)
    .flatMap((line) => line.split(/\s{3,}/))
    .map((part) => part.trim())
    .filter((part) => part === command || part.startsWith(`${command} `));
  return flagsIn(own.join(' '));
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

export async function runCommand(args: Args): Promise<unknown> {
  const { text, integer, oneOf, flags } = args;
  /**
   * The deployment's rate limit plans: the configuration's (RATE_LIMITS, else cdk.json's defaults), or a
   * deployed stack's as `--default-plan` and `--plans` name them. Nothing in AWS is per plan or per team:
   * a token names its plan (shared/data/tokens.ts), so the CLI needs the plans' names alone.
   */
  const plans = (): { names: string[]; defaultPlan: string } => {
    const configured = config.rateLimits();
    const defaultPlan = args.optional('default-plan') ?? configured.defaultPlan;
    const listed = args
      .optional('plans')
      ?.split(',')
      .map((plan) => plan.trim())
      .filter(Boolean);
    const names = listed ?? Object.keys(configured.plans);
    return { names: names.includes(defaultPlan) ? names : [defaultPlan, ...names], defaultPlan };
  };
  /** A site's or page's string: the pages API answers it, and documents its length. */
  const pageText = (name: string) => {
    const value = text(name);
    if (value.length > LIMITS.textLength) {
      throw new UsageError(`--${name} must be at most ${LIMITS.textLength} characters`);
    }
    return value;
  };
  const team = async () => {
    const id = integer('team');
    if (!(await getTeam(id))) throw new UsageError(`no team ${id}`);
    return id;
  };
  const tokenName = (): string | undefined => {
    const name = args.optional('name');
    if (name !== undefined && (name.trim() === '' || name.length > LIMITS.textLength)) {
      throw new UsageError(`--name must be 1 to ${LIMITS.textLength} characters`);
    }
    return name;
  };
  switch (args.command) {
    case 'team create': {
      // Data only: a new team is in the default plan, which needs nothing of its own in AWS.
      const created = await createTeam(text('name'));
      const { token } = await issueToken(created.id, { defaultPlan: plans().defaultPlan });
      return { team_id: created.id, token };
    }
    case 'team plan': {
      const plan = oneOf('plan', plans().names);
      const overlapMs = parseOverlapMs(args.optional('overlap'));
      const teamId = await team();
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
    }
    case 'token create': {
      const teamId = await team();
      const options = {
        name: tokenName(),
        scopes: parseScopes(args.optional('scopes')),
        expiresAt: parseExpiry(args.optional('expires')),
        defaultPlan: plans().defaultPlan,
      };
      const { token, id, name, prefix, scopes, created_at, expires_at } = await issueToken(
        teamId,
        options,
      ).catch((error: unknown) => {
        // The operator's to act on (revoke one first), not a failure of the CLI.
        throw error instanceof TokenLimitError ? new UsageError(error.message) : error;
      });
      return { token, id, name, prefix, scopes, created_at, expires_at };
    }
    case 'team list': {
      const { defaultPlan } = plans();
      const teams = await listTeams();
      return {
        teams: teams.map(({ id, name, plan, created_at }) => ({
          id,
          name,
          plan: plan ?? defaultPlan,
          created_at,
        })),
      };
    }
    case 'token list': {
      if (args.optional('team') === undefined) return { tokens: await listAllTokens() };
      const teamId = await team();
      return { team_id: teamId, tokens: await listTokens(teamId) };
    }
    case 'token revoke': {
      const token = args.optional('token');
      if (token !== undefined) {
        if (await revokeToken(token)) return { revoked: true };
        const revoked = await tokenRevocation(token);
        if (revoked) {
          const which = [
            revoked.prefix,
            revoked.id !== null && `id ${revoked.id}`,
            `team ${revoked.team_id}`,
          ];
          throw new UsageError(
            `token already revoked at ${revoked.revoked_at} (${which.filter(Boolean).join(', ')})`,
          );
        }
        throw new UsageError(
          'no such token: never issued, or revoked before revocations were recorded (token list --team T lists the live ones)',
        );
      }
      const teamId = await team();
      if (flags.all === true) return { team_id: teamId, revoked: await revokeAllTokens(teamId) };
      const id = integer('id');
      if (await revokeTokenById(teamId, id)) return { team_id: teamId, id, revoked: true };
      const revoked = await tokenRevocationById(teamId, id);
      if (revoked)
        throw new UsageError(`team ${teamId}'s token ${id} already revoked at ${revoked.revoked_at}`);
      throw new UsageError(`team ${teamId} has no token ${id}`);
    }
    case 'site create': {
      const teamId = await team();
      const domain = pageText('domain');
      if (!/^https?:\/\/[^/\s]+\/?$/.test(domain)) {
        throw new UsageError('--domain must be like https://example.com');
      }
      return { site_id: (await createSite(teamId, pageText('name'), domain.replace(/\/$/, ''))).id };
    }
    case 'page create': {
      const teamId = await team();
      const url = pageText('url');
      if (!url.startsWith('/')) throw new UsageError('--url must be a path starting with /');
      const page = await createPage(teamId, integer('site'), pageText('name'), url);
      if (!page) throw new UsageError(`team ${teamId} has no site ${flags.site}`);
      return { page_id: page.id };
    }
    case 'identity create': {
      const teamId = await team();
      const kind = oneOf('kind', ['email', 'phone'] as const);
      const identity = await createIdentity(teamId, kind, text('value'), flags.unverified !== true);
      return { identity_id: identity.id };
    }
    case 'list create': {
      const teamId = await team();
      const list = await createList(teamId, oneOf('kind', ['email', 'sms', 'push'] as const), text('name'));
      return { list_id: list.id, brand_id: list.brand_id };
    }
    case 'list get': {
      const teamId = await team();
      const list = await getList(teamId, integer('id'));
      if (!list) throw new UsageError(`team ${teamId} has no list ${flags.id}`);
      return list;
    }
    case 'field create': {
      const teamId = await team();
      // The API's own rules, so an integration field is as valid as one made through the API.
      const input = validate(newContactFieldSchema, {
        name: text('name'),
        tag: text('tag'),
        type: text('type'),
        contact_type: text('contact-type'),
      });
      const field = await createContactField(teamId, { ...input, integration_id: integer('integration') });
      return contactFieldView(field);
    }
    case 'file put': {
      const teamId = await team();
      const path = text('path');
      // A relative --file is the caller's: npm runs scripts from the package's folder, INIT_CWD is theirs.
      const bytes = await readFile(resolve(process.env.INIT_CWD ?? process.cwd(), text('file'))).catch(() => {
        throw new UsageError(`cannot read --file ${flags.file}`);
      });
      const contentType = CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
      await putPrivateFile(teamId, path, bytes, contentType);
      return { path };
    }
    case 'quota set': {
      const teamId = await team();
      const kind = oneOf('kind', QUOTA_KINDS);
      const limit = text('limit');
      if (limit !== 'default' && !/^\d{1,15}$/.test(limit)) {
        throw new UsageError('--limit must be a whole number or "default"');
      }
      await setQuota(teamId, kind, limit === 'default' ? null : Number(limit));
      return (await getQuotas(teamId))[kind];
    }
    case 'quota get':
      return getQuotas(await team());
    case 'migrate': {
      const restApiId = args.optional('rest-api');
      const { names, defaultPlan } = plans();
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
    default:
      throw new UnknownCommandError(args.command);
  }
}

/** The plan the table records for each team that has one (`migrate`: a Scan). */
async function planOfTeams(): Promise<Map<number, string>> {
  const plans = new Map<number, string>();
  for await (const { teamId, plan } of teamPlans()) if (plan) plans.set(teamId, plan);
  return plans;
}
