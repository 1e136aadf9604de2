import { performance } from 'node:perf_hooks';
import * as dynamodb from '@aws-sdk/client-dynamodb';
import type { Outcome, Scenario } from './scenarios/common.ts';
import { type CountingProxy, concurrentGroups, describeCall, type WireCall } from './wire.ts';

/**
 * Runs one scenario: invocations whose DynamoDB calls the proxy counts, each next to its floor (see
 * replay). Handler and floor take turns going first, so drift on the machine and warm caches favour
 * neither.
 */
export interface PathResult {
  scenario: Scenario;
  /** Why the scenario could not be measured (a wrong status, a handler that failed to load). */
  error?: string;
  /** Round trips of the steady state: the most common count over the invocations. */
  roundTrips?: number;
  /** The most any invocation took (an id block reservation shows here), and the mean. */
  maxRoundTrips?: number;
  meanRoundTrips?: number;
  /** The calls of one steady-state invocation, grouped as they ran (a group ran in parallel). */
  sequence?: string[][];
  latency?: {
    iterations: number;
    p50: number;
    p99: number;
    floorP50?: number;
    /** Replayed calls DynamoDB refused (conditional writes already applied), of all replayed. */
    floorRefused?: { refused: number; of: number; example: string };
  };
}

interface Sample {
  ms: number;
  calls: WireCall[];
  floor?: Replay;
}

export async function measure(
  scenario: Scenario,
  proxy: CountingProxy,
  floorClient: dynamodb.DynamoDBClient,
): Promise<PathResult> {
  try {
    const samples: Sample[] = [];
    const timed = Math.max(1, scenario.iterations);
    let previous: WireCall[] = [];
    for (let i = 0; i < scenario.warmup + timed; i++) {
      const invoke = await scenario.next();
      const replayFirst = scenario.iterations > 0 && i % 2 === 1 && previous.length > 0;
      const before = replayFirst ? await replay(previous, floorClient, proxy) : undefined;
      const { result, calls } = await proxy.record(async () => {
        const start = performance.now();
        const outcome = await invoke();
        return { outcome, ms: performance.now() - start };
      });
      expectStatus(scenario, result.outcome);
      const after =
        scenario.iterations > 0 && !replayFirst && calls.length > 0
          ? await replay(calls, floorClient, proxy)
          : undefined;
      previous = calls;
      if (i >= scenario.warmup) samples.push({ ms: result.ms, calls, floor: before ?? after });
    }

    const counts = samples.map((sample) => sample.calls.length);
    const roundTrips = mostCommon(counts);
    const steady = samples.find((sample) => sample.calls.length === roundTrips)?.calls ?? [];
    const result: PathResult = {
      scenario,
      roundTrips,
      maxRoundTrips: Math.max(...counts),
      meanRoundTrips: counts.reduce((sum, count) => sum + count, 0) / counts.length,
      sequence: concurrentGroups(steady).map((group) => group.map(describeCall)),
    };
    if (scenario.iterations === 0) return result;
    const floors = samples.flatMap((sample) => (sample.floor ? [sample.floor] : []));
    const refused = floors.reduce((sum, floor) => sum + floor.refused, 0);
    const durations = samples.map((sample) => sample.ms);
    const floorDurations = floors.map((floor) => floor.ms);
    result.latency = {
      iterations: samples.length,
      p50: percentile(durations, 50),
      p99: percentile(durations, 99),
      ...(floors.length > 0 && { floorP50: percentile(floorDurations, 50) }),
      ...(refused > 0 && {
        floorRefused: {
          refused,
          of: floors.reduce((sum, floor) => sum + floor.sent, 0),
          example: floors.find((floor) => floor.example)?.example ?? '',
        },
      }),
    };
    return result;
  } catch (error) {
    return { scenario, error: error instanceof Error ? error.message : String(error) };
  }
}

function expectStatus(scenario: Scenario, outcome: Outcome): void {
  if (outcome.status !== scenario.expectedStatus) {
    throw new Error(
      `expected ${scenario.expectedStatus}, got ${outcome.status}: ${outcome.body.slice(0, 300)}`,
    );
  }
}

interface Replay {
  /** The floor of the replayed invocation. */
  ms: number;
  sent: number;
  refused: number;
  example: string;
}

/**
 * The floor of one invocation: its own calls sent again with a bare client (each group of calls that ran
 * in parallel in parallel, the groups one after another; commands built before the clock starts). The
 * floor is what the bare client adds around the calls (the replay's time minus its time at the proxy) plus
 * the time the invocation's own calls spent at the proxy. So a replayed conditional write that DynamoDB
 * refuses (its item now exists or changed), and that DynamoDB answers faster or slower than the real write,
 * still yields the floor of the real write; the refusals are reported.
 */
async function replay(
  calls: WireCall[],
  client: dynamodb.DynamoDBClient,
  proxy: CountingProxy,
): Promise<Replay> {
  const groups = concurrentGroups(calls).map((group) => group.map(commandOf));
  let refused = 0;
  let example = '';
  const { result: ms, calls: replayed } = await proxy.record(async () => {
    const start = performance.now();
    for (const group of groups) {
      await Promise.all(
        group.map((command) =>
          client.send(command).catch((error: unknown) => {
            refused++;
            example ||= error instanceof Error ? error.name : String(error);
          }),
        ),
      );
    }
    return performance.now() - start;
  });
  return { ms: ms - timeAtProxy(replayed) + timeAtProxy(calls), sent: calls.length, refused, example };
}

/** Time between the proxy receiving a group's first request and answering its last, summed over groups. */
function timeAtProxy(calls: readonly WireCall[]): number {
  return concurrentGroups(calls).reduce(
    (sum, group) =>
      sum + Math.max(...group.map((call) => call.endedAt)) - Math.min(...group.map((call) => call.startedAt)),
    0,
  );
}

type AnyCommand = Parameters<dynamodb.DynamoDBClient['send']>[0];
const COMMANDS = dynamodb as unknown as Record<string, new (input: unknown) => AnyCommand>;

/** The low-level command of a recorded call, from its wire body (DynamoDB JSON is the command input). */
function commandOf(call: WireCall): AnyCommand {
  const Command = COMMANDS[`${call.operation}Command`];
  if (!Command) throw new Error(`cannot replay ${call.operation}`);
  const input = JSON.parse(call.body) as Record<string, unknown>;
  // The SDK fills in a fresh token; replaying the old one would make DynamoDB answer from its token cache.
  delete input.ClientRequestToken;
  return new Command(input);
}

/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function mostCommon(values: number[]): number {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 0;
}
