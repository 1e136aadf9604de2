import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { sdkClientOptions } from '../aws.ts';
import { config } from '../config.ts';
import { markDue } from '../data/webhook-deliveries/state.ts';
import { WEBHOOK_LIMITS } from '../limits.ts';

/**
 * Starts the deliverer for endpoints with deliveries to try now: one asynchronous invocation per endpoint
 * (Lambda queues it and answers at once), so each endpoint is sent to by its own invocation and one that
 * is slow or failing holds up nobody else's deliveries; but a team's small batches of first tries (what a
 * healthy endpoint sends without a lease) share one invocation, each endpoint's tries beside the others'
 * in it, so that the runs no lease counts are one per team and batch, not one per endpoint.
 * Locally the stand-in of the Lambda API runs the same handler (LAMBDA_ENDPOINT).
 */
export interface DeliveryRequest {
  team_id: number;
  endpoint_id: number;
  /** The events whose deliveries to this endpoint to try, oldest first. */
  event_ids: string[];
  /**
   * First tries the fan-out started: no delivery item exists yet, the deliverer's claim writes it (a
   * delivery that exists already is tried only if it is due). Absent: deliveries that are due (a retry,
   * a restart).
   */
  first?: true;
}

/**
 * A team's first tries of one batch, to several endpoints, in one invocation: each request is run as its
 * own (deliverToEndpoint), side by side.
 */
export interface TeamFirstTries {
  requests: DeliveryRequest[];
}

/** What one deliverer invocation is given. */
export type DeliveryInvocation = DeliveryRequest | TeamFirstTries;

export const requestsOf = (invocation: DeliveryInvocation): DeliveryRequest[] =>
  'requests' in invocation ? invocation.requests : [invocation];

/** The deliveries one invocation tries at most (the rest wait for the next sweep). */
export const DELIVERIES_PER_INVOCATION = 50;
/**
 * Endpoints whose first tries share an invocation at most: the default endpoint quota, 10 tries each, so
 * one run has at most 200 requests open; a team with more endpoints has more such invocations.
 */
export const ENDPOINTS_PER_SHARED_INVOCATION = 20;
/** Tries of one invocation, when Lambda throttles or fails it, before its deliveries are left due. */
export const INVOKE_ATTEMPTS = 3;
const INVOKE_BACKOFF_MS = 200;

let client: LambdaClient | undefined;
const lambda = (): LambdaClient =>
  (client ??= new LambdaClient(sdkClientOptions(config.lambdaEndpoint(), 'local')));

/**
 * The invocations of `requests`: at most DELIVERIES_PER_INVOCATION deliveries each; a team's first tries of
 * at most one round (what may go without a lease) together, ENDPOINTS_PER_SHARED_INVOCATION at most.
 */
function invocationsOf(requests: readonly DeliveryRequest[]): DeliveryInvocation[] {
  const firstTries = new Map<number, DeliveryRequest[]>();
  const invocations: DeliveryInvocation[] = [];
  for (const request of requests) {
    if (request.first && request.event_ids.length <= WEBHOOK_LIMITS.triesInFlightPerEndpoint) {
      const ofTeam = firstTries.get(request.team_id) ?? [];
      ofTeam.push(request);
      firstTries.set(request.team_id, ofTeam);
      continue;
    }
    for (let start = 0; start < request.event_ids.length; start += DELIVERIES_PER_INVOCATION) {
      invocations.push({
        ...request,
        event_ids: request.event_ids.slice(start, start + DELIVERIES_PER_INVOCATION),
      });
    }
  }
  for (const ofTeam of firstTries.values()) {
    for (let start = 0; start < ofTeam.length; start += ENDPOINTS_PER_SHARED_INVOCATION) {
      const shared = ofTeam.slice(start, start + ENDPOINTS_PER_SHARED_INVOCATION);
      invocations.push(shared.length === 1 ? (shared[0] as DeliveryRequest) : { requests: shared });
    }
  }
  return invocations;
}

async function invoke(payload: DeliveryInvocation): Promise<void> {
  await lambda().send(
    new InvokeCommand({
      FunctionName: config.webhookDelivererFunction(),
      InvocationType: 'Event',
      Payload: new TextEncoder().encode(JSON.stringify(payload)),
    }),
  );
}

/** Starts every request; fails if one could not be started (what is due stays due: the sweep finds it). */
export async function startDeliveries(requests: readonly DeliveryRequest[]): Promise<void> {
  await Promise.all(invocationsOf(requests).map(invoke));
}

/**
 * The fan-out's start: each invocation is tried INVOKE_ATTEMPTS times (with a short backoff: Lambda's
 * throttling of asynchronous invocations is momentary); what still could not start is left due
 * (markDue), for the sweeper. Only if that also fails does this fail: then the stream batch is retried,
 * which is rare because it needs both Lambda and the table to refuse. Never throws for a throttled invoke
 * alone, so the event log is not held up by the deliverer's concurrency. What was left due, for logs.
 */
export async function startOrLeaveDue(
  requests: readonly DeliveryRequest[],
  nowMs: () => number = Date.now,
  send: (payload: DeliveryInvocation) => Promise<void> = invoke,
): Promise<number> {
  const unstarted = await Promise.all(
    invocationsOf(requests).map(async (payload) => {
      for (let attempt = 1; ; attempt++) {
        try {
          await send(payload);
          return [];
        } catch {
          if (attempt >= INVOKE_ATTEMPTS) return requestsOf(payload);
          await new Promise((resolve) => setTimeout(resolve, INVOKE_BACKOFF_MS * 2 ** (attempt - 1)));
        }
      }
    }),
  );
  const left = unstarted.flat();
  await Promise.all(left.map((payload) => leaveDue(payload, nowMs())));
  return left.reduce((sum, payload) => sum + payload.event_ids.length, 0);
}

/**
 * What a deliverer invocation Lambda gave up on (its retries spent, or too old in its queue) carried,
 * left where the sweeper finds it: the deliverer's on-failure destination (lib/cdk/webhook-deliveries.ts)
 * and its local stand-in call this with what the failed invocation was given.
 */
export async function leaveDue(invocation: DeliveryInvocation, nowMs: number): Promise<void> {
  await Promise.all(
    requestsOf(invocation).flatMap((request) =>
      request.event_ids.map((eventId) => markDue(request.team_id, request.endpoint_id, eventId, nowMs)),
    ),
  );
}
