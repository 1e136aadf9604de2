import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { config } from './config.ts';
import { TIMEOUTS } from './limits.ts';

/**
 * What every AWS SDK client of the process is built with: bounded connection and request timeouts and a
 * retry budget (limits.ts), so no call waits on a hung dependency for longer than SDK_CALL_BUDGET_MS (the
 * tests configure longer timeouts: config.ts).
 * A local endpoint (DynamoDB Local, s3rver) comes with the fixed credentials those servers accept.
 */
export function sdkClientOptions(localEndpoint: string | undefined, localCredentials: string) {
  return {
    region: config.region(),
    maxAttempts: TIMEOUTS.attempts,
    requestHandler: {
      connectionTimeout: config.sdkConnectTimeoutMs(),
      requestTimeout: config.sdkRequestTimeoutMs(),
      // Without it a request timeout is only a logged warning and the call waits on.
      throwOnRequestTimeout: true,
    },
    ...(localEndpoint && {
      endpoint: localEndpoint,
      credentials: { accessKeyId: localCredentials, secretAccessKey: localCredentials },
    }),
  };
}

/** DynamoDB's cancellation reasons that mean "busy", not "your condition failed". */
const BUSY_REASONS = new Set(['TransactionConflict', 'ThrottlingError', 'None']);

/**
 * A failure of a dependency rather than of the request or the code: unreachable, timing out, throttling
 * after the retries, or failing on its side (5xx). The caller may retry it (503 with Retry-After).
 */
export function isDependencyFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TransactionCanceledException') {
    const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
    return reasons.length > 0 && reasons.every((reason) => BUSY_REASONS.has(reason.Code ?? 'None'));
  }
  // The SDK's own classification of what it retries; these are what remains once its retries ran out.
  // biome-ignore lint/suspicious/noExplicitAny: the classifiers read optional SDK fields off any error.
  const sdkError = error as any;
  return isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError);
}
