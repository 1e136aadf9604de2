import type { DeserializeMiddleware } from '@smithy/types';
import { afterEach, describe, expect, it } from 'vitest';
import { configure } from '../../shared/config.ts';
import { dynamo } from '../../shared/data/dynamo.ts';
import { MESSAGES } from '../../shared/http/messages.ts';
import { TIMEOUTS } from '../../shared/limits.ts';
import { useApi } from '../support/api.ts';

/**
 * Faults injected by wrapping the real DynamoDB client of this process (the handlers' own): a middleware
 * below the SDK's retry step fails or holds the chosen commands, so the SDK's retries, the handlers and
 * the local gateway all meet the fault as they would meet a real one.
 */
const api = useApi();

const FAULT = 'injected-fault';
afterEach(() => {
  dynamo().middlewareStack.remove(FAULT);
  configure({ ...process.env });
});

/** The gateway waits as production's does (each function's timeout), not the test run's hang-only wait. */
const productionWaits = () => configure({ ...process.env, LOCAL_GATEWAY_WAIT_MS: undefined });

/** Every call of a command whose name matches goes to `fault` instead of DynamoDB; returns the call count. */
function inject(command: RegExp, fault: () => Promise<never>): { calls: () => number } {
  let calls = 0;
  // biome-ignore lint/suspicious/noExplicitAny: one middleware for every command of the client.
  const middleware: DeserializeMiddleware<any, any> = (next, context) => async (args) => {
    if (!command.test(context.commandName ?? '')) return next(args);
    calls++;
    return fault();
  };
  dynamo().middlewareStack.add(middleware, { step: 'deserialize', name: FAULT });
  return { calls: () => calls };
}

/** An error as the SDK builds it from a DynamoDB error response. */
function serviceError(name: string, status: number): Error {
  return Object.assign(new Error(`${name} (injected)`), {
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
  });
}

describe('throttling and dependency errors', () => {
  it.each([
    ['ProvisionedThroughputExceededException', 400],
    ['ThrottlingException', 400],
    ['RequestLimitExceeded', 400],
    ['InternalServerError', 500],
  ])(
    '%s is retried by the SDK up to its budget, then answered 503 with Retry-After',
    async (name, status) => {
      const { client } = await api.caller();
      const fault = inject(/^Query/, () => Promise.reject(serviceError(name, status)));
      const response = await client.get('/api/v1/brands');
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe(String(TIMEOUTS.retryAfterSeconds));
      expect(response.body).toEqual({ message: MESSAGES.unavailable });
      expect(fault.calls()).toBe(TIMEOUTS.attempts);
    },
  );

  it('a request that fails for its own reasons is not retried, and is no 503', async () => {
    const { client } = await api.caller();
    const fault = inject(/^Query/, () => Promise.reject(serviceError('ValidationException', 400)));
    const response = await client.get('/api/v1/brands');
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ message: MESSAGES.serverError });
    expect(fault.calls()).toBe(1);
  });

  it('a keyed create cut off by the outage is not stored: the retry executes afresh, then replays', async () => {
    const { client } = await api.caller();
    const key = { 'Idempotency-Key': `faults-${Date.now()}` };
    const fault = inject(/^TransactWrite/, () => Promise.reject(serviceError('ThrottlingException', 400)));
    const failed = await client.post('/api/v1/brands', { name: 'Throttled' }, key);
    expect(failed.status).toBe(503);
    expect(fault.calls()).toBeGreaterThanOrEqual(TIMEOUTS.attempts);
    dynamo().middlewareStack.remove(FAULT);

    const retried = await client.post('/api/v1/brands', { name: 'Throttled' }, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replay')).toBeNull();
    const replayed = await client.post('/api/v1/brands', { name: 'Throttled' }, key);
    expect(replayed.headers.get('idempotent-replay')).toBe('true');
    expect(replayed.body.id).toBe(retried.body.id);
    const names = (await client.get('/api/v1/brands')).body.map((brand: { name: string }) => brand.name);
    expect(names).toEqual(['Throttled']);
  });

  /** A call held below the SDK's own timeouts, as code stuck on its own would be; released after the test. */
  function hold(command: RegExp): () => void {
    let release = () => {};
    inject(command, () => new Promise<never>((_, reject) => (release = () => reject(new Error('released')))));
    return () => release();
  }

  it('a keyed create that does not finish in its function time answers 504 JSON, and its retry executes afresh', async () => {
    const { client } = await api.caller();
    const key = { 'Idempotency-Key': `late-${Date.now()}` };
    productionWaits();
    const release = hold(/^TransactWrite/);
    try {
      const started = Date.now();
      const response = await client.post('/api/v1/brands', { name: 'Late' }, key);
      expect(response.status).toBe(504);
      expect(response.body).toEqual({ message: MESSAGES.timedOut });
      // A bound only a hang reaches (a busy machine adds seconds before the function's clock starts): API
      // Gateway's integration timeout, past which no caller waits.
      expect(Date.now() - started).toBeLessThan(TIMEOUTS.gatewayMs);
    } finally {
      release();
      dynamo().middlewareStack.remove(FAULT);
    }
    const retried = await client.post('/api/v1/brands', { name: 'Late' }, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replay')).toBeNull();
  });

  it("under the test run's wait, a function slower than its production timeout is answered, not cut (only a hang is)", async () => {
    const { client } = await api.caller();
    // biome-ignore lint/suspicious/noExplicitAny: one middleware for every command of the client.
    const slow: DeserializeMiddleware<any, any> = (next, context) => async (args) => {
      if (/^TransactWrite/.test(context.commandName ?? '')) {
        await new Promise((resolve) => setTimeout(resolve, TIMEOUTS.functionSeconds * 1000 + 500));
      }
      return next(args);
    };
    dynamo().middlewareStack.add(slow, { step: 'deserialize', name: FAULT });
    const response = await client.post('/api/v1/brands', { name: 'Slow' });
    expect(response.status).toBe(201);
  });

  it('an authorizer that does not answer in its function time is cut by the gateway: 503 with Retry-After', async () => {
    const { client } = await api.caller();
    productionWaits();
    const release = hold(/^GetItem/);
    try {
      const response = await client.get('/api/v1/contact-fields/types');
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe(String(TIMEOUTS.retryAfterSeconds));
      expect(response.body).toEqual({ message: MESSAGES.unavailable });
    } finally {
      release();
    }
  });
});
