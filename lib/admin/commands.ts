import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { config } from '../../shared/config.ts';
import { migrateDefaultPointers, stampDefaultBrands } from '../../shared/data/brands.ts';
import { contactFieldView, createContactField } from '../../shared/data/contact-fields.ts';
import { moveEventLogs } from '../../shared/data/events.ts';
import { createIdentity } from '../../shared/data/identities.ts';
import { createList, getList } from '../../shared/data/lists.ts';
import { createPage } from '../../shared/data/pages.ts';
import { getQuotas, QUOTA_KINDS, recountUsage, setQuota } from '../../shared/data/quotas.ts';
import { createSite } from '../../shared/data/sites.ts';
import {
  createTeam,
  createToken,
  getTeam,
  revokeToken,
  setRateLimitPlan,
  teamPlans,
} from '../../shared/data/teams.ts';
import { migrateDeliveryKeys } from '../../shared/data/webhook-deliveries.ts';
import { sealPlaintextSecrets } from '../../shared/data/webhook-endpoints.ts';
import { newContactFieldSchema } from '../../shared/domain/contact-field-input.ts';
import { putPrivateFile } from '../../shared/files/library.ts';
import { validate } from '../../shared/http/validation.ts';
import { LIMITS } from '../../shared/limits.ts';
import { type Args, UsageError } from './args.ts';
import { deleteTeamApiKeys } from './legacy-api-keys.ts';
import { PlanSets, parsePlanSets } from './plan-sets.ts';

/**
 * The admin CLI's commands: what the team dashboard would do, written with the same data modules as the
 * API. Loaded only once the target stack's environment is set (the modules read it when loaded).
 */
export const USAGE = `usage: npm run admin -- <command> [flags]
  team create --name N           team plan --team T --plan standard|bulk
  token create --team T          token revoke --token X
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
  | --table --private-bucket --public-bucket --rest-api --default-plan --plan-sets
    (a deployed stack: its AdminTarget output)`;

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
  const deployed = config.dynamodbEndpoint() === undefined;
  /**
   * The named plans' WAF regex pattern sets (`--plan-sets`, from the AdminTarget output), which a deployed
   * stack's named plans need; none locally, where the gateway reads each team's plan from the table.
   */
  const planSets = (): PlanSets | undefined => {
    const flag = args.optional('plan-sets');
    if (flag) return new PlanSets(parsePlanSets(flag));
    // A stack with no named plan has no set: its AdminTarget names the default plan alone.
    if (args.optional('default-plan')) return new PlanSets([]);
    if (deployed) {
      throw new UsageError(
        "name the stack's plans with --default-plan and --plan-sets (its AdminTarget output)",
      );
    }
    return undefined;
  };
  /** The deployment's plans: a deployed stack's from its flags, the local configuration's otherwise. */
  const planNames = (sets: PlanSets | undefined): string[] =>
    sets
      ? [
          args.optional('default-plan') ?? config.rateLimits().defaultPlan,
          ...sets.sets.map((set) => set.plan),
        ]
      : Object.keys(config.rateLimits().plans);
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
  switch (args.command) {
    case 'team create': {
      // Data only: a new team is in the default plan, which needs nothing of its own in AWS.
      const created = await createTeam(text('name'));
      return { team_id: created.id, token: await createToken(created.id) };
    }
    case 'team plan': {
      const sets = planSets();
      const plan = oneOf('plan', planNames(sets));
      const teamId = await team();
      // WAF's set first: the table's plan is what GET /api/v1/limits reports, so it follows what is counted.
      await sets?.assign(teamId, plan);
      const previous = await setRateLimitPlan(teamId, plan);
      return { team_id: teamId, plan, previous_plan: previous ?? null };
    }
    case 'token create':
      return { token: await createToken(await team()) };
    case 'token revoke':
      if (!(await revokeToken(text('token')))) throw new UsageError('no such token');
      return { revoked: true };
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
      const bytes = await readFile(text('file')).catch(() => {
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
      const sets = planSets();
      const restApiId = args.optional('rest-api');
      return {
        default_brand_pointers: await migrateDefaultPointers(),
        default_brands_stamped: await stampDefaultBrands(),
        events_moved: await moveEventLogs(),
        webhook_delivery_keys: await migrateDeliveryKeys(),
        webhook_secrets_encrypted: await sealPlaintextSecrets(),
        teams_recounted: await recountUsage(),
        ...(sets && { plan_set_teams: await sets.write(await teamsByPlan()) }),
        ...(restApiId && { team_api_keys_deleted: await deleteTeamApiKeys(restApiId) }),
      };
    }
    default:
      throw new UsageError(`unknown command "${args.command}"\n${USAGE}`);
  }
}

/** The teams the table assigns to each plan (`migrate`: a Scan). */
async function teamsByPlan(): Promise<Map<string, Set<number>>> {
  const teams = new Map<string, Set<number>>();
  for await (const { teamId, plan } of teamPlans()) {
    if (!plan) continue;
    const planTeams = teams.get(plan) ?? new Set<number>();
    teams.set(plan, planTeams.add(teamId));
  }
  return teams;
}
