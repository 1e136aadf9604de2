import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionId } from '../../../lib/cdk/route-areas.ts';
import { routes } from '../../../shared/routes.ts';
import { newTeam } from '../../support/api.ts';
import { reportedViolations, type Synthesized, synthesize } from '../../support/synth.ts';

/**
 * What `npx cdk synth` builds, once: every function bundled by esbuild, CDK's CloudFormation validation and
 * cdk-nag. Each bundle is then imported in a fresh Node process with only Lambda-like environment variables,
 * from a directory with no node_modules above it: this catches "Dynamic require of node:https is not
 * supported", a missing createRequire banner, or a package left out of the bundle.
 */
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ full: true });
});
afterAll(() => {
  if (synth) rmSync(synth.outdir, { recursive: true, force: true });
});

interface Bundle {
  functionId: string;
  dir: string;
  /** Literal values, or CloudFormation references for the stack's resources. */
  environment: Record<string, unknown>;
}

/** Each function's code is one staged asset directory; its S3 key is `<asset hash>.zip`. */
function bundles(): Bundle[] {
  const manifestPath = join(synth.assembly.directory, `${synth.stack.artifactId}.assets.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    files: Record<string, { source: { path: string; packaging: string } }>;
  };
  const functions = synth.template.findResources('AWS::Lambda::Function');
  // CDK's LogRetention function (lib/cdk/service-logs.ts) is CDK's code, not a bundle of ours.
  const ours = Object.entries(functions).filter(([functionId]) => !functionId.startsWith('LogRetention'));
  return ours.map(([functionId, fn]) => {
    const hash = String(fn.Properties.Code.S3Key).replace(/\.zip$/, '');
    const source = manifest.files[hash]?.source;
    if (!source) throw new Error(`no asset for ${functionId}`);
    return {
      functionId,
      dir: join(synth.assembly.directory, source.path),
      environment: fn.Properties.Environment.Variables,
    };
  });
}

/** Values for the CloudFormation references (table, bucket and bus names, CDN domain) in the environments. */
const DEPLOYED_VALUES: Record<string, string> = {
  TABLE_NAME: 'team-messaging-table',
  PRIVATE_BUCKET: 'team-messaging-private',
  PUBLIC_BUCKET: 'team-messaging-public',
  PUBLIC_BASE_URL: 'https://d111111abcdef8.cloudfront.net',
  EVENT_BUS_NAME: 'TeamMessagingApi-change-events',
  WEBHOOK_DELIVERER_FUNCTION: 'TeamMessagingApi-WebhookDeliveriesDeliverer-AbCdEfGhIjKl',
  SIGNING_SECRETS_KEY: 'arn:aws:kms:eu-west-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab',
};

/** The function's own environment as Lambda would set it, plus what the Lambda runtime adds. */
function lambdaEnvironment(bundle: Bundle, deployed = DEPLOYED_VALUES): Record<string, string | undefined> {
  const own = Object.entries(bundle.environment).map(([name, value]) => {
    const resolved = typeof value === 'string' ? value : deployed[name];
    if (resolved === undefined) throw new Error(`${bundle.functionId}: no value for ${name}`);
    return [name, resolved];
  });
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'eu-west-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...Object.fromEntries(own),
    // The stack sets LOG_LEVEL (INFO); the test keeps the bundles quiet.
    LOG_LEVEL: 'silent',
    METRICS: 'off',
  };
}

/** The same, pointed at the test run's DynamoDB Local (the bundles honour DYNAMODB_ENDPOINT as locally). */
function localEnvironment(bundle: Bundle): Record<string, string | undefined> {
  return {
    ...lambdaEnvironment(bundle, { ...DEPLOYED_VALUES, TABLE_NAME: process.env.TABLE_NAME ?? '' }),
    DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
  };
}

/** Imports the bundle in a child process; prints its handler's type, or the import error's message. */
const IMPORT_BUNDLE = `
try {
  const module = await import(process.argv[1]);
  console.log(JSON.stringify({ handler: typeof module.handler }));
} catch (error) {
  console.log(JSON.stringify({ error: error.message }));
}
`;

/** Imports the bundle and invokes its handler once with the given event; prints the result or the error. */
const INVOKE_BUNDLE = `
try {
  const { handler } = await import(process.argv[1]);
  const context = { awsRequestId: 'r-1', getRemainingTimeInMillis: () => 10000 };
  console.log(JSON.stringify({ result: await handler(JSON.parse(process.argv[2]), context) }));
} catch (error) {
  console.log(JSON.stringify({ error: error.message }));
}
`;

/**
 * Runs a script in a fresh Node process with the bundle's URL as its first argument, in the bundle's
 * directory, with the function's environment (NODE_OPTIONS included); returns the JSON it prints last.
 */
const execFileAsync = promisify(execFile);
async function runInNode(
  script: string,
  bundle: Bundle,
  args: string[] = [],
  env = lambdaEnvironment(bundle),
): Promise<Record<string, unknown>> {
  const entry = pathToFileURL(join(bundle.dir, 'index.mjs')).href;
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--input-type=module', '-e', script, entry, ...args],
    // The reference page's script (1.1 MB) is printed whole.
    { cwd: bundle.dir, env, timeout: 20_000, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
}

/** The bundle of a construct id (`GetDocs`, not `GetDocsAsset`): its logical id adds 8 hex digits. */
const bundleOf = (constructId: string): Bundle => {
  const bundle = bundles().find((b) => new RegExp(`^${constructId}[0-9A-F]{8}$`).test(b.functionId));
  if (!bundle) throw new Error(`no bundle for ${constructId}`);
  return bundle;
};

describe('CDK bundles', () => {
  it('builds one minified ESM bundle with a source map and the createRequire banner per function', () => {
    const all = bundles();
    // The routes', the authorizer's, the change-event consumer's and the webhook deliverer's and sweeper's.
    expect(all).toHaveLength(routes.length + 4);
    for (const bundle of all) {
      expect(readdirSync(bundle.dir).sort(), bundle.functionId).toEqual(['index.mjs', 'index.mjs.map']);
      const code = readFileSync(join(bundle.dir, 'index.mjs'), 'utf8');
      expect(code.startsWith("import { createRequire } from 'module';"), bundle.functionId).toBe(true);
      // Minified (`export{a as handler}`; unminified esbuild output is `export {\n  handler\n};`), mapped.
      expect(code, bundle.functionId).toMatch(/export\{[\w$]+ as handler\}/);
      expect(code, bundle.functionId).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
    }
  });

  it('bundles the idempotency module only into the creates, which take an Idempotency-Key', () => {
    const creates = [
      'POST /api/v1/brands',
      'POST /api/v1/contact-fields',
      'POST /api/v1/webhook-endpoints',
    ].map((endpoint) => functionId(...(endpoint.split(' ') as [string, string])));
    for (const bundle of bundles()) {
      const map = JSON.parse(readFileSync(join(bundle.dir, 'index.mjs.map'), 'utf8')) as {
        sources: string[];
      };
      const bundled = map.sources.some((source) => source.endsWith('shared/http/idempotency.ts'));
      const create = creates.some((id) => new RegExp(`^${id}[0-9A-F]{8}$`).test(bundle.functionId));
      expect(bundled, bundle.functionId).toBe(create);
    }
  });

  // A route that declares no table access (shared/routes.ts) pays no DynamoDB client in its cold start: an
  // import of a module that reaches the data layer (once: the events' types, through the request schemas)
  // would put the SDK's client into auto-configure's bundle.
  it('bundles the DynamoDB client only into functions that use the table', () => {
    const tableless = routes
      .filter((route) => !route.table)
      .map((route) => functionId(route.method, route.path));
    expect(tableless.length).toBeGreaterThan(2);
    for (const bundle of bundles()) {
      const map = JSON.parse(readFileSync(join(bundle.dir, 'index.mjs.map'), 'utf8')) as {
        sources: string[];
      };
      const bundled = map.sources.some((source) => source.includes('@aws-sdk/client-dynamodb/'));
      const withoutTable = tableless.some((id) => new RegExp(`^${id}[0-9A-F]{8}$`).test(bundle.functionId));
      if (withoutTable) expect(bundled, bundle.functionId).toBe(false);
    }
  });

  // Run from the assembly in the temp directory, so any package left out of a bundle fails to resolve, and
  // a bundle without the createRequire banner fails on its first CommonJS require of a Node built-in
  // ('Dynamic require of "node:assert" is not supported', once seen in auto-configure).
  it('loads every bundle in a fresh Node process, each exporting handler', async () => {
    const loaded = await Promise.all(
      bundles().map(async (bundle) => [bundle.functionId, await runInNode(IMPORT_BUNDLE, bundle)] as const),
    );
    for (const [functionId, output] of loaded) expect(output, functionId).toEqual({ handler: 'function' });
  });

  it('serves a request from a bundle: GET /api/v1/contact-fields/types needs neither table nor bucket', async () => {
    const path = '/api/v1/contact-fields/types';
    expect(routes.some((route) => route.method === 'GET' && route.path === path)).toBe(true);
    const event = {
      resource: path,
      path,
      httpMethod: 'GET',
      headers: { Authorization: 'Bearer t' },
      multiValueHeaders: { Authorization: ['Bearer t'] },
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId: 'gateway-request-1', authorizer: { principalId: 'team:1', teamId: '1' } },
    };
    const bundle = bundleOf('GetApiV1ContactFieldsTypes');
    const { result } = await runInNode(INVOKE_BUNDLE, bundle, [JSON.stringify(event)]);
    expect(result).toMatchObject({ statusCode: 200, headers: { 'X-Request-Id': 'gateway-request-1' } });
    expect(JSON.parse((result as { body: string }).body)).toEqual(expect.any(Object));
  });

  it('bundles Redoc only into the function that serves it, as text', () => {
    for (const bundle of bundles()) {
      const map = JSON.parse(readFileSync(join(bundle.dir, 'index.mjs.map'), 'utf8')) as {
        sources: string[];
      };
      const bundled = map.sources.some((source) => source.endsWith('redoc/bundles/redoc.standalone.js'));
      expect(bundled, bundle.functionId).toBe(bundle.functionId.startsWith('GetDocsAsset'));
    }
  });

  it('serves the reference page and its script from their bundles, under the stage prefix', async () => {
    const host = 'abc123.execute-api.eu-west-1.amazonaws.com';
    const get = (resource: string, path: string, extra: Record<string, unknown> = {}) => ({
      resource,
      path,
      httpMethod: 'GET',
      headers: { Host: host },
      multiValueHeaders: { Host: [host] },
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId: 'gateway-request-2', path: `/prod${path}` },
      ...extra,
    });
    const invoke = async (constructId: string, event: object) => {
      const output = await runInNode(INVOKE_BUNDLE, bundleOf(constructId), [JSON.stringify(event)]);
      return output.result as { statusCode: number; headers: Record<string, string>; body: string };
    };

    const page = await invoke('GetDocs', get('/docs', '/docs'));
    expect(page.statusCode).toBe(200);
    expect(page.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<redoc spec-url="/prod/api/v1/openapi.json">');
    const [, asset = '', query = ''] = page.body.match(/<script src="\/prod\/docs\/([^"?]+)\?([^"]+)"/) ?? [];
    expect(asset).toBe('redoc.standalone.js');

    const script = await invoke(
      'GetDocsAsset',
      get('/docs/{asset}', `/docs/${asset}`, {
        pathParameters: { asset },
        queryStringParameters: Object.fromEntries(new URLSearchParams(query)),
      }),
    );
    expect(script.statusCode).toBe(200);
    expect(script.headers).toMatchObject({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=31536000, immutable',
    });
    expect(script.body.length).toBeGreaterThan(1_000_000);
  });

  // A real round trip through the bundled (not the runtime's) AWS SDK, from a directory without node_modules.
  it('the bundled authorizer reads a real token through the bundled AWS SDK (DynamoDB Local)', async () => {
    const { teamId, token } = await newTeam();
    const bundle = bundleOf('Authorizer');
    const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:api1/prod/GET/api/v1/brands';
    const event = (authorizationToken: string) => [
      JSON.stringify({ type: 'TOKEN', authorizationToken, methodArn }),
    ];

    const allowed = await runInNode(
      INVOKE_BUNDLE,
      bundle,
      event(`Bearer ${token}`),
      localEnvironment(bundle),
    );
    expect(allowed).toMatchObject({
      result: {
        principalId: `team:${teamId}`,
        context: { teamId },
        policyDocument: {
          Statement: [
            { Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-west-1:123456789012:api1/prod/*' },
          ],
        },
      },
    });
    const denied = await runInNode(
      INVOKE_BUNDLE,
      bundle,
      event('Bearer tm_unknown'),
      localEnvironment(bundle),
    );
    expect(denied).toEqual({ error: 'Unauthorized' });
  });

  it('synthesizes with no validation findings: cdk-nag and CloudFormation schema checks', () => {
    expect(reportedViolations(synth.assembly)).toEqual([]);
  });
});
