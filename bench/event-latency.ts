import { startEventPipeline } from '../lib/local/local-api.ts';
import { createBrand, updateBrand } from '../shared/data/brand-writes.ts';
import { listEvents } from '../shared/data/events.ts';
import { createTeam } from '../shared/data/teams.ts';
import { percentile } from './measure.ts';

/** How long after a write's answer its change event is in the log, locally (the target: 2 s). */
export interface EventLatency {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

/** Checks for the event every few milliseconds: finer than what it measures. */
const POLL_MS = 5;

/**
 * Brand updates one after another, each timed from the write's answer until the events API's data call
 * finds its `brand.updated` (the version it wrote). The pipeline is the one `npm start` runs: DynamoDB
 * Local's stream, the poller standing in for Lambda's event source mapping, the deployed consumer.
 */
export async function measureEventLatency(
  config: { dynamodb_endpoint: string; table_name: string },
  iterations: number,
): Promise<EventLatency> {
  const pipeline = startEventPipeline(config);
  try {
    const team = await createTeam('bench: change events');
    const brand = await createBrand(team.id, { name: 'Latency' });
    const untilEvent = async (version: number) => {
      for (;;) {
        const { items } = await listEvents(team.id, { resource: `brand:${brand.id}` }, { limit: 1 });
        if (items[0]?.resource_version === version) return;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    };
    // Not timed: the new poller first reads the stream the other measurements filled.
    await untilEvent(1);
    const samples: number[] = [];
    for (let i = 1; i <= iterations; i++) {
      const { version } = await updateBrand(team.id, brand.id, { name: `Latency ${i}` });
      const written = performance.now();
      await untilEvent(version);
      samples.push(performance.now() - written);
    }
    return {
      n: samples.length,
      p50: percentile(samples, 50),
      p99: percentile(samples, 99),
      max: Math.max(...samples),
    };
  } finally {
    await pipeline.stop();
  }
}
