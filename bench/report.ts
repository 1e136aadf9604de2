import type { BundleReport } from './bundles.ts';
import type { PathResult } from './measure.ts';
import type { OutageResult } from './outage.ts';

/**
 * The bench's findings as tables for people and as JSON for review: `latest.json` holds everything,
 * `footprint.json` only what changes when code or dependencies change (round trips and call sequences per
 * path, bundle bytes per package), so a review diff of it shows an added round trip or a bloated bundle.
 */
export const LATENCY_TARGET = 1.3;
export const LOAD_TARGET = 1.3;
/** Auto-configure: at most about a second of CPU for any page it reads. */
export const CPU_TARGET_MS = 1000;

export interface ColdStart {
  /** The floor of each kind of function (bench/bundles.ts), by name. */
  floors: BundleReport[];
  functions: BundleReport[];
}

/** The floor a bundle is measured against (a floor against itself). */
function floorOf(cold: ColdStart, report: BundleReport): BundleReport {
  return cold.floors.find((floor) => floor.name === report.floor) ?? report;
}

export interface Environment {
  node: string;
  cpu: string;
  cpus: number;
  /** p50 of one GetItem sent through the counting proxy and sent directly (the proxy's share of every call). */
  getItemViaProxyMs: number;
  getItemDirectMs: number;
  loadRounds: number;
}

const ms = (value: number | undefined) => (value === undefined ? '—' : value.toFixed(2));
const ratio = (value: number | undefined) => (value === undefined ? '—' : `${value.toFixed(2)}×`);
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

export function roundTripVerdict(result: PathResult): string {
  if (result.error) return 'ERROR';
  if (result.scenario.budget === undefined) return 'info';
  return (result.roundTrips ?? 0) <= result.scenario.budget ? 'PASS' : 'OVER';
}

function latencyRatio(result: PathResult): number | undefined {
  const latency = result.latency;
  return latency?.floorP50 ? latency.p50 / latency.floorP50 : undefined;
}

function loadRatio(report: BundleReport, floor: BundleReport): number | undefined {
  return report.load && floor.load ? report.load.importMs / floor.load.importMs : undefined;
}

const sequenceText = (sequence: string[][] = []) =>
  sequence.map((group) => group.join(' ‖ ')).join(' → ') || '(none)';

export function roundTripTable(results: PathResult[]): string {
  return table(
    ['path', 'round trips', 'budget', '', 'max seen', 'DynamoDB calls (→ in order, ‖ in parallel)'],
    results.map((result) => [
      result.scenario.name,
      result.error ? '—' : String(result.roundTrips),
      result.scenario.budget === undefined ? '—' : String(result.scenario.budget),
      roundTripVerdict(result),
      result.error ? '—' : String(result.maxRoundTrips),
      result.error ? result.error : sequenceText(result.sequence),
    ]),
    [false, true, true, false, true, false],
  );
}

export function latencyTable(results: PathResult[]): string {
  const timed = results.filter((result) => result.latency || result.error);
  return table(
    ['path', 'n', 'p50 ms', 'p99 ms', 'floor p50 ms', 'p50/floor', '', 'note'],
    timed.map((result) => {
      const latency = result.latency;
      const value = latencyRatio(result);
      const refused = latency?.floorRefused;
      return [
        result.scenario.name,
        latency ? String(latency.iterations) : '—',
        ms(latency?.p50),
        ms(latency?.p99),
        ms(latency?.floorP50),
        ratio(value),
        result.error ? 'ERROR' : value === undefined ? '—' : value <= LATENCY_TARGET ? 'PASS' : 'OVER',
        result.error
          ? 'not measured'
          : latency?.floorP50 === undefined
            ? 'no DynamoDB call: no floor'
            : refused
              ? `${refused.refused}/${refused.of} replayed calls refused (${refused.example})`
              : '',
      ];
    }),
    [false, true, true, true, true, true, false, false],
  );
}

export function coldStartTable(cold: ColdStart): string {
  const rows = [...cold.functions, ...cold.floors].map((report) => {
    const floor = floorOf(cold, report);
    const value = loadRatio(report, floor);
    const isFloor = report === floor;
    return [
      report.name,
      isFloor ? '' : floor.name,
      (report.bytes / 1024).toFixed(0),
      report.heavy.join(', ') || '—',
      isFloor ? '' : report.unneeded.length ? `OVER: ${report.unneeded.join(', ')}` : 'PASS',
      isFloor ? '' : additions(report, floor) || '—',
      ms(report.load?.importMs),
      ms(report.load?.processMs),
      ratio(value),
      value === undefined || isFloor ? '' : value <= LOAD_TARGET ? 'PASS' : 'OVER',
    ];
  });
  return table(
    [
      'function',
      'floor',
      'KiB',
      'heavy packages',
      'only if needed',
      'biggest additions over the floor (KiB)',
      'import ms',
      'process ms',
      'import/floor',
      '',
    ],
    rows,
    [false, false, true, false, false, false, true, true, true, false],
  );
}

/** The packages that make a bundle bigger than the floor (10 KiB or more each), biggest first. */
function additions(report: BundleReport, floor: BundleReport): string {
  return Object.entries(report.packages)
    .map(([name, bytes]) => [name, bytes - (floor.packages[name] ?? 0)] as const)
    .filter(([, extra]) => extra >= 10 * 1024)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([name, extra]) => `${name} ${Math.round(extra / 1024)}`)
    .join(', ');
}

/** Time to an answer with DynamoDB hung, next to the bounds it must stay within. */
export function outageTable(
  results: OutageResult[],
  budgets: { sdkCallMs: number; functionMs: (endpoint: string) => number },
): string {
  return table(
    ['endpoint', 'status', 'answered after', 'one SDK call at most', 'function timeout'],
    results.map((result) => [
      result.endpoint,
      String(result.status),
      `${(result.ms / 1000).toFixed(2)} s`,
      `${(budgets.sdkCallMs / 1000).toFixed(1)} s`,
      `${(budgets.functionMs(result.endpoint) / 1000).toFixed(0)} s`,
    ]),
    [false, true, true, true, true],
  );
}

export interface PageCpu {
  page: string;
  kind: 'real' | 'hostile';
  bytes: number;
  /** 200, or the refusal's reason (too_complex). */
  outcome: string;
  runs: number;
  cpuP50Ms: number;
  cpuMaxMs: number;
}

/** Auto-configure's CPU per page: real pages for reference, hostile ones against the target. */
export function autoConfigureCpuTable(pages: PageCpu[]): string {
  return table(
    ['page', 'bytes', 'answer', 'runs', 'CPU p50 ms', 'CPU max ms', ''],
    pages.map((page) => [
      page.page,
      page.bytes.toLocaleString('en-US'),
      page.outcome,
      String(page.runs),
      page.cpuP50Ms.toFixed(0),
      page.cpuMaxMs.toFixed(0),
      autoConfigureCpuVerdict(page),
    ]),
    [false, true, false, true, true, true, false],
  );
}

export function autoConfigureCpuVerdict(page: PageCpu): string {
  if (page.kind === 'real') return 'real page';
  return page.cpuMaxMs <= CPU_TARGET_MS ? 'PASS' : 'OVER';
}

export function autoConfigureCpuJson(pages: PageCpu[]) {
  return {
    target_cpu_ms: CPU_TARGET_MS,
    pages: pages.map((page) => ({
      page: page.page,
      kind: page.kind,
      bytes: page.bytes,
      answer: page.outcome,
      runs: page.runs,
      cpu_p50_ms: round(page.cpuP50Ms, 1),
      cpu_max_ms: round(page.cpuMaxMs, 1),
      verdict: autoConfigureCpuVerdict(page),
    })),
  };
}

function table(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (rightAligned[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** Everything, in a fixed key order; numbers rounded so that noise below the microsecond stays out. */
export function latestJson(
  environment: Environment,
  results: PathResult[],
  cold: ColdStart,
  outages: OutageResult[],
) {
  return {
    environment: {
      node: environment.node,
      cpu: environment.cpu,
      cpus: environment.cpus,
      get_item_via_proxy_ms: round(environment.getItemViaProxyMs, 3),
      get_item_direct_ms: round(environment.getItemDirectMs, 3),
    },
    targets: { latency_p50_over_floor: LATENCY_TARGET, import_over_floor: LOAD_TARGET },
    paths: results.map((result) => ({
      path: result.scenario.name,
      endpoint: result.scenario.endpoint,
      ...(result.error && { error: result.error }),
      round_trips: result.roundTrips ?? null,
      budget: result.scenario.budget ?? null,
      verdict: roundTripVerdict(result),
      max_round_trips: result.maxRoundTrips ?? null,
      mean_round_trips: result.meanRoundTrips === undefined ? null : round(result.meanRoundTrips, 3),
      calls: sequenceText(result.sequence),
      latency: result.latency
        ? {
            iterations: result.latency.iterations,
            p50_ms: round(result.latency.p50, 3),
            p99_ms: round(result.latency.p99, 3),
            floor_p50_ms: result.latency.floorP50 === undefined ? null : round(result.latency.floorP50, 3),
            p50_over_floor: nullable(latencyRatio(result)),
            floor_refused: result.latency.floorRefused ?? null,
          }
        : null,
    })),
    cold_start: {
      load_rounds: environment.loadRounds,
      functions: [...cold.functions, ...cold.floors].map((report) => ({
        function: report.name,
        floor: report.floor,
        bytes: report.bytes,
        heavy_packages: report.heavy,
        unneeded_heavy_packages: report.unneeded,
        import_ms: nullable(report.load?.importMs, 3),
        process_ms: nullable(report.load?.processMs, 3),
        import_over_floor: nullable(loadRatio(report, floorOf(cold, report))),
        packages: report.packages,
      })),
    },
    dynamodb_hung: outages.map((outage) => ({
      endpoint: outage.endpoint,
      status: outage.status,
      answered_after_ms: round(outage.ms, 1),
    })),
  };
}

/** Only what code and dependency changes move: no timings. */
export function footprintJson(results: PathResult[], cold: ColdStart) {
  return {
    round_trips: results.map((result) => ({
      path: result.scenario.name,
      endpoint: result.scenario.endpoint,
      round_trips: result.roundTrips ?? null,
      budget: result.scenario.budget ?? null,
      verdict: roundTripVerdict(result),
      calls: sequenceText(result.sequence),
    })),
    bundles: [...cold.functions, ...cold.floors].map((report) => ({
      function: report.name,
      bytes: report.bytes,
      unneeded_heavy_packages: report.unneeded,
      packages: report.packages,
    })),
  };
}

const nullable = (value: number | undefined, digits = 2) =>
  value === undefined ? null : round(value, digits);
