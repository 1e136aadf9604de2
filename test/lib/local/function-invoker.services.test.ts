import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { CONCURRENCY_DEFAULTS } from '../../../lib/cdk/concurrency.ts';
import { createFunctionInvoker } from '../../../lib/local/function-invoker.ts';
import { ReservedShares } from '../../../lib/local/reserved-concurrency.ts';
import { sdkClientOptions } from '../../../shared/aws.ts';
import { until } from '../../support/deliveries.ts';

/**
 * The local Invoke API holds a function to its class's reserved share as Lambda does for asynchronous
 * invocations: never more runs at once than the share, and an event that finds it full is kept and run
 * later, never dropped (its retries after a failure wait for a slot too).
 */
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((closed) => server.close(closed));
});

const SHARE = 2;

/** An invoker of one function `fn` of the deliverer's class (a share of SHARE) on a free port, closed after the test. */
async function invokerOf(handler: (payload: unknown) => Promise<unknown>, onFailure?: typeof handler) {
  const shares = new ReservedShares({ ...CONCURRENCY_DEFAULTS, webhookDeliverer: SHARE });
  const server = createFunctionInvoker(
    { fn: async () => handler, ...(onFailure && { failed: async () => onFailure }) },
    onFailure ? { fn: { retryAttempts: 1, retryDelayMs: 10, onFailure: 'failed' } } : {},
    { classes: { fn: 'webhookDeliverer' }, shares },
  );
  servers.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const lambda = new LambdaClient(
    sdkClientOptions(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'local'),
  );
  const invoke = (payload: unknown) =>
    lambda.send(
      new InvokeCommand({
        FunctionName: 'fn',
        InvocationType: 'Event',
        Payload: new TextEncoder().encode(JSON.stringify(payload)),
      }),
    );
  return { invoke, bound: shares.of('fn', 'webhookDeliverer') };
}

describe('the local Invoke API enforces reserved concurrency', () => {
  it('runs at most the share at once; what found it full waits, and every event runs once', async () => {
    const started: number[] = [];
    const releases: Array<() => void> = [];
    let running = 0;
    let peak = 0;
    const { invoke, bound } = await invokerOf(async (payload) => {
      running += 1;
      peak = Math.max(peak, running);
      started.push(payload as number);
      await new Promise<void>((release) => releases.push(release));
      running -= 1;
    });
    // Each answered 202 at once, as Lambda queues an event, whether or not the share has room.
    const answers = await Promise.all(Array.from({ length: 7 }, (_, index) => invoke(index)));
    expect(answers.map((answer) => answer.StatusCode)).toEqual(Array(7).fill(202));
    await until(() => started.length === SHARE);
    expect(bound.inFlight).toBe(SHARE);
    // Held runs keep the others waiting (a moment for any that would start wrongly).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(started).toHaveLength(SHARE);
    // Each run that ends lets one waiting event in.
    while (started.length < 7 || releases.length > 0) {
      await until(() => releases.length > 0);
      releases.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await until(() => bound.inFlight === 0);
    expect(started.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(peak).toBe(SHARE);
  });

  it('a failed run is retried through the share, then handed to its on-failure function', async () => {
    let running = 0;
    let peak = 0;
    let runs = 0;
    const failures: unknown[] = [];
    const { invoke } = await invokerOf(
      async () => {
        running += 1;
        runs += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running -= 1;
        throw new Error('receiver down');
      },
      async (record) => {
        failures.push((record as { requestPayload: unknown }).requestPayload);
      },
    );
    await Promise.all(Array.from({ length: 6 }, (_, index) => invoke(index)));
    await until(() => failures.length === 6);
    // Each event ran twice (its retry), never more than the share at once.
    expect(runs).toBe(12);
    expect(peak).toBeLessThanOrEqual(SHARE);
    expect((failures as number[]).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
