import { MetricsBatch } from '../../shared/telemetry.ts';
import { deliver } from '../../shared/webhooks/deliverer.ts';
import type { DeliveryInvocation } from '../../shared/webhooks/start-deliveries.ts';

/**
 * One endpoint's due deliveries, or a team's first tries to several (invoked asynchronously: README,
 * "Webhooks").
 */
export const handler = async (invocation: DeliveryInvocation): Promise<void> => {
  const metrics = new MetricsBatch();
  try {
    await deliver(invocation, { metrics });
  } finally {
    metrics.publish();
  }
};
