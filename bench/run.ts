import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { handlerEnvironment, LOCAL_RESOURCES, servicesConfig } from '../lib/local/local-api.ts';
import { provision, startServices } from '../lib/local/services.ts';
import { configure } from '../shared/config.ts';
import { SDK_CALL_BUDGET_MS, TIMEOUTS } from '../shared/limits.ts';
import { findRoute, functionTimeoutSeconds } from '../shared/routes.ts';
import { measureAutoConfigureCpu } from './autoconfigure-cpu.ts';
import { buildBundles, inspect, loadTimes } from './bundles.ts';
import { measureEventLatency } from './event-latency.ts';
import { measure, percentile } from './measure.ts';
import { timeToUnavailable } from './outage.ts';
import {
  autoConfigureCpuJson,
  autoConfigureCpuTable,
  type ColdStart,
  CPU_TARGET_MS,
  coldStartTable,
  type Environment,
  footprintJson,
  LATENCY_TARGET,
  LOAD_TARGET,
  latencyTable,
  latestJson,
  outageTable,
  roundTripTable,
} from './report.ts';
import { createScenarios } from './scenarios/index.ts';
import { measureDeliveryLatency } from './webhook-latency.ts';
import { measureDeliveryScale } from './webhook-scale.ts';
import { startCountingProxy } from './wire.ts';

/**
 * `npm run bench`: DynamoDB round trips per request (counted at the wire), handler latency next to the
 * floor of its own SDK calls, and cold start cost (bundle contents and load time next to a floor bundle).
 * It reports; it fails only when the bench itself cannot run. Its JSON goes to the ignored .tmp/bench, so
 * a run leaves the work tree clean; `-- --record` writes the committed baseline, bench/results, instead.
 * `-- --quick` runs a tenth of the iterations and writes no results.
 */
const quick = process.argv.includes('--quick');
const record = process.argv.includes('--record');
const SCALE = quick ? 0.1 : 1;
const LOAD_ROUNDS = quick ? 3 : 15;
/** Events appear within 2 s of the change. */
const EVENT_TARGET_MS = 2000;
const RESULTS_DIR = record
  ? resolve(import.meta.dirname, 'results')
  : resolve(import.meta.dirname, '../.tmp/bench');

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const progress = (message: string) => process.stderr.write(`${message}\n`);

const scratchDir = await mkdtemp(join(tmpdir(), 'tm-bench-'));
const cleanups: Array<() => Promise<void> | void> = [
  async () => rm(scratchDir, { recursive: true, force: true }),
];
let stopping: Promise<void> | undefined;
/** Stops exactly what this process started, last started first. */
const stop = () =>
  (stopping ??= (async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  })());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stop().then(() => process.exit(130)));
}

try {
  const services = await startServices({ scratchDir });
  cleanups.push(() => services.stop());
  await provision(services, LOCAL_RESOURCES);
  const proxy = await startCountingProxy(services.dynamodbEndpoint);
  cleanups.push(() => proxy.close());

  configure({
    ...process.env,
    ...handlerEnvironment(servicesConfig({ ...services, dynamodbEndpoint: proxy.url })),
    LOG_LEVEL: 'silent',
    METRICS: 'off',
    AUTOCONFIGURE_ALLOW_LOOPBACK: '1',
  });

  const floorClient = bareClient(proxy.url);
  const directClient = bareClient(services.dynamodbEndpoint);
  cleanups.push(() => {
    floorClient.destroy();
    directClient.destroy();
  });
  const proxyCost = await getItemCost(floorClient, directClient);
  const environment: Environment = {
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cpus: cpus().length,
    getItemViaProxyMs: proxyCost.viaProxy,
    getItemDirectMs: proxyCost.direct,
    loadRounds: LOAD_ROUNDS,
  };

  const { scenarios, close } = await createScenarios();
  cleanups.push(close);
  const results = [];
  for (const scenario of scenarios) {
    const started = performance.now();
    const iterations = scenario.iterations && Math.max(1, Math.round(scenario.iterations * SCALE));
    const result = await measure({ ...scenario, iterations }, proxy, floorClient);
    results.push(result);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    progress(
      `  ${scenario.name}: ${result.error ? `ERROR ${result.error}` : `${result.roundTrips} round trip${result.roundTrips === 1 ? '' : 's'}`} (${seconds} s)`,
    );
  }

  progress('every endpoint at once with DynamoDB hung...');
  const outages = await timeToUnavailable(scenarios, proxy);

  progress('change events: from a write to its event in the log...');
  const events = await measureEventLatency(
    { dynamodb_endpoint: services.dynamodbEndpoint, table_name: LOCAL_RESOURCES.tableName },
    Math.max(5, Math.round(100 * SCALE)),
  );

  progress('webhooks: from a write to its delivery at a receiver, alone and beside a failing endpoint...');
  const deliveries = await measureDeliveryLatency(
    { dynamodb_endpoint: services.dynamodbEndpoint, table_name: LOCAL_RESOURCES.tableName },
    Math.max(5, Math.round(100 * SCALE)),
  );

  progress('webhooks at scale: many teams and endpoints at once, write units per delivery at the wire...');
  const deliveryScale = await measureDeliveryScale(
    { dynamodb_endpoint: services.dynamodbEndpoint, table_name: LOCAL_RESOURCES.tableName },
    { teams: 20, endpointsPerTeam: 5, changesPerTeam: quick ? 4 : 20 },
  );

  progress('auto-configure: CPU per page, real pages and hostile pages of the largest size read...');
  const autoConfigureCpu = await measureAutoConfigureCpu(
    quick ? { real: 2, hostile: 1 } : { real: 10, hostile: 3 },
  );

  progress('bundling every function as cdk synth does...');
  const bundles = buildBundles();
  cleanups.push(() => bundles.remove());
  progress(`importing each bundle in a fresh Node process, ${LOAD_ROUNDS} rounds...`);
  const loads = await loadTimes([...bundles.functions, ...bundles.floors], LOAD_ROUNDS);
  const report = (bundle: (typeof bundles.floors)[number]) => ({
    ...inspect(bundle),
    load: loads.get(bundle.name),
  });
  const cold: ColdStart = { floors: bundles.floors.map(report), functions: bundles.functions.map(report) };

  console.log(`\nNode ${environment.node} on ${environment.cpus}× ${environment.cpu}`);
  console.log(
    `GetItem p50 ${environment.getItemViaProxyMs.toFixed(2)} ms through the counting proxy, ` +
      `${environment.getItemDirectMs.toFixed(2)} ms direct (handlers and floors both go through it)`,
  );
  console.log('\n1. DynamoDB round trips per request (counted at the wire, steady state)\n');
  console.log(roundTripTable(results));
  console.log(
    `\n2. Handler latency in-process vs the floor of its own SDK calls (target ≤ ${LATENCY_TARGET}×)\n`,
  );
  console.log(latencyTable(results));
  console.log(
    `\n3. Cold start: bundles as cdk synth builds them; import time in a fresh Node process, ` +
      `median of ${LOAD_ROUNDS} (target ≤ ${LOAD_TARGET}× the floor of its kind)\n`,
  );
  console.log(coldStartTable(cold));
  console.log(
    '\n4. DynamoDB hung: time to a clean answer per endpoint (503 with Retry-After where the table is needed)\n',
  );
  console.log(outageTable(outages, { sdkCallMs: SDK_CALL_BUDGET_MS, functionMs: functionTimeoutMs }));
  console.log(
    `\n5. Change events: a write's answer to its event in the log, locally (target ≤ ${EVENT_TARGET_MS} ms)\n`,
  );
  console.log(
    `n ${events.n}  p50 ${events.p50.toFixed(0)} ms  p99 ${events.p99.toFixed(0)} ms  max ${events.max.toFixed(0)} ms  ` +
      `${events.p99 <= EVENT_TARGET_MS ? 'PASS' : 'OVER'}`,
  );

  console.log(
    "\n6. Webhooks: a write's answer to its delivery at a receiver on 127.0.0.1, locally; then the same with a " +
      'second endpoint of the team whose receiver answers 500 to every request\n',
  );
  const line = (label: string, latency: typeof deliveries.alone) =>
    `${label}  n ${latency.n}  p50 ${latency.p50.toFixed(0)} ms  p99 ${latency.p99.toFixed(0)} ms  max ${latency.max.toFixed(0)} ms`;
  console.log(line('alone         ', deliveries.alone));
  console.log(line('beside a 500  ', deliveries.beside500));
  console.log(`(the failing receiver got ${deliveries.failedTries} tries meanwhile)`);
  const kms = deliveries.kmsCalls;
  console.log(
    `KMS calls for those ${kms.deliveries} deliveries (signing secrets, warm deliverer): ${kms.Decrypt} Decrypt, ${kms.GenerateDataKey} GenerateDataKey`,
  );

  console.log(
    `\n7. Auto-configure: CPU time per page (user + system, the whole domain call from a local site), real pages ` +
      `next to hostile pages of the largest size read (target ≤ ${CPU_TARGET_MS} ms for a hostile page)\n`,
  );
  console.log(autoConfigureCpuTable(autoConfigureCpu));

  console.log(
    `\n8. Webhooks at scale: ${deliveryScale.teams} teams × ${deliveryScale.endpointsPerTeam} endpoints, ` +
      `${deliveryScale.changes} changes, every delivery to a receiver on 127.0.0.1; write units of the ` +
      'delivery bookkeeping counted at the wire (ReturnConsumedCapacity; at most 3 a first try)\n',
  );
  console.log(
    `${deliveryScale.deliveries} deliveries in ${deliveryScale.seconds.toFixed(1)} s: ` +
      `${deliveryScale.deliveriesPerSecond.toFixed(0)} deliveries/s`,
  );
  const units = (label: string, tally: typeof deliveryScale.single, perDelivery: number) =>
    `${label}  ${perDelivery.toFixed(2)} units/delivery  (${tally.units} units, ${tally.indexUnits} of them ` +
    `the index's; ${tally.writes} writes, ${tally.refused} refused by their condition)`;
  console.log(units('one delivery alone', deliveryScale.single, deliveryScale.unitsPerDelivery.single));
  console.log(units('under load        ', deliveryScale.load, deliveryScale.unitsPerDelivery.load));

  if (quick) {
    console.log('\n--quick: results not written');
  } else {
    await mkdir(RESULTS_DIR, { recursive: true });
    const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
    await writeFile(
      join(RESULTS_DIR, 'latest.json'),
      json({
        ...latestJson(environment, results, cold, outages),
        change_events_ms: events,
        webhook_delivery_ms: deliveries,
        webhook_delivery_scale: deliveryScale,
        auto_configure_cpu: autoConfigureCpuJson(autoConfigureCpu),
      }),
    );
    await writeFile(join(RESULTS_DIR, 'footprint.json'), json(footprintJson(results, cold)));
    const where = relative(process.cwd(), RESULTS_DIR);
    console.log(`\nwritten: ${join(where, 'latest.json')}, ${join(where, 'footprint.json')}`);
    if (!record) console.log('the committed baseline is bench/results: npm run bench -- --record writes it');
  }
} finally {
  await stop();
}

function functionTimeoutMs(endpoint: string): number {
  const [method = '', path = ''] = endpoint.split(' ');
  const route = findRoute(method, path);
  return (route ? functionTimeoutSeconds(route) : TIMEOUTS.authorizerSeconds) * 1000;
}

function bareClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** What one GetItem costs through the proxy and without it (p50, interleaved). */
async function getItemCost(viaProxy: DynamoDBClient, direct: DynamoDBClient) {
  const command = () =>
    new GetItemCommand({
      TableName: LOCAL_RESOURCES.tableName,
      Key: { pk: { S: 'BENCH' }, sk: { S: 'BENCH' } },
    });
  const samples = { viaProxy: [] as number[], direct: [] as number[] };
  for (let i = 0; i < 300; i++) {
    for (const [name, client] of [
      ['viaProxy', viaProxy],
      ['direct', direct],
    ] as const) {
      const start = performance.now();
      await client.send(command());
      if (i >= 50) samples[name].push(performance.now() - start);
    }
  }
  return { viaProxy: percentile(samples.viaProxy, 50), direct: percentile(samples.direct, 50) };
}
