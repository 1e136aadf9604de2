import { MetricsBatch } from '../../shared/telemetry.ts';
import { deliverToEndpoint } from '../../shared/webhooks/deliverer.ts';
import type { DeliveryRequest } from '../../shared/webhooks/start-deliveries.ts';

/** One endpoint's due deliveries (invoked asynchronously: README, "Webhooks"). */
export const handler = async (request: DeliveryRequest): Promise<void> => {
  const metrics = new MetricsBatch();
  try {
    await deliverToEndpoint(request, { metrics });
  } finally {
    metrics.publish();
  }
};
