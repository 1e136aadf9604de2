import {
  type DeliveryInvocation,
  leaveDue,
  startDeliveries,
} from '../../shared/webhooks/start-deliveries.ts';
import { dueRequests } from '../../shared/webhooks/sweeper.ts';

/**
 * What Lambda sends an on-failure destination: the failed invocation's own payload among its details
 * (AWS Lambda Developer Guide, "Capturing records of Lambda asynchronous invocations").
 */
interface FailedInvocation {
  requestContext?: { condition?: string };
  requestPayload: DeliveryInvocation;
}

const isFailedInvocation = (event: unknown): event is FailedInvocation =>
  typeof event === 'object' && event !== null && 'requestPayload' in event;

/**
 * Every minute: the deliverer for each endpoint with deliveries due (retries, and anything not started).
 * Also the deliverer's on-failure destination: an invocation Lambda gave up on (retries spent, or too old
 * in its queue) is left due, where the next sweep finds it.
 */
export const handler = async (event?: unknown): Promise<void> => {
  if (isFailedInvocation(event)) return leaveDue(event.requestPayload, Date.now());
  await startDeliveries(await dueRequests(Date.now()));
};
