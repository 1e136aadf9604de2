import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionId } from '../../../lib/cdk/route-areas.ts';
import { CDK_JSON_CONTEXT, type CfnTemplate, synthesizeOffline } from '../../../lib/cdk/synth-offline.ts';
import { findFunction, invocableFunctions, sampleEvent, sampleEventPath } from '../../../lib/local/invoke.ts';
import { OPERATIONS } from '../../../lib/openapi/operations.ts';
import { nowIso } from '../../../shared/data/dynamo.ts';
import { revokeToken } from '../../../shared/data/tokens.ts';
import { routes } from '../../../shared/routes.ts';
import { useApi } from '../../support/api.ts';
import { runScript, useLocalConfigDir } from '../../support/processes.ts';

/**
 * `npm run invoke`: one function of the stack run in-process with an event, against the
 * test run's DynamoDB Local and s3rver found through a local.json, as `npm start`'s are. Each spawn compiles
 * TypeScript as it starts (tsx): the timeouts are for hangs only.
 */
const api = useApi();
const local = useLocalConfigDir('tm-invoke-');

async function invokeCli(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; json: ReturnType<typeof JSON.parse>; stdout: string; stderr: string }> {
  const run = runScript('bin/invoke.ts', args, { ...local.env, ...extraEnv });
  const code = await run.exited;
  const { stdout, stderr } = run.output();
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, json, stdout, stderr };
}

/** A function's sample event as plain JSON, as a user saves and edits it. */
const sample = async (name: string) => JSON.parse(JSON.stringify(await sampleEvent(findFunction(name).fn)));
let files = 0;
/** An event file of the test's own, as a user edits a sample. */
async function eventFile(event: unknown): Promise<string> {
  const file = join(local.dir, `event-${++files}.json`);
  await writeFile(file, JSON.stringify(event));
  return file;
}
/** A route's sample event as the authorizer would hand it for `teamId`. */
async function asTeam(name: string, teamId: number, body?: unknown) {
  const event = await sample(name);
  event.requestContext.authorizer = { ...event.requestContext.authorizer, teamId: String(teamId) };
  event.requestContext.authorizer.principalId = `team:${teamId}`;
  if (body !== undefined) event.body = JSON.stringify(body);
  return event;
}

describe('the functions and their sample events', () => {
  it('names every function of the stack as its construct id, each with a sample event: a route’s derived from its row, the others’ kept in events/', async () => {
    const functions = invocableFunctions();
    expect(functions.filter((fn) => fn.route).map((fn) => fn.name)).toEqual(
      routes.map((route) => functionId(route.method, route.path)),
    );
    expect(functions.filter((fn) => !fn.route).map((fn) => fn.name)).toEqual([
      'Authorizer',
      'Consumer',
      'Sweeper',
      'Deliverer',
    ]);
    // events/ keeps only what no row derives: a route's file would be a second spelling of its row.
    expect(readdirSync(join(sampleEventPath('Authorizer'), '..')).sort()).toEqual(
      functions
        .filter((fn) => !fn.route)
        .map((fn) => `${fn.name}.json`)
        .sort(),
    );
    for (const fn of functions) {
      expect(existsSync(sampleEventPath(fn.name)), fn.name).toBe(!fn.route);
      const event = await sample(fn.name);
      if (fn.route) {
        // An API Gateway (REST) proxy event of the route, behind the authorizer unless the route is public.
        expect(event, fn.name).toMatchObject({ httpMethod: fn.route.method, resource: fn.route.path });
        expect(event.requestContext.resourcePath).toBe(fn.route.path);
        expect(event.requestContext.authorizer === undefined, fn.name).toBe(fn.route.public === true);
      }
    }
    expect(await sample('Authorizer')).toMatchObject({ type: 'TOKEN', authorizationToken: /^Bearer tm_/ });
    expect((await sample('Consumer')).Records[0]).toMatchObject({
      eventSource: 'aws:dynamodb',
      eventName: 'INSERT',
    });
    expect(await sample('Sweeper')).toMatchObject({ 'detail-type': 'Scheduled Event', source: 'aws.events' });
  });

  it('derives a route’s sample from its row: sample path parameters, the operation’s example body, the sample team', async () => {
    const update = await sample('PutApiV1BrandsId');
    expect(update).toMatchObject({
      path: '/api/v1/brands/1',
      pathParameters: { id: '1' },
      body: JSON.stringify(OPERATIONS['PUT /api/v1/brands/{id}']?.example.request),
      headers: { 'Content-Type': 'application/json', Authorization: expect.stringMatching(/^Bearer tm_/) },
    });
    expect(update.requestContext.authorizer).toMatchObject({
      principalId: 'team:1',
      teamId: '1',
      scopes: '*',
    });
    // A parameter whose schema names its values takes the first; a route without an example has no body.
    const asset = await sample('GetDocsAsset');
    expect([asset.path, asset.pathParameters, asset.body]).toEqual([
      '/docs/redoc.standalone.js',
      { asset: 'redoc.standalone.js' },
      null,
    ]);
    expect(Object.keys(asset.headers)).toEqual(['Accept', 'Host']);
  });

  it('finds a route by "METHOD /path", its template or a concrete path, and by name in any case', () => {
    expect(findFunction('GET /api/v1/brands/{id}').fn.name).toBe('GetApiV1BrandsId');
    expect(findFunction('get /api/v1/brands/12')).toMatchObject({
      fn: { name: 'GetApiV1BrandsId' },
      concrete: { path: '/api/v1/brands/12', pathParameters: { id: '12' } },
    });
    expect(findFunction('POST /api/v1/brands').fn.name).toBe('PostApiV1Brands');
    expect(findFunction('authorizer').fn.kind).toBe('authorizer');
    expect(findFunction('getapiv1limits').fn.name).toBe('GetApiV1Limits');
  });
});

describe('the synthesized template, for `sam local invoke -t`', () => {
  it('marks every function’s code and every nested stack’s template as an asset in cdk.out, as the CDK CLI synthesizes it', () => {
    // The CLI's default (`--asset-metadata`), which cdk.json does not turn off: what SAM reads the code's
    // folder and the nested stacks' template files from.
    expect(JSON.stringify(CDK_JSON_CONTEXT)).not.toContain('enable-asset-metadata');
    const synth = synthesizeOffline({ context: { 'aws:cdk:enable-asset-metadata': true } });
    try {
      const functionsOf = (template: CfnTemplate) =>
        Object.entries(template.Resources ?? {}).filter(
          ([, resource]) => resource.Type === 'AWS::Lambda::Function',
        );
      const nested = Object.entries(synth.template.Resources ?? {}).filter(
        ([, resource]) => resource.Type === 'AWS::CloudFormation::Stack',
      );
      const found = functionsOf(synth.template);
      for (const [id, stack] of nested) {
        const metadata = stack.Metadata as Record<string, string>;
        expect(metadata['aws:asset:property'], id).toBe('TemplateURL');
        const file = join(synth.outdir, metadata['aws:asset:path'] ?? '');
        expect(existsSync(file), id).toBe(true);
        const template = JSON.parse(readFileSync(file, 'utf8')) as CfnTemplate;
        found.push(
          ...functionsOf(template).map(([fnId, fn]) => [`${id}/${fnId}`, fn] as (typeof found)[number]),
        );
        for (const [fnId, fn] of functionsOf(template)) {
          expect(fn.Metadata, `${id}/${fnId}`).toMatchObject({
            'aws:asset:property': 'Code',
            'aws:asset:path': expect.any(String),
          });
        }
      }
      for (const [id, fn] of functionsOf(synth.template)) {
        expect(fn.Metadata, id).toMatchObject({
          'aws:asset:property': 'Code',
          'aws:asset:path': expect.any(String),
        });
      }
      // Each function `npm run invoke` names is in the assembly: a route's in its area's nested stack, as
      // `<AreaRoutes>/<name><hash>`, the others in the main stack as `<construct path><hash>`; its context
      // counts down from the timeout the stack gives it.
      for (const fn of invocableFunctions()) {
        const pattern = fn.route
          ? new RegExp(`^\\w+Routes/${fn.name}[0-9A-F]{8}$`)
          : new RegExp(`^(ChangeEvents|WebhookDeliveries)?${fn.name}[0-9A-F]{8}$`);
        const matches = found.filter(([id]) => pattern.test(id));
        expect(matches, fn.name).toHaveLength(1);
        const properties = matches[0]?.[1].Properties as { Timeout?: number } | undefined;
        expect(properties?.Timeout, fn.name).toBe(fn.timeoutSeconds);
      }
    } finally {
      rmSync(synth.outdir, { recursive: true, force: true });
    }
  });
});

describe('npm run invoke', () => {
  it('runs a route by "METHOD /path" against the local services, printing the handler’s result', async () => {
    const caller = await api.caller();
    const created = await invokeCli(
      [
        'POST /api/v1/brands',
        '--event',
        await eventFile(await asTeam('PostApiV1Brands', caller.teamId, { name: 'Invoked' })),
      ],
      { LOG_LEVEL: 'DEBUG', METRICS: 'on' },
    );
    expect(created.code).toBe(0);
    // The handler's log and metric lines on stderr, as SAM shows them: stdout is the result alone.
    expect(created.stderr).toContain('"_aws"');
    expect(created.json).toMatchObject({ statusCode: 201, headers: expect.any(Object) });
    const brand = JSON.parse(created.json.body);
    expect(brand).toMatchObject({ id: expect.any(Number), name: 'Invoked' });
    // Written where the API reads: the team sees it through the gateway.
    const read = await caller.client.get(`/api/v1/brands/${brand.id}`);
    expect([read.status, read.body.name]).toEqual([200, 'Invoked']);
    // A concrete path goes into the event.
    const got = await invokeCli([
      `GET /api/v1/brands/${brand.id}`,
      '--event',
      await eventFile(await asTeam('GetApiV1BrandsId', caller.teamId)),
    ]);
    expect([got.code, got.json.statusCode, JSON.parse(got.json.body).id]).toEqual([0, 200, brand.id]);
  });

  it('prints a route’s sample event with --print-event, a concrete path put in it, running nothing', async () => {
    const printed = await invokeCli(['GET /api/v1/webhook-endpoints/42/attempts', '--print-event'], {
      DATA_DIR: join(local.dir, 'none'),
    });
    expect(printed.code).toBe(0);
    expect(printed.json).toMatchObject({
      httpMethod: 'GET',
      resource: '/api/v1/webhook-endpoints/{id}/attempts',
      path: '/api/v1/webhook-endpoints/42/attempts',
      pathParameters: { id: '42' },
    });
  });

  it('runs the authorizer with a TOKEN event: a live token’s policy, Unauthorized for a revoked one', async () => {
    const caller = await api.caller();
    const event = { ...(await sample('Authorizer')), authorizationToken: `Bearer ${caller.token}` };
    const allowed = await invokeCli(['Authorizer', '--event', await eventFile(event)]);
    expect(allowed.code).toBe(0);
    expect(allowed.json).toMatchObject({
      principalId: `team:${caller.teamId}`,
      policyDocument: { Statement: [{ Effect: 'Allow' }] },
      context: { teamId: caller.teamId },
    });
    await revokeToken(caller.token);
    const refused = await invokeCli(['authorizer', '--event', await eventFile(event)]);
    expect([refused.code, refused.json]).toEqual([1, { errorType: 'Error', errorMessage: 'Unauthorized' }]);
  });

  it('runs the change-event consumer with a DynamoDB stream batch: its events are in the team’s log', async () => {
    const caller = await api.caller();
    const batch = await sample('Consumer');
    const fieldId = 900_000_000 + caller.teamId;
    const { dynamodb } = batch.Records[0];
    for (const image of [dynamodb.Keys, dynamodb.NewImage]) {
      image.pk = { S: `TEAM#${caller.teamId}` };
      image.sk = { S: `FIELD#${String(fieldId).padStart(12, '0')}` };
    }
    dynamodb.NewImage.id = { N: String(fieldId) };
    dynamodb.NewImage.team_id = { N: String(caller.teamId) };
    dynamodb.NewImage.created_at = dynamodb.NewImage.updated_at = { S: nowIso() };
    const consumed = await invokeCli(['Consumer', '--event', await eventFile(batch)]);
    expect([consumed.code, consumed.json]).toEqual([0, { batchItemFailures: [] }]);
    const events = await caller.client.get('/api/v1/events');
    expect(events.status).toBe(200);
    expect(events.body).toContainEqual(
      expect.objectContaining({
        type: 'contact_field.created',
        data: expect.objectContaining({ object: expect.objectContaining({ id: fieldId, tag: 'crm_id' }) }),
      }),
    );
  });

  it('runs the sweeper with a schedule tick and the deliverer with its sample, each returning nothing', async () => {
    const [sweeper, deliverer] = await Promise.all([invokeCli(['Sweeper']), invokeCli(['Deliverer'])]);
    expect([sweeper.code, sweeper.json, sweeper.stderr]).toEqual([0, null, '']);
    expect([deliverer.code, deliverer.json]).toEqual([0, null]);
  });

  it('lists the functions there are for an unknown name, and says to start the stack when there is none', async () => {
    const unknown = await invokeCli(['GetBrand']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^unknown function "GetBrand": name one of\n/);
    for (const name of [
      'GetApiV1BrandsId',
      'GET /api/v1/brands/{id}',
      'Authorizer',
      'Consumer',
      'Sweeper',
      'Deliverer',
    ]) {
      expect(unknown.stderr).toContain(name);
    }
    expect((await invokeCli(['GET /api/v1/nothing'])).stderr).toMatch(
      /^unknown function "GET \/api\/v1\/nothing"/,
    );
    const run = runScript('bin/invoke.ts', ['GET /api/v1/limits'], {
      ...local.env,
      DATA_DIR: join(local.dir, 'none'),
    });
    expect(await run.exited).toBe(1);
    expect(run.output().stderr).toMatch(/run npm start first/);
  });
});
