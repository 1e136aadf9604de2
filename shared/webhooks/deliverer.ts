import { getEvent } from '../data/events.ts';
import {
  abandonDelivery,
  claimDelivery,
  type Delivery,
  recordAttempt,
  settleDelivery,
} from '../data/webhook-deliveries.ts';
import {
  type DisabledReason,
  findWebhookEndpoint,
  noteDeliveryOutcome,
  secretsInForce,
  type WebhookEndpoint,
} from '../data/webhook-endpoints.ts';
import { logger, type MetricsBatch } from '../telemetry.ts';
import { DISABLE_AFTER_MS, nextTryAt } from './schedule.ts';
import { type DeliveryOutcome, sendWebhook } from './send.ts';
import { DELIVERIES_PER_INVOCATION, type DeliveryRequest } from './start-deliveries.ts';

/** Tries sent to one endpoint at once: a burst drains quickly without flooding the receiver. */
export const CONCURRENT_TRIES = 10;
/** What a try's outcome is reported as when the receiver answered 410 Gone: the endpoint is disabled. */
const GONE = 410;

/** The schedule's clock (epoch ms): injectable, so tests run days of retries in seconds. */
export type Clock = () => number;

/**
 * One endpoint's due deliveries, tried (each claimed first, so no other deliverer sends it meanwhile),
 * recorded, and settled: succeeded, due again by the schedule, or given up. Then what the tries say of the
 * endpoint: a 410 disables it; failures with no success start (or, after DISABLE_AFTER_MS, end with
 * disabling) its failing period; a success ends that period. Returns the outcomes, for tests and logs.
 */
export async function deliverToEndpoint(
  request: DeliveryRequest,
  { now = Date.now, metrics }: { now?: Clock; metrics?: MetricsBatch } = {},
): Promise<DeliveryOutcome[]> {
  const { team_id: teamId, endpoint_id: endpointId } = request;
  const eventIds = request.event_ids.slice(0, DELIVERIES_PER_INVOCATION);
  const endpoint = (await findWebhookEndpoint(teamId, endpointId))?.endpoint;
  if (!endpoint || endpoint.disabled) {
    await Promise.all(eventIds.map((eventId) => abandonDelivery(teamId, endpointId, eventId, now())));
    return [];
  }
  const outcomes: Array<{ outcome: DeliveryOutcome; at: number }> = [];
  await eachAtMost(CONCURRENT_TRIES, eventIds, async (eventId) => {
    const delivery = await claimDelivery(teamId, endpointId, eventId, now());
    if (!delivery) return;
    const tried = await tryDelivery(endpoint, delivery, now);
    if (tried) outcomes.push(tried);
  });
  await noteEndpointHealth(endpoint, outcomes, metrics);
  return outcomes.map((tried) => tried.outcome);
}

/** One claimed try: send, record, settle. Undefined when the event is gone (given up, nothing sent). */
async function tryDelivery(
  endpoint: WebhookEndpoint,
  delivery: Delivery,
  now: Clock,
): Promise<{ outcome: DeliveryOutcome; at: number } | undefined> {
  const found = await getEvent(delivery.teamId, delivery.eventId);
  if (!found || !('event' in found)) {
    await settleDelivery(delivery, { status: 'failed' }, now());
    return undefined;
  }
  const outcome = await sendWebhook(
    { url: endpoint.url, secrets: secretsInForce(endpoint, now()) },
    { id: delivery.eventId, body: JSON.stringify(found.event) },
  );
  const at = now();
  const next =
    outcome.ok || outcome.status === GONE ? undefined : nextTryAt(delivery.tries, at, outcome.retryAfterMs);
  // Independent writes: the attempts list's item and the delivery's outcome.
  await Promise.all([
    recordAttempt(delivery.teamId, delivery.endpointId, at, {
      event_id: delivery.eventId,
      status_code: outcome.status ?? null,
      error: outcome.error ? outcome.error.message : null,
      duration_ms: outcome.durationMs,
      response: outcome.response,
      succeeded: outcome.ok,
    }),
    settleDelivery(
      delivery,
      outcome.ok ? { status: 'succeeded' } : next === undefined ? { status: 'failed' } : { nextTryAt: next },
      at,
    ),
  ]);
  return { outcome, at };
}

async function noteEndpointHealth(
  endpoint: WebhookEndpoint,
  tries: ReadonlyArray<{ outcome: DeliveryOutcome; at: number }>,
  metrics: MetricsBatch | undefined,
): Promise<void> {
  if (tries.length === 0) return;
  const { team_id: teamId, id } = endpoint;
  const disable = async (reason: Exclude<DisabledReason, 'manual'>) => {
    if (!(await noteDeliveryOutcome(teamId, id, { disable: reason }))) return;
    logger().warn('webhook endpoint disabled', { team_id: teamId, endpoint_id: id, reason });
    metrics?.count('WebhookEndpointsDisabled');
  };
  if (tries.some((tried) => tried.outcome.status === GONE)) return disable('gone');
  if (tries.some((tried) => tried.outcome.ok)) {
    if (endpoint.failing_since !== null) await noteDeliveryOutcome(teamId, id, { succeeded: true });
    return;
  }
  const lastFailure = Math.max(...tries.map((tried) => tried.at));
  if (endpoint.failing_since === null) {
    await noteDeliveryOutcome(teamId, id, { failingSince: Math.min(...tries.map((tried) => tried.at)) });
  } else if (lastFailure - endpoint.failing_since >= DISABLE_AFTER_MS) {
    await disable('failing');
  }
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function eachAtMost<T>(
  limit: number,
  items: readonly T[],
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
