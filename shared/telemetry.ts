import { Logger } from '@aws-lambda-powertools/logger';
import type { LogLevel } from '@aws-lambda-powertools/logger/types';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricUnit as Unit } from '@aws-lambda-powertools/metrics/types';
import { config } from './config.ts';

/**
 * Logs and metrics through Powertools for AWS Lambda: JSON log lines (with the X-Ray trace id in Lambda)
 * and CloudWatch embedded-metric-format lines, both on stdout, so nothing calls an AWS API on the request
 * path. Made on first use, after the entry point has configured the process.
 */
let processLogger: Logger | undefined;

export const logger = (): Logger =>
  (processLogger ??= new Logger({
    serviceName: config.serviceName(),
    logLevel: config.logLevel().toUpperCase() as LogLevel,
  }));

/** The first invocation of this process pays the cold start. */
let cold = true;
export function takeColdStart(): boolean {
  const wasCold = cold;
  cold = false;
  return wasCold;
}

/** The cause of an error for a log line: its name, message and stack, never the request's data. */
export function describeError(error: unknown): Record<string, unknown> {
  return error instanceof Error
    ? { error: error.name, error_message: error.message, stack: error.stack }
    : { error: String(error) };
}

export type Dimensions = Record<string, string>;

/**
 * The metrics of one invocation, published together when it ends (one EMF line per set of dimensions).
 * Invocations of one process may overlap (the local server runs them in one process), so each has its own
 * batch rather than sharing the dimensions of one Metrics object.
 */
export class MetricsBatch {
  private readonly entries: Array<{ name: string; unit: Unit; value: number; dimensions: Dimensions }> = [];

  /** `dimensions` apply to every metric of the batch, besides `service`. */
  constructor(private readonly dimensions: Dimensions = {}) {}

  count(name: string, value = 1, dimensions: Dimensions = {}): void {
    this.entries.push({ name, unit: MetricUnit.Count, value, dimensions });
  }

  milliseconds(name: string, value: number): void {
    this.entries.push({ name, unit: MetricUnit.Milliseconds, value, dimensions: {} });
  }

  publish(): void {
    if (!config.metricsEnabled() || this.entries.length === 0) return;
    const batches = new Map<string, Metrics>();
    for (const { name, unit, value, dimensions } of this.entries) {
      const key = JSON.stringify(dimensions);
      let metrics = batches.get(key);
      if (!metrics) {
        metrics = new Metrics({
          namespace: config.metricsNamespace(),
          serviceName: config.serviceName(),
          defaultDimensions: { ...this.dimensions, ...dimensions },
        });
        batches.set(key, metrics);
      }
      metrics.addMetric(name, unit, value);
    }
    for (const metrics of batches.values()) metrics.publishStoredMetrics();
    this.entries.length = 0;
  }
}
