import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../lib/admin/args.ts';
import { runCommand } from '../../../lib/admin/commands.ts';
import { createPage } from '../../../shared/data/pages.ts';
import { createSite } from '../../../shared/data/sites.ts';
import { failedDeliveriesSince } from '../../../shared/data/webhook-deliveries/restarts.ts';
import { RATE_LIMIT_DEFAULTS } from '../../../shared/rate-limits.ts';
import { type FixtureServer, startFixtureServer } from '../../shared/autoconfigure/fixture-server.ts';
import { type ApiClient, type ApiResult, apiClient, newTeam, startApi } from '../../support/api.ts';
import { eventsOf } from '../../support/events.ts';
import { ROOT } from '../../support/processes.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';
import { HANG_MS } from '../../support/timeouts.ts';
import { startReceiver } from '../../support/webhook-receiver.ts';

/**
 * Every example of the OpenAPI document against the API's own answers. Each operation's request example
 * is sent to the local stack as it stands (auto-configure's to a local copy of the site it names), the
 * answer is held to the document (support/api.ts checks status, headers and body against the schema), and
 * the operation's response example must be that answer: the same keys at every level, and the same values
 * but for those that differ from one run to another (ids, timestamps, counts, a presigned URL), which must
 * have the same type or form. The schemas' and headers' own examples are compared with the values the
 * answers had there, and the security scheme's admin commands are run. A last test holds the checks to
 * every example the document has, so a new one cannot go unchecked.
 */
// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON.
type Json = any;

const document: Json = JSON.parse(readFileSync(`${ROOT}/shared/openapi/openapi.json`, 'utf8'));

/** A JSON pointer from its segments (RFC 6901). */
const pointer = (...parts: Array<string | number>) =>
  parts.map((part) => `/${String(part).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** Where the document has an example: every `example` and `examples` member, outside examples. */
function exampleLocations(node: Json, at: string[] = []): string[] {
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'example' || key === 'examples' ? [pointer(...at, key)] : exampleLocations(value, [...at, key]),
  );
}

/** The values that differ between runs, by member name: what of them the example must match. */
const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
/** A string's form: its digits (and hexadecimal digests) masked, so `2026-11-25T09:46:31.123000Z` is a timestamp's. */
const formOf = (value: unknown) =>
  typeof value === 'string' ? value.replace(/[0-9a-f]{32}/g, '#').replace(/[0-9]+/g, '0') : value;
const VARYING: Record<string, (documented: unknown, answered: unknown) => boolean> = {
  id: (a, b) => kindOf(a) === kindOf(b),
  team_id: (a, b) => kindOf(a) === kindOf(b),
  site_id: (a, b) => kindOf(a) === kindOf(b),
  // An event's: `brand:7`, the id of the run's brand.
  resource: (a, b) => formOf(a) === formOf(b),
  // Each request's own (null for a change without one).
  request_id: (a, b) => kindOf(a) === kindOf(b),
  used: (a, b) => kindOf(a) === kindOf(b),
  created_at: (a, b) => formOf(a) === formOf(b),
  updated_at: (a, b) => formOf(a) === formOf(b),
  // Signed for this run, by this deployment's S3.
  upload_url: (a, b) => kindOf(a) === kindOf(b),
  // A webhook endpoint's signing secret: random, of one form.
  secret: (a, b) =>
    [a, b].every((value) => typeof value === 'string' && /^whsec_[A-Za-z0-9+/]{32}$/.test(value)),
  previous_secret_expires_at: (a, b) => formOf(a) === formOf(b),
  // A delivery attempt's: the run's event, its time and how long it took.
  event_id: (a, b) => formOf(a) === formOf(b),
  attempted_at: (a, b) => formOf(a) === formOf(b),
  duration_ms: (a, b) => kindOf(a) === kindOf(b),
  // A delivery's: the run's endpoint and times (the last try's, where the deliverer records it).
  endpoint_id: (a, b) => kindOf(a) === kindOf(b),
  finished_at: (a, b) => formOf(a) === formOf(b),
  last_attempt_at: (a, b) => b === null || formOf(a) === formOf(b),
  // The run's endpoints, as many as documented.
  endpoint_ids: (a, b) =>
    Array.isArray(a) && Array.isArray(b) && a.length === b.length && b.every((id) => typeof id === 'number'),
};

/** How a documented example differs from an answer: keys at every level, values but for VARYING ones. */
function differences(documented: unknown, answered: unknown, at = '$'): string[] {
  const kinds = [kindOf(documented), kindOf(answered)];
  if (kinds[0] !== kinds[1]) {
    return [`${at}: ${JSON.stringify(documented)} documented, ${JSON.stringify(answered)} answered`];
  }
  if (Array.isArray(documented) && Array.isArray(answered)) {
    if (documented.length !== answered.length) {
      return [`${at}: ${documented.length} items documented, ${answered.length} answered`];
    }
    return documented.flatMap((item, i) => differences(item, answered[i], `${at}[${i}]`));
  }
  if (kinds[0] === 'object') {
    const [ours, theirs] = [documented as Record<string, unknown>, answered as Record<string, unknown>];
    return [...new Set([...Object.keys(ours), ...Object.keys(theirs)])].flatMap((key) => {
      if (!(key in theirs)) return [`${at}.${key}: documented, not answered`];
      if (!(key in ours)) return [`${at}.${key}: answered (${JSON.stringify(theirs[key])}), not documented`];
      const varying = VARYING[key];
      if (varying && kindOf(ours[key]) !== 'object') {
        return varying(ours[key], theirs[key])
          ? []
          : [
              `${at}.${key}: ${JSON.stringify(ours[key])} documented, ${JSON.stringify(theirs[key])} answered`,
            ];
      }
      return differences(ours[key], theirs[key], `${at}.${key}`);
    });
  }
  return isDeepStrictEqual(documented, answered)
    ? []
    : [`${at}: ${JSON.stringify(documented)} documented, ${JSON.stringify(answered)} answered`];
}

/** The example locations checked so far, and the answers seen (for the schemas' and headers' examples). */
const checked = new Set<string>();
const answers: Array<{ schema: Json; body: unknown; headers: Headers }> = [];

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const component = (ref: string): Json => document.components.schemas[ref.split('/').pop() as string];

/** Whether a value may be of one branch of an anyOf: null of the null branch, an object of an object schema with its keys. */
function fits(branch: Json, value: unknown): boolean {
  const schema = branch.$ref ? component(branch.$ref) : branch;
  if (value === null || schema.type === 'null') return value === null && schema.type === 'null';
  if (schema.type !== 'object' || !schema.properties) return true;
  return (
    isObject(value) &&
    Object.keys(value).every((key) => key in schema.properties) &&
    (schema.required ?? []).every((key: string) => key in value)
  );
}

/**
 * The values of an answer that its schema says are of a component schema, by component name, at any depth
 * (an event's brand is a Brand, its former values BrandChanges).
 */
function componentValues(schema: Json, value: unknown, found = new Map<string, unknown[]>()) {
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop() as string;
    found.set(name, [...(found.get(name) ?? []), value]);
    componentValues(component(schema.$ref), value, found);
  }
  for (const branch of schema.anyOf ?? []) if (fits(branch, value)) componentValues(branch, value, found);
  if (Array.isArray(value) && schema.items)
    for (const item of value) componentValues(schema.items, item, found);
  if (isObject(value) && schema.properties) {
    for (const [key, member] of Object.entries(value)) {
      if (schema.properties[key]) componentValues(schema.properties[key], member, found);
    }
  }
  return found;
}

interface Documented {
  method: string;
  template: string;
  operation: Json;
}

function documentedOperation(operationId: string): Documented {
  for (const [template, methods] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(methods as Record<string, Json>)) {
      if (operation.operationId === operationId) return { method, template, operation };
    }
  }
  throw new Error(`no operation ${operationId} in the document`);
}

/** Sends an operation's request example and compares its response example with the answer. */
async function replay(
  client: ApiClient,
  operationId: string,
  {
    params = {},
    origin,
    ids = {},
  }: {
    params?: Record<string, string | number>;
    /** The documented origin and the one that stands in for it in this run. */
    origin?: { documented: string; local: string };
    /** The run's ids for those the request example names, by member (`endpoint_id`). */
    ids?: Record<string, number>;
  } = {},
): Promise<{ answer: ApiResult; problems: string[] }> {
  const { method, template, operation } = documentedOperation(operationId);
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name]));
  const [status, success] = Object.entries(operation.responses as Record<string, Json>).find(([code]) =>
    code.startsWith('2'),
  ) as [string, Json];
  const json = 'application/json';
  const at = (...parts: string[]) => pointer('paths', template, method, ...parts);
  const requestExample = operation.requestBody?.content?.[json]?.example;
  let body: unknown;
  if (requestExample !== undefined) {
    checked.add(at('requestBody', 'content', json, 'example'));
    const text = JSON.stringify(requestExample);
    body = JSON.parse(origin ? text.replaceAll(origin.documented, origin.local) : text);
    for (const [member, id] of Object.entries(ids)) {
      if (isObject(body) && member in body) body[member] = id;
    }
  }
  const answer = await client[method as 'post'](path, body);
  const where = `${method.toUpperCase()} ${template}`;
  if (String(answer.status) !== status) {
    return { answer, problems: [`${where}: ${answer.status} ${answer.text}, documented ${status}`] };
  }
  const schema = success.content[json].schema;
  answers.push({ schema, body: answer.body, headers: answer.headers });
  const responseExample = success.content[json].example;
  if (responseExample === undefined) return { answer, problems: [] };
  checked.add(at('responses', status, 'content', json, 'example'));
  const answered = origin ? JSON.parse(answer.text.replaceAll(origin.local, origin.documented)) : answer.body;
  return { answer, problems: differences(responseExample, answered).map((problem) => `${where} ${problem}`) };
}

/** The page the auto-configure example reads, as the example describes it (served from 127.0.0.1). */
const acmeSite = (origin: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Acme</title>
  <meta property="og:site_name" content="Acme">
  <meta name="description" content="Rockets and more">
  <meta name="theme-color" content="#1a2b3c">
  <meta name="theme-color" media="(prefers-color-scheme: dark)" content="#0d1117">
  <meta property="og:image" content="${origin}/og.png">
  <meta name="twitter:site" content="@acme">
  <link rel="apple-touch-icon" href="/apple-touch-icon.png">
  <script type="application/ld+json">
    {"@context": "https://schema.org", "@type": "Organization", "name": "Acme", "url": "${origin}/",
     "logo": "${origin}/logo.png"}
  </script>
</head>
<body><h1>Acme</h1></body>
</html>`;

// The events' examples are of events the stream makes from the examples' own writes.

let api: Awaited<ReturnType<typeof startApi>>;
let site: FixtureServer;
beforeAll(async () => {
  // The deployment's default plans, so that the rate limit headers are what a new team gets.
  api = await startApi(RATE_LIMIT_DEFAULTS);
  site = await startFixtureServer({
    '/': (_request, response, origin) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(acmeSite(origin)),
  });
});
afterAll(async () => {
  restoreSettings();
  await site?.close();
  await api?.close();
});

/** Waits until `done` holds (the stream and the deliverer work asynchronously); fails after a deadline. */
async function until(done: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + HANG_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`no ${what} in time`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Once an endpoint's attempts list has `count` tries (the deliverer records each after it is made). */
const attemptsOf = (client: ApiClient, id: number, count: number) =>
  until(
    async () => (await client.get(`/api/v1/webhook-endpoints/${id}/attempts`)).body.length >= count,
    `${count} attempts of endpoint ${id}`,
  );

const newClient = async () => {
  const team = await newTeam();
  return { ...team, client: apiClient(api.url, team.token) };
};

describe("the OpenAPI document's examples, against the API's own answers", () => {
  it('the brands: auto-configure, create, list, read, update, delete', async () => {
    const { client } = await newClient();
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    const origin = { documented: 'https://acme.example', local: site.origin };
    const problems = [(await replay(client, 'autoConfigureBrand', { origin })).problems];
    restoreSettings();
    const created = await replay(client, 'createBrand');
    problems.push(created.problems);
    const params = { id: created.answer.body.id };
    for (const operationId of ['listBrands', 'getBrand', 'updateBrand', 'deleteBrand']) {
      problems.push((await replay(client, operationId, { params })).problems);
    }
    expect(problems.flat()).toEqual([]);
  });

  it('the contact fields: types, create, list, read, update, delete', async () => {
    const { client } = await newClient();
    const problems = [(await replay(client, 'listContactFieldTypes')).problems];
    const created = await replay(client, 'createContactField');
    problems.push(created.problems);
    const params = { id: created.answer.body.id };
    for (const operationId of [
      'listContactFields',
      'getContactField',
      'updateContactField',
      'deleteContactField',
    ]) {
      problems.push((await replay(client, operationId, { params })).problems);
    }
    expect(problems.flat()).toEqual([]);
  });

  it('the pages, the upload URL and the limits', async () => {
    const { client, teamId } = await newClient();
    // The limits first: a new team's first answer, whose rate limit headers the examples show.
    const problems = [(await replay(client, 'getLimits')).problems];
    // The site and page the example lists, made as the dashboard (the admin CLI) makes them.
    const main = await createSite(teamId, 'Main', 'https://example.com');
    await createPage(teamId, main.id, 'Thanks', '/thanks');
    problems.push((await replay(client, 'listPages')).problems);
    problems.push((await replay(client, 'createUploadUrl')).problems);
    expect(problems.flat()).toEqual([]);
  });

  it('the events: list and read, of a brand made and updated as the brand examples are', async () => {
    const { client } = await newClient();
    const json = 'application/json';
    const exampleOf = (operationId: string) =>
      documentedOperation(operationId).operation.requestBody.content[json].example;
    // Not made the default: the default's move would be an event of its own.
    const { is_default, ...brand } = exampleOf('createBrand');
    const created = await client.post('/api/v1/brands', brand);
    const updated = await client.put(`/api/v1/brands/${created.body.id}`, exampleOf('updateBrand'));
    expect([created.status, updated.status]).toEqual([201, 200]);
    await eventsOf(client, 2);
    const listed = await replay(client, 'listEvents');
    const problems = [listed.problems];
    const params = { id: listed.answer.body[0]?.id };
    problems.push((await replay(client, 'getEvent', { params })).problems);
    expect(problems.flat()).toEqual([]);
  });

  it('the webhook endpoints: create, list, read, update, rotate, attempts, deliveries, redeliver, recover, delete', async () => {
    const { client, teamId } = await newClient();
    // The documented receiver is the integrator's; a local one stands in for it (answering 204), which
    // the URL check allows only under the local switch.
    const receiver = await startReceiver();
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    try {
      const origin = { documented: 'https://hooks.acme.example', local: new URL(receiver.url).origin };
      const created = await replay(client, 'createWebhookEndpoint', { origin });
      const problems = [created.problems];
      const id = created.answer.body.id as number;
      for (const operationId of [
        'listWebhookEndpoints',
        'getWebhookEndpoint',
        'updateWebhookEndpoint',
        'rotateWebhookEndpointSecret',
      ]) {
        problems.push((await replay(client, operationId, { params: { id }, origin })).problems);
      }
      // A brand's event, made after the endpoint: its first try is the attempt and the delivery shown.
      expect((await client.post('/api/v1/brands', { name: 'Acme' })).status).toBe(201);
      const [event] = await eventsOf(client, 1);
      await attemptsOf(client, id, 1);
      problems.push((await replay(client, 'listWebhookEndpointAttempts', { params: { id } })).problems);
      // Its delivery, once settled (the attempt is recorded before the outcome).
      await until(
        async () =>
          (await client.get(`/api/v1/webhook-endpoints/${id}/deliveries`)).body[0]?.status === 'succeeded',
        'a delivery succeeded',
      );
      problems.push((await replay(client, 'listWebhookEndpointDeliveries', { params: { id } })).problems);
      problems.push(
        (await replay(client, 'listEventDeliveries', { params: { id: event?.id as string } })).problems,
      );
      // Sent again to the endpoint that had it (redeliver sends an event only to one that was sent it).
      const redelivered = await replay(client, 'redeliverEvent', {
        params: { id: event?.id as string },
        ids: { endpoint_id: id },
      });
      problems.push(redelivered.problems);
      await attemptsOf(client, id, 2);

      // A delivery given up: an event while the endpoint is disabled, which recover sends once it is enabled.
      const path = `/api/v1/webhook-endpoints/${id}`;
      expect((await client.put(path, { disabled: true })).status).toBe(200);
      expect((await client.post('/api/v1/brands', { name: 'Acme Labs' })).status).toBe(201);
      await eventsOf(client, 2);
      await until(
        async () => (await failedDeliveriesSince(teamId, id, 0)).length === 1,
        'a delivery given up',
      );
      expect((await client.put(path, { disabled: false })).status).toBe(200);
      problems.push((await replay(client, 'recoverWebhookEndpoint', { params: { id } })).problems);
      await attemptsOf(client, id, 3);
      problems.push((await replay(client, 'deleteWebhookEndpoint', { params: { id } })).problems);
      expect(problems.flat()).toEqual([]);
    } finally {
      restoreSettings();
      await receiver.close();
    }
  });

  // Each webhook's payload sample was once a schema's filler ("string", 9007199254740991, `{}`).
  it('the webhooks: each event type’s payload example is the event the examples’ own writes make', async () => {
    const { client } = await newClient();
    const json = 'application/json';
    const exampleOf = (operationId: string) =>
      documentedOperation(operationId).operation.requestBody.content[json].example;
    // A receiver that answers 410: the API disables the endpoint, a webhook_endpoint.disabled event.
    const receiver = await startReceiver();
    receiver.answer = () => ({ status: 410 });
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    const origin = { documented: 'https://hooks.acme.example', local: new URL(receiver.url).origin };
    try {
      const endpoint = await client.post(
        '/api/v1/webhook-endpoints',
        JSON.parse(
          JSON.stringify(exampleOf('createWebhookEndpoint')).replaceAll(origin.documented, origin.local),
        ),
      );
      const endpointPath = `/api/v1/webhook-endpoints/${endpoint.body.id}`;
      expect((await client.put(endpointPath, exampleOf('updateWebhookEndpoint'))).status).toBe(200);
      // The brand examples' brand (not made the default: the default's move would be an event of its own).
      const { is_default, ...brand } = exampleOf('createBrand');
      const created = await client.post('/api/v1/brands', brand);
      const brandPath = `/api/v1/brands/${created.body.id}`;
      expect((await client.put(brandPath, exampleOf('updateBrand'))).status).toBe(200);
      // Its created event is delivered, answered 410: the endpoint is disabled before the brand goes.
      await until(
        async () => (await client.get(endpointPath)).body.disabled === true,
        'the endpoint disabled',
      );
      expect((await client.delete(brandPath)).status).toBe(200);
      const field = await client.post('/api/v1/contact-fields', exampleOf('createContactField'));
      const fieldPath = `/api/v1/contact-fields/${field.body.id}`;
      expect((await client.put(fieldPath, exampleOf('updateContactField'))).status).toBe(200);
      expect((await client.delete(fieldPath)).status).toBe(200);
      const events = JSON.parse(
        JSON.stringify(await eventsOf(client, 7)).replaceAll(origin.local, origin.documented),
      ) as Json[];
      const problems = Object.entries(document.webhooks as Record<string, Json>).flatMap(
        ([type, { post }]) => {
          const at = pointer('webhooks', type, 'post', 'requestBody', 'content', json, 'example');
          checked.add(at);
          const real = events.filter((event) => event.type === type);
          if (real.length !== 1) return [`${type}: ${real.length} events made`];
          return differences(post.requestBody.content[json].example, real[0]).map(
            (problem) => `${type} ${problem}`,
          );
        },
      );
      expect(problems).toEqual([]);
    } finally {
      restoreSettings();
      await receiver.close();
    }
  });

  it("the schemas' and headers' own examples are values the answers had there", () => {
    const problems: string[] = [];
    for (const location of exampleLocations(document).filter((at) => at.startsWith('/components/'))) {
      const [, , kind, name, ...rest] = location.split('/');
      const examples: unknown[] = rest.reduce(
        (node: Json, part) => node[part.replaceAll('~1', '/').replaceAll('~0', '~')],
        document.components[kind as string][name as string],
      );
      let seen: unknown[] = [];
      if (kind === 'headers') {
        // The component's name is the header's, without its hyphens (RateLimitPolicy: RateLimit-Policy).
        const header = (headers: Headers) =>
          [...headers.keys()].find((key) => key.replaceAll('-', '') === (name as string).toLowerCase());
        seen = answers.map(({ headers }) => headers.get(header(headers) ?? '')).filter(Boolean);
        for (const example of examples) {
          if (!seen.includes(example)) problems.push(`${location}: ${example} never answered (${seen[0]})`);
        }
      } else if (kind === 'schemas' && rest.length === 3 && rest[0] === 'properties') {
        // A property's examples: the form of the values answered there (a timestamp's digits vary), in
        // the answers' values of the schema wherever they are.
        const property = rest[1] as string;
        seen = answers.flatMap(({ schema, body }) =>
          (componentValues(schema, body).get(name as string) ?? [])
            .map((value) => (value as Json)[property])
            .filter((value) => value !== undefined),
        );
        for (const example of examples) {
          const forms = new Set(seen.map(formOf));
          if (!forms.has(formOf(example))) problems.push(`${location}: ${example} unlike ${seen[0]}`);
        }
      }
      if (seen.length === 0) problems.push(`${location}: no answer had a value there`);
      else checked.add(location);
    }
    expect(problems).toEqual([]);
  });

  it('the security scheme: its admin commands make a token that works, and revoke it', async () => {
    const description: string = document.components.securitySchemes.bearerAuth.description;
    const commands = [...description.matchAll(/`npm run -s admin -- ([^`]+)`/g)].map(
      (match) => match[1] ?? '',
    );
    expect(commands.length).toBeGreaterThan(0);
    const made: Record<string, string> = {};
    const client = () => apiClient(api.url, made['<token>']);
    for (const command of commands) {
      const filled = Object.entries(made).reduce((line, [name, value]) => line.replace(name, value), command);
      const argv = filled.split(' ');
      const output = (await runCommand(parseCommandLine(argv))) as Record<string, unknown>;
      if (output.team_id !== undefined) made['<team id>'] = String(output.team_id);
      if (typeof output.id === 'number') made['<token id>'] = String(output.id);
      if (typeof output.token === 'string') {
        made['<token>'] = output.token;
        expect(output.token).toMatch(/^tm_[a-z][a-z0-9-]*_[0-9]+_[0-9A-Za-z]+$/);
        expect((await client().get('/api/v1/limits')).status, command).toBe(200);
      }
    }
    // The last command revoked the token: the 401 is as the description says.
    const refused = await client().get('/api/v1/limits');
    expect(refused.status).toBe(401);
    expect(description).toContain(`\`WWW-Authenticate: ${refused.headers.get('www-authenticate')}\``);
    expect(description).toContain(`{"message": "${refused.body.message}"}`);
  });

  it('checked every example the document has', () => {
    expect([...checked].sort()).toEqual(exampleLocations(document).sort());
  });
});
