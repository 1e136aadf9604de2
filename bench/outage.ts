import { performance } from 'node:perf_hooks';
import type { Scenario } from './scenarios/common.ts';
import type { CountingProxy } from './wire.ts';

/**
 * Time to a clean answer with DynamoDB hung: one request per endpoint, prepared while DynamoDB is well,
 * then invoked while the counting proxy holds every call unanswered. All run at once, as a burst would.
 */
export interface OutageResult {
  endpoint: string;
  status: number;
  ms: number;
}

export async function timeToUnavailable(
  scenarios: Scenario[],
  proxy: CountingProxy,
): Promise<OutageResult[]> {
  const firstPerEndpoint = new Map<string, Scenario>();
  for (const scenario of scenarios) {
    if (!firstPerEndpoint.has(scenario.endpoint)) firstPerEndpoint.set(scenario.endpoint, scenario);
  }
  const prepared = await Promise.all(
    [...firstPerEndpoint.values()].map(async (scenario) => ({ scenario, invoke: await scenario.next() })),
  );
  proxy.hold(true);
  try {
    return await Promise.all(
      prepared.map(async ({ scenario, invoke }) => {
        const started = performance.now();
        const outcome = await invoke();
        return { endpoint: scenario.endpoint, status: outcome.status, ms: performance.now() - started };
      }),
    );
  } finally {
    proxy.hold(false);
  }
}
