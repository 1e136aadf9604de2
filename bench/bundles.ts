import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { CfnFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { ApiFunction } from '../lib/cdk/api-function.ts';
import { type Route, routeKey } from '../shared/routes.ts';
import { synthesize } from '../test/support/synth.ts';

/**
 * Cold start cost: every function's bundle exactly as `cdk synth` builds it (the app synthesized into a
 * temporary directory), the floor bundles (one per kind) built by the same function construct, what each
 * contains, and how long a fresh Node process takes to import it.
 */
export interface Bundle {
  /** `GET /api/v1/brands`, `authorizer`, or a floor's name (`floor`, `floor + S3`, …). */
  name: string;
  dir: string;
  /** The function's environment from the template (resource references as placeholders). */
  environment: Record<string, string>;
  /**
   * Heavy packages this function needs (route table: file access needs S3, fetching the web the HTML parser and tldts,
   * starting webhook deliveries the Lambda client, sealing or opening signing secrets the KMS client).
   */
  needs: string[];
  /** The floor it is measured against: the least a function of its kind can be. */
  floor: string;
}

/** One floor per kind of function: the DynamoDB floor, plus what the design fixes for the kind. */
const FLOORS = [
  { name: 'floor', entry: 'bench/floor-entry.ts', needs: [] as string[] },
  { name: 'floor + S3', entry: 'bench/floor-s3-entry.ts', needs: ['@aws-sdk/client-s3'] },
  {
    name: 'floor + HTML parser + Public Suffix List',
    entry: 'bench/floor-web-entry.ts',
    needs: ['node-html-parser', 'tldts'],
  },
  { name: 'floor + Lambda', entry: 'bench/floor-lambda-entry.ts', needs: ['@aws-sdk/client-lambda'] },
];

const floorFor = (needs: string[]): string =>
  FLOORS.findLast((floor) => floor.needs.every((name) => needs.includes(name)))?.name ?? 'floor';

export const HEAVY_PACKAGES = [
  '@aws-sdk/client-s3',
  'node-html-parser',
  'tldts',
  '@aws-sdk/client-lambda',
  '@aws-sdk/client-kms',
];

export interface BundleReport {
  name: string;
  bytes: number;
  /** Minified bytes per package (from the source map; `(own code)` is this repository's). */
  packages: Record<string, number>;
  /** Heavy packages it contains that it does not need. */
  unneeded: string[];
  heavy: string[];
  floor: string;
  load?: { importMs: number; processMs: number };
}

/** Synthesizes the app and the floors; `remove()` deletes both assemblies. */
export function buildBundles(): { functions: Bundle[]; floors: Bundle[]; remove(): void } {
  const app = synthesize({ full: true });
  const floorOutdir = mkdtempSync(join(tmpdir(), 'tm-bench-floor-'));
  try {
    // The route functions are in the areas' nested stacks: `template` reads them in (test/support/synth.ts).
    const resources = app.template.toJSON().Resources as Resources;
    const functions = [
      ...app.stack.routeFunctions,
      { route: undefined, fn: app.stack.node.findChild('Authorizer') as LambdaFunction },
    ].map(({ route, fn }) => {
      const needs = route ? heavyPackagesNeeded(route) : [];
      return {
        name: route ? routeKey(route) : 'authorizer',
        ...asset(app.assembly, app.stack, resources, fn),
        needs,
        floor: floorFor(needs),
      };
    });

    const floorApp = new App({ outdir: floorOutdir });
    const floorStack = new Stack(floorApp, 'BenchFloor');
    const floorFunctions = FLOORS.map(
      (floor, i) =>
        new ApiFunction(floorStack, `Floor${i}`, {
          entry: floor.entry,
          environment: { TABLE_NAME: 'bench-floor', BUCKET: 'bench-floor' },
          logRemovalPolicy: RemovalPolicy.DESTROY,
        }),
    );
    const assembly = floorApp.synth();
    const floors = FLOORS.map((floor, i) => ({
      name: floor.name,
      ...asset(
        assembly,
        floorStack,
        (assembly.getStackArtifact(floorStack.artifactId).template as { Resources: Resources }).Resources,
        floorFunctions[i] as LambdaFunction,
      ),
      needs: floor.needs,
      floor: floor.name,
    }));
    return {
      functions,
      floors,
      remove: () => {
        rmSync(app.outdir, { recursive: true, force: true });
        rmSync(floorOutdir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(app.outdir, { recursive: true, force: true });
    rmSync(floorOutdir, { recursive: true, force: true });
    throw error;
  }
}

function heavyPackagesNeeded(route: Route): string[] {
  return [
    ...((route.files ?? []).length > 0 ? ['@aws-sdk/client-s3'] : []),
    // Reading web pages: the HTML parser and the Public Suffix List (about 140 KB).
    ...(route.fetchesWeb ? ['node-html-parser', 'tldts'] : []),
    ...(route.deliversWebhooks ? ['@aws-sdk/client-lambda'] : []),
    // Sealing or opening webhook signing secrets (about 64 KB).
    ...(route.signingSecrets ? ['@aws-sdk/client-kms'] : []),
  ];
}

type Resources = Record<string, { Properties: FunctionProperties }>;

/**
 * A function's staged code directory (its S3 key is `<asset hash>.zip`, in the asset manifest of the
 * top-level stack, nested stacks' assets included) and environment.
 */
function asset(assembly: CloudAssembly, stack: Stack, resources: Resources, fn: LambdaFunction) {
  const resource = resources[Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnFunction)];
  if (!resource) throw new Error(`no template resource for ${fn.node.path}`);
  const hash = String(resource.Properties.Code.S3Key).replace(/\.zip$/, '');
  const manifest = JSON.parse(
    readFileSync(join(assembly.directory, `${stack.artifactId}.assets.json`), 'utf8'),
  ) as { files: Record<string, { source: { path: string } }> };
  const source = manifest.files[hash]?.source;
  if (!source) throw new Error(`no asset for ${fn.node.path}`);
  const environment = Object.fromEntries(
    Object.entries(resource.Properties.Environment?.Variables ?? {}).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : `bench-${name.toLowerCase()}`,
    ]),
  );
  return { dir: join(assembly.directory, source.path), environment };
}

interface FunctionProperties {
  Code: { S3Key: unknown };
  Environment?: { Variables?: Record<string, unknown> };
}

/** Size and contents of a bundle, from `index.mjs` and its source map. */
export function inspect(bundle: Bundle): BundleReport {
  const code = readFileSync(join(bundle.dir, 'index.mjs'), 'utf8');
  const map = JSON.parse(readFileSync(join(bundle.dir, 'index.mjs.map'), 'utf8')) as SourceMap;
  const packages = bytesByPackage(code, map);
  const heavy = HEAVY_PACKAGES.filter((name) => packages[name] !== undefined);
  return {
    name: bundle.name,
    bytes: statSync(join(bundle.dir, 'index.mjs')).size,
    packages,
    heavy,
    unneeded: heavy.filter((name) => !bundle.needs.includes(name)),
    floor: bundle.floor,
  };
}

interface SourceMap {
  sources: string[];
  mappings: string;
}

/**
 * Generated characters per package: each mapping segment covers the code up to the next segment (or the
 * end of its line) and belongs to its source file's package. Characters approximate bytes (the minified
 * code is almost all ASCII); code no segment maps (the banner) is `(unmapped)`.
 */
function bytesByPackage(code: string, map: SourceMap): Record<string, number> {
  const packageOf = map.sources.map((source) => {
    const inModules = source.split('node_modules/').at(-1) as string;
    if (inModules === source) return '(own code)';
    const [scope = '', name = ''] = inModules.split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  });
  const totals = new Map<string, number>();
  const add = (name: string, size: number) => totals.set(name, (totals.get(name) ?? 0) + size);
  const lines = code.split('\n');
  let sourceIndex = 0;
  map.mappings.split(';').forEach((line, lineIndex) => {
    const length = lines[lineIndex]?.length ?? 0;
    let column = 0;
    let covered = 0;
    let owner: string | undefined;
    for (const segment of line ? line.split(',') : []) {
      const fields = decodeVlq(segment);
      column += fields[0] ?? 0;
      add(owner ?? '(unmapped)', column - covered);
      covered = column;
      if (fields.length >= 4) {
        sourceIndex += fields[1] ?? 0;
        owner = packageOf[sourceIndex] ?? '(unmapped)';
      } else owner = undefined;
    }
    add(owner ?? '(unmapped)', length - covered);
  });
  return Object.fromEntries([...totals].filter(([, size]) => size > 0).sort((a, b) => b[1] - a[1]));
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function decodeVlq(segment: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    values.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return values;
}

/** Imports the bundle in the child and prints how long the import took. */
const IMPORT = `
const start = performance.now();
await import(process.argv[1]);
process.stdout.write(String(performance.now() - start));
`;

const execFileAsync = promisify(execFile);

/**
 * Median time for a fresh Node process to import each bundle (`importMs`, measured inside the process
 * around the import) and to start, import and exit (`processMs`). Bundles take turns, so drift on the
 * machine affects them alike. Each runs from its own directory with no node_modules above it, with its
 * Lambda environment (NODE_OPTIONS=--enable-source-maps included).
 */
export async function loadTimes(bundles: Bundle[], rounds: number) {
  const samples = new Map<string, Array<{ importMs: number; processMs: number }>>();
  for (let round = 0; round < rounds; round++) {
    for (const bundle of bundles) {
      const start = performance.now();
      const { stdout } = await execFileAsync(
        process.execPath,
        ['--input-type=module', '-e', IMPORT, pathToFileURL(join(bundle.dir, 'index.mjs')).href],
        {
          cwd: bundle.dir,
          timeout: 30_000,
          env: {
            PATH: process.env.PATH,
            AWS_REGION: 'us-east-1',
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
            LOG_LEVEL: 'silent',
            METRICS: 'off',
            ...bundle.environment,
          },
        },
      );
      const sample = { importMs: Number(stdout), processMs: performance.now() - start };
      samples.set(bundle.name, [...(samples.get(bundle.name) ?? []), sample]);
    }
  }
  return new Map(
    [...samples].map(([name, list]) => [
      name,
      { importMs: median(list.map((s) => s.importMs)), processMs: median(list.map((s) => s.processMs)) },
    ]),
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
