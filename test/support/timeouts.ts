/**
 * The test run's waits, sized so that only a hang reaches them: the suite runs on two cores, sometimes
 * beside a second suite, where a request DynamoDB Local answers in milliseconds alone can take seconds.
 * Speed is measured by `npm run bench`, never by a test's timeout.
 */

/** How long a poll (events, deliveries, a spawned process's output) waits before it reports a hang. */
export const HANG_MS = 300_000;

/**
 * Vitest's own limits: above every poll's deadline, so the poll's message (what it saw) is the one shown. Two
 * suites side by side on two cores beside other work (load 25-30) took a test that spawns a dozen CLIs, and
 * one that scans the shared table five times, past 180 s.
 */
export const TEST_TIMEOUT_MS = 2 * HANG_MS;
export const HOOK_TIMEOUT_MS = 2 * HANG_MS;

/**
 * The AWS SDK clients' timeouts in the tests (config.ts): production's 500 ms connect and 1,500 ms request
 * (limits.ts TIMEOUTS) are reached by DynamoDB Local and s3rver on a loaded machine; so is a function's
 * production timeout, which the local gateway keeps unless told to wait longer. Set in every test process
 * and every process a test spawns; a test of what a slow dependency becomes sets production's.
 */
export const TEST_SDK_TIMEOUTS = {
  SDK_CONNECT_TIMEOUT_MS: '10000',
  SDK_REQUEST_TIMEOUT_MS: '30000',
  LOCAL_GATEWAY_WAIT_MS: String(HANG_MS),
} as const;
