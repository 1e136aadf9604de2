import { getEvent } from '../data/events.ts';
import { pruneAttempts, pruneAttemptsPast, recordAttempt } from '../data/webhook-deliveries/attempts.ts';
import { parkDelivery } from '../data/webhook-deliveries/restarts.ts';
import {
  abandonDelivery,
  claimDelivery,
  createDelivery,
  type Settled,
  settleDelivery,
} from '../data/webhook-deliveries/state.ts';
import {
  type DisabledReason,
  findWebhookEndpoint,
  noteDeliveryOutcome,
  type OpenSecret,
  openSecretsInForce,
  secretsInForce,
  type WebhookEndpoint,
} from '../data/webhook-endpoints.ts';
import { acquireSender, releaseSender } from '../data/webhook-senders.ts';
import { FAILED, SUCCEEDED } from '../domain/delivery-states.ts';
import { SDK_CALL_BUDGET_MS, WEBHOOK_LIMITS } from '../limits.ts';
import { logger, type MetricsBatch } from '../telemetry.ts';
import { isOwnDisabledNotice } from './fan-out.ts';
import { DELIVERY_TIMEOUT_MS, DISABLE_AFTER_MS, nextTryAt } from './schedule.ts';
import { type DeliveryOutcome, sendWebhook } from './send.ts';
import {
  DELIVERIES_PER_INVOCATION,
  type DeliveryInvocation,
  type DeliveryRequest,
  leaveDue,
  requestsOf,
} from './start-deliveries.ts';

/** Tries sent to one endpoint at once: a burst drains quickly without flooding the receiver. */
export const CONCURRENT_TRIES = WEBHOOK_LIMITS.triesInFlightPerEndpoint;
/**
 * No try starts later than this into a run (wall clock): a try takes at most DELIVERY_TIMEOUT_MS and its
 * writes, so the run ends within the deliverer's timeout (lib/cdk/webhook-deliveries.ts: five such rounds).
 */
export const START_TRIES_WITHIN_MS = 4 * (DELIVERY_TIMEOUT_MS + SDK_CALL_BUDGET_MS);
/** What a try's outcome is reported as when the receiver answered 410 Gone: the endpoint is disabled. */
const GONE = 410;

/** The schedule's clock (epoch ms): injectable, so tests run days of retries in seconds. */
export type Clock = () => number;

export interface DelivererOptions {
  now?: Clock;
  metrics?: MetricsBatch;
  /** The newest attempts kept per endpoint (WEBHOOK_LIMITS.attemptsKeptPerEndpoint; tests use fewer). */
  attemptsKept?: number;
  /**
   * A run without a sender lease prunes the endpoint's attempts with a chance of its tries in this many
   * (about once per that many attempts; tests use 1: every run).
   */
  pruneEvery?: number;
}

/**
 * What one invocation is given: one endpoint's deliveries, or a team's first tries to several endpoints
 * (start-deliveries.ts), each endpoint's run beside the others', so none waits for another's receiver.
 * Fails (for Lambda to retry the invocation) if a run failed, once all have ended; a retried run claims
 * again, so what was tried already is not sent twice.
 */
export async function deliver(invocation: DeliveryInvocation, options: DelivererOptions = {}): Promise<void> {
  const runs = await Promise.allSettled(
    requestsOf(invocation).map((request) => deliverToEndpoint(request, options)),
  );
  const failed = runs.find((run) => run.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * One endpoint's deliveries, tried (each claimed first, so no other deliverer sends it meanwhile),
 * recorded, and settled: succeeded, due again by the schedule, or given up.
 *
 * A healthy endpoint's first tries (a fan-out's request, no more than one round of CONCURRENT_TRIES, the
 * endpoint neither failing nor slow) go straight to their claims: three writes a delivery, nothing per run;
 * each is cut at WEBHOOK_LIMITS.slowTryMs, so such a run never holds the deliverer longer. Anything
 * else (a retry or restart from the sweep, redeliver or recover; a burst; a failing endpoint) first takes
 * the endpoint (a sender lease, webhook-senders.ts): one deliverer sends to it at a time, at most
 * CONCURRENT_TRIES tries in flight, and a team has at most WEBHOOK_LIMITS.delivererRunsPerTeam endpoints
 * being sent to (its share of the deliverer). A run that finds the endpoint held hands its deliveries to
 * the holder, which tries them before it lets go; one that finds the team at its bound leaves them due,
 * for the sweep. A disabled endpoint's first tries are recorded given up (`recover` sends them once it is
 * enabled). Then what the tries say of the endpoint: a 410 disables it; failures with no success start (or,
 * after DISABLE_AFTER_MS, end with disabling) its failing period; a success ends that period. Returns the
 * outcomes, for tests and logs.
 */
export async function deliverToEndpoint(
  request: DeliveryRequest,
  {
    now = Date.now,
    metrics,
    attemptsKept = WEBHOOK_LIMITS.attemptsKeptPerEndpoint,
    pruneEvery = WEBHOOK_LIMITS.attemptsPrunedEvery,
  }: DelivererOptions = {},
): Promise<DeliveryOutcome[]> {
  const { team_id: teamId, endpoint_id: endpointId } = request;
  const fresh = request.first === true;
  const eventIds = request.event_ids.slice(0, DELIVERIES_PER_INVOCATION);
  const endpoint = (await findWebhookEndpoint(teamId, endpointId))?.endpoint;
  if (!endpoint || endpoint.disabled) {
    // Events made while it is disabled are given up (`recover` sends them); retries due meanwhile are
    // parked, and enabling it makes them due again; a deleted endpoint's are given up.
    await Promise.all(
      eventIds.map((eventId) =>
        !endpoint
          ? abandonDelivery(teamId, endpointId, eventId, now())
          : fresh
            ? createDelivery(teamId, endpointId, eventId, now(), FAILED)
            : parkDelivery(teamId, endpointId, eventId, now()),
      ),
    );
    return [];
  }
  // Opened once a run; a warm deliverer has the data key in memory (no KMS call).
  const { secrets, refused } = await openSecretsInForce(endpoint, now());
  if (refused > 0) {
    // A sealed secret that does not open here was copied from another item or tampered with: never used.
    logger().error('webhook signing secret refused', { team_id: teamId, endpoint_id: endpointId, refused });
    metrics?.count('WebhookSecretsRefused', refused);
  }
  if (secrets.length === 0) {
    // Nothing to sign with: given up (after a rotation, `recover` sends them again), never sent unsigned.
    await Promise.all(
      eventIds.map((eventId) =>
        fresh
          ? createDelivery(teamId, endpointId, eventId, now(), FAILED)
          : abandonDelivery(teamId, endpointId, eventId, now()),
      ),
    );
    return [];
  }
  const outcomes: Array<{ outcome: DeliveryOutcome; at: number }> = [];
  const tryEach = (
    batch: readonly string[],
    claimFresh: boolean,
    { nextAttempt, timeoutMs }: { nextAttempt?: () => number; timeoutMs?: number } = {},
  ) =>
    eachAtMost(CONCURRENT_TRIES, batch, async (eventId) => {
      // A restart during the try makes it due again at once: tried again here while there is time.
      for (let again = true, first = claimFresh; again && inTime(); first = false) {
        const tried = await tryDelivery(endpoint, secrets, eventId, first, now, { nextAttempt, timeoutMs });
        if (tried?.outcome) outcomes.push({ outcome: tried.outcome, at: tried.at });
        again = tried?.settled === 'rerun';
      }
    });
  const started = Date.now();
  const inTime = () => Date.now() - started < START_TRIES_WITHIN_MS;
  const healthy = endpoint.failing_since === null && endpoint.slow_since === null;
  if (fresh && healthy && eventIds.length <= CONCURRENT_TRIES) {
    // Not counted in the team's share (that would cost a write of its SENDERS item a run), so never slow:
    // a try still unanswered at slowTryMs is cut, and marks the endpoint, whose next runs take the lease.
    await tryEach(eventIds, true, { timeoutMs: WEBHOOK_LIMITS.slowTryMs });
    // Its attempts are not numbered: now and then (about once per pruneEvery attempts, so finding the
    // newest ones costs about a read unit an attempt) the endpoint's past its newest are deleted.
    if (Math.random() < outcomes.length / pruneEvery) {
      await pruneAttemptsPast(teamId, endpointId, attemptsKept);
    }
    await noteEndpointHealth(endpoint, outcomes, metrics);
    return outcomes.map((tried) => tried.outcome);
  }
  const lease = await acquireSender(teamId, endpointId, eventIds, now());
  if (!lease.held) {
    metrics?.count(lease.reason === 'busy' ? 'WebhookSendersBusy' : 'WebhookDeliveriesHandedOff');
    // A fresh delivery has no item yet: left due, for the sweep (a handed-off one is its holder's now).
    if (lease.reason === 'busy' && fresh) {
      await leaveDue({ ...request, event_ids: eventIds }, now());
    }
    return [];
  }
  const held = { token: lease.token, attempts: lease.attempts };
  let batch: readonly string[] = eventIds;
  // What this run was asked for is fresh if its request is; what others handed over may be (it is tried
  // as fresh: written if absent, else claimed if due).
  let claimFresh = fresh;
  try {
    while (batch.length > 0) {
      await tryEach(batch, claimFresh, { nextAttempt: () => ++held.attempts });
      await pruneAttempts(teamId, endpointId, held.attempts - attemptsKept);
      batch = await releaseSender(teamId, endpointId, held, { dropWaiting: !inTime() });
      claimFresh = true;
    }
  } catch (error) {
    // The lease runs out by itself; letting go now lets the next run start at once.
    await releaseSender(teamId, endpointId, held, { dropWaiting: true }).catch(() => undefined);
    throw error;
  }
  await noteEndpointHealth(endpoint, outcomes, metrics);
  return outcomes.map((tried) => tried.outcome);
}

/**
 * One try: the event read, the delivery claimed, sent, recorded, settled. Undefined when it is not this
 * run's to try; no outcome when the event is gone or is the endpoint's own disabled notice (given up,
 * nothing sent).
 */
async function tryDelivery(
  endpoint: WebhookEndpoint,
  secrets: readonly OpenSecret[],
  eventId: string,
  fresh: boolean,
  now: Clock,
  { nextAttempt, timeoutMs }: { nextAttempt?: () => number; timeoutMs?: number },
): Promise<{ outcome?: DeliveryOutcome; at: number; settled: Settled } | undefined> {
  const { team_id: teamId, id: endpointId } = endpoint;
  const found = await getEvent(teamId, eventId);
  const event = found && 'event' in found ? found.event : undefined;
  if (!event || isOwnDisabledNotice(event, endpointId)) {
    if (!fresh) await abandonDelivery(teamId, endpointId, eventId, now());
    return undefined;
  }
  const delivery = await claimDelivery(teamId, endpointId, eventId, now(), { fresh, eventType: event.type });
  if (!delivery) return undefined;
  const startedAt = now();
  const outcome = await sendWebhook(
    { url: endpoint.url, secrets: secretsInForce(secrets, startedAt) },
    { id: delivery.eventId, body: JSON.stringify(event) },
    { timeoutMs },
  );
  const at = now();
  const next =
    outcome.ok || outcome.status === GONE ? undefined : nextTryAt(delivery.tries, at, outcome.retryAfterMs);
  // Independent writes: the attempts list's item and the delivery's outcome.
  const [, settled] = await Promise.all([
    recordAttempt(
      teamId,
      endpointId,
      startedAt,
      {
        event_id: delivery.eventId,
        status_code: outcome.status ?? null,
        error: outcome.error ? outcome.error.message : null,
        duration_ms: outcome.durationMs,
        response: outcome.response,
        succeeded: outcome.ok,
      },
      nextAttempt?.(),
    ),
    settleDelivery(
      delivery,
      outcome.ok ? { status: SUCCEEDED } : next === undefined ? { status: FAILED } : { nextTryAt: next },
      at,
      { attempt: { startedAt, statusCode: outcome.status ?? null } },
    ),
  ]);
  return { outcome, at, settled };
}

async function noteEndpointHealth(
  endpoint: WebhookEndpoint,
  tries: ReadonlyArray<{ outcome: DeliveryOutcome; at: number }>,
  metrics: MetricsBatch | undefined,
): Promise<void> {
  if (tries.length === 0) return;
  await noteEndpointSpeed(endpoint, tries);
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

/** A slow try marks the endpoint slow; a run of quick tries ends that (a write only when it changes). */
async function noteEndpointSpeed(
  endpoint: WebhookEndpoint,
  tries: ReadonlyArray<{ outcome: DeliveryOutcome; at: number }>,
): Promise<void> {
  // A try cut at slowTryMs (a lease-free one) is slow even if the clock read a millisecond short of it.
  const slow = tries.filter(
    (tried) =>
      tried.outcome.durationMs >= WEBHOOK_LIMITS.slowTryMs || tried.outcome.error?.code === 'timeout',
  );
  if (slow.length > 0 && endpoint.slow_since === null) {
    await noteDeliveryOutcome(endpoint.team_id, endpoint.id, {
      slowSince: Math.min(...slow.map((tried) => tried.at)),
    });
  } else if (slow.length === 0 && endpoint.slow_since !== null) {
    await noteDeliveryOutcome(endpoint.team_id, endpoint.id, { quick: true });
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
