import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { config } from '../../shared/config.ts';
import { migrateDefaultPointers } from '../../shared/data/brands.ts';
import { contactFieldView, createContactField } from '../../shared/data/contact-fields.ts';
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
import { newContactFieldSchema } from '../../shared/domain/contact-field-input.ts';
import { putPrivateFile } from '../../shared/files/library.ts';
import { validate } from '../../shared/http/validation.ts';
import { type Args, UsageError } from './args.ts';
import { UsagePlanKeys } from './usage-plans.ts';

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
  quota set --team T --kind brands|contact_fields|sites|pages --limit N|default
  quota get --team T
  migrate                        (once, after deploying over a table made by an earlier version)
target flags: --data-dir D (local, default $DATA_DIR or .data)
  | --table --private-bucket --public-bucket --rest-api (a deployed stack: its AdminTarget output)`;

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
  /** A deployed stack's API, whose usage plans hold the teams' keys; none locally (the gateway reads plans). */
  const usagePlanKeys = (): UsagePlanKeys | undefined => {
    if (config.dynamodbEndpoint() !== undefined) return undefined;
    const restApiId = args.optional('rest-api') ?? process.env.REST_API_ID;
    if (!restApiId) {
      throw new UsageError("name the deployed stack's API with --rest-api (its AdminTarget output has it)");
    }
    return new UsagePlanKeys(restApiId);
  };
  const team = async () => {
    const id = integer('team');
    if (!(await getTeam(id))) throw new UsageError(`no team ${id}`);
    return id;
  };
  switch (args.command) {
    case 'team create': {
      // A deployed team's requests need its API key in a usage plan (else 403): the default plan's, found
      // before the team is made.
      const keys = usagePlanKeys();
      const defaultPlan = (await keys?.stackPlans())?.defaultPlan;
      const created = await createTeam(text('name'));
      if (keys && defaultPlan) await keys.place(created.id, defaultPlan);
      return { team_id: created.id, token: await createToken(created.id) };
    }
    case 'team plan': {
      const keys = usagePlanKeys();
      const names = keys ? [...(await keys.stackPlans()).ids.keys()] : Object.keys(config.rateLimits().plans);
      const plan = oneOf('plan', names);
      const teamId = await team();
      // API Gateway first: the table's plan is what GET /api/v1/limits reports, so it follows the key.
      await keys?.place(teamId, plan);
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
      const domain = text('domain');
      if (!/^https?:\/\/[^/\s]+\/?$/.test(domain)) {
        throw new UsageError('--domain must be like https://example.com');
      }
      return { site_id: (await createSite(teamId, text('name'), domain.replace(/\/$/, ''))).id };
    }
    case 'page create': {
      const teamId = await team();
      const url = text('url');
      if (!url.startsWith('/')) throw new UsageError('--url must be a path starting with /');
      const page = await createPage(teamId, integer('site'), text('name'), url);
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
      if (limit !== 'default' && !/^\d{1,9}$/.test(limit)) {
        throw new UsageError('--limit must be a whole number or "default"');
      }
      await setQuota(teamId, kind, limit === 'default' ? null : Number(limit));
      return (await getQuotas(teamId))[kind];
    }
    case 'quota get':
      return getQuotas(await team());
    case 'migrate': {
      const keys = usagePlanKeys();
      return {
        default_brand_pointers: await migrateDefaultPointers(),
        teams_recounted: await recountUsage(),
        ...(await placeEveryTeamKey(keys)),
      };
    }
    default:
      throw new UsageError(`unknown command "${args.command}"\n${USAGE}`);
  }
}

/** `migrate` on a deployed stack: every team's key into its plan's usage plan (teams made before rate limits). */
async function placeEveryTeamKey(keys: UsagePlanKeys | undefined): Promise<{ team_keys_placed?: number }> {
  if (!keys) return {};
  const { ids, defaultPlan } = await keys.stackPlans();
  let placed = 0;
  for await (const { teamId, plan } of teamPlans()) {
    await keys.place(teamId, plan && ids.has(plan) ? plan : defaultPlan);
    placed++;
  }
  return { team_keys_placed: placed };
}
