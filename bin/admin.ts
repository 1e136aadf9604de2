import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseArgs } from 'node:util';
import { handlerEnvironment, localConfigPath, readLocalConfig } from '../lib/local/stack.ts';

/**
 * `npm run admin -- <entity> <action> [--flags]`: the stand-in for the team dashboard. Prints one JSON
 * object; on bad input prints `{"error": ...}` to stderr and exits 1. Targets the local stack of DATA_DIR
 * unless a deployed stack is named with --table/--private-bucket/--public-bucket (or TABLE_NAME,
 * PRIVATE_BUCKET, PUBLIC_BUCKET), with credentials from the usual AWS chain.
 */
const USAGE = `usage: npm run admin -- <command> [flags]
  team create --name N
  token create --team T          token revoke --token X
  site create --team T --name N --domain https://example.com
  page create --team T --site S --name N --url /path
  identity create --team T --kind email|phone --value V [--unverified]
  list create --team T --kind email|sms|push --name N      list get --team T --id L
  field create --team T --integration I --name N --tag t --type text --contact-type person
  file put --team T --path logos/a.png --file ./a.png
target flags: --data-dir D (local, default $DATA_DIR or .data) | --table --private-bucket --public-bucket`;

class UsageError extends Error {}

const STRING_FLAGS =
  'name team token domain site url kind value id integration tag type contact-type path file data-dir table private-bucket public-bucket';
const options: Record<string, { type: 'string' | 'boolean' }> = { unverified: { type: 'boolean' } };
for (const name of STRING_FLAGS.split(' ')) options[name] = { type: 'string' };

let flags: Record<string, string | boolean | undefined> = {};

function text(name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

function integer(name: string): number {
  const value = text(name);
  if (!/^[1-9][0-9]{0,14}$/.test(value)) throw new UsageError(`--${name} must be a positive integer`);
  return Number(value);
}

function oneOf<T extends string>(name: string, allowed: readonly T[]): T {
  const value = text(name);
  if (!allowed.includes(value as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

async function target(): Promise<void> {
  const table = (flags.table as string | undefined) ?? process.env.TABLE_NAME;
  if (table) {
    process.env.TABLE_NAME = table;
    process.env.PRIVATE_BUCKET =
      (flags['private-bucket'] as string | undefined) ?? process.env.PRIVATE_BUCKET ?? '';
    process.env.PUBLIC_BUCKET =
      (flags['public-bucket'] as string | undefined) ?? process.env.PUBLIC_BUCKET ?? '';
    return;
  }
  const dataDir = (flags['data-dir'] as string | undefined) ?? process.env.DATA_DIR ?? '.data';
  const local = await readLocalConfig(dataDir);
  if (!local) {
    throw new UsageError(
      `no local stack at ${localConfigPath(dataDir)}: run npm start first, or name a deployed stack with --table`,
    );
  }
  Object.assign(process.env, handlerEnvironment(local));
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

async function run(command: string): Promise<unknown> {
  await target();
  // Imported only now: the data modules read their configuration from the environment set above.
  const { createTeam, createToken, getTeam, revokeToken } = await import('../shared/data/teams.ts');
  const team = async () => {
    const id = integer('team');
    if (!(await getTeam(id))) throw new UsageError(`no team ${id}`);
    return id;
  };
  switch (command) {
    case 'team create': {
      const created = await createTeam(text('name'));
      return { team_id: created.id, token: await createToken(created.id) };
    }
    case 'token create':
      return { token: await createToken(await team()) };
    case 'token revoke':
      if (!(await revokeToken(text('token')))) throw new UsageError('no such token');
      return { revoked: true };
    case 'site create': {
      const teamId = await team();
      const domain = text('domain');
      if (!/^https?:\/\/[^/\s]+\/?$/.test(domain))
        throw new UsageError('--domain must be like https://example.com');
      const { createSite } = await import('../shared/data/sites.ts');
      return { site_id: (await createSite(teamId, text('name'), domain.replace(/\/$/, ''))).id };
    }
    case 'page create': {
      const teamId = await team();
      const url = text('url');
      if (!url.startsWith('/')) throw new UsageError('--url must be a path starting with /');
      const { createPage } = await import('../shared/data/pages.ts');
      const page = await createPage(teamId, integer('site'), text('name'), url);
      if (!page) throw new UsageError(`team ${teamId} has no site ${flags.site}`);
      return { page_id: page.id };
    }
    case 'identity create': {
      const teamId = await team();
      const { createIdentity } = await import('../shared/data/identities.ts');
      const kind = oneOf('kind', ['email', 'phone'] as const);
      const identity = await createIdentity(teamId, kind, text('value'), flags.unverified !== true);
      return { identity_id: identity.id };
    }
    case 'list create': {
      const teamId = await team();
      const { createList } = await import('../shared/data/lists.ts');
      const list = await createList(teamId, oneOf('kind', ['email', 'sms', 'push'] as const), text('name'));
      return { list_id: list.id, brand_id: list.brand_id };
    }
    case 'list get': {
      const teamId = await team();
      const { getList } = await import('../shared/data/lists.ts');
      const list = await getList(teamId, integer('id'));
      if (!list) throw new UsageError(`team ${teamId} has no list ${flags.id}`);
      return list;
    }
    case 'field create': {
      const teamId = await team();
      const { newContactFieldSchema } = await import('../shared/domain/contact-field-input.ts');
      const { validate } = await import('../shared/http/validation.ts');
      const { contactFieldView, createContactField } = await import('../shared/data/contact-fields.ts');
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
      const { putPrivateFile } = await import('../shared/files/library.ts');
      const path = text('path');
      const bytes = await readFile(text('file')).catch(() => {
        throw new UsageError(`cannot read --file ${flags.file}`);
      });
      await putPrivateFile(
        teamId,
        path,
        bytes,
        CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
      );
      return { path };
    }
    default:
      throw new UsageError(`unknown command "${command}"\n${USAGE}`);
  }
}

try {
  const parsed = parseArgs({ allowPositionals: true, strict: true, options });
  flags = parsed.values as typeof flags;
  console.log(JSON.stringify(await run(parsed.positionals.slice(0, 2).join(' '))));
} catch (error) {
  const message =
    error instanceof UsageError || (error as { status?: number }).status === 422
      ? (error as Error).message
      : `failed: ${(error as Error).message}`;
  console.error(JSON.stringify({ error: message }));
  process.exitCode = 1;
}
