import { createServer, type Server } from 'node:http';
import { logger } from '../../shared/telemetry.ts';
import type { ConcurrencyClass } from '../cdk/concurrency.ts';
import { ReservedShares } from './reserved-concurrency.ts';

/**
 * Lambda's Invoke API, locally, for asynchronous invocations (InvocationType `Event`): the SDK client
 * that starts webhook deliveries talks to it over HTTP (LAMBDA_ENDPOINT) as it talks to Lambda in AWS.
 * It answers 202 at once and runs the named function's handler in this process afterwards, as Lambda
 * queues the event and runs it. A function's `asyncConfig` is Lambda's (its EventInvokeConfig): a failed
 * run is run again up to `retryAttempts` times, after `retryDelayMs` (Lambda waits about a minute, then
 * two), and then the failure record goes to its `onFailure` function, as an on-failure destination's
 * does (`requestPayload` is what the failed invocation was given). Failures are logged, as Lambda would.
 *
 * A function of a class that reserves concurrency (`reserved`) never runs more than its share at once, as
 * Lambda throttles it: an event (or a retry) that finds the share full is not run now but kept, and run
 * when one of the function's runs ends. Lambda keeps a throttled event in its queue and retries it with
 * backoff for up to its maximum event age (6 hours by default); locally it waits in order for the first
 * free slot, which is sooner and never drops it. What is still waiting when the server closes is logged.
 */
const INVOCATIONS = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

type Handler = (payload: unknown) => Promise<unknown>;

export interface AsyncConfig {
  retryAttempts: number;
  /** Before the first retry; doubled before each next one. */
  retryDelayMs: number;
  /** The name of the function that gets the failure record. */
  onFailure?: string;
}

export interface Reserved {
  /** Each function's class (the stack's, lib/cdk/concurrency.ts); a function not named reserves nothing. */
  classes: Record<string, ConcurrencyClass>;
  /** The shares (the stack's defaults unless given: tests give small ones). */
  shares?: ReservedShares;
}

export function createFunctionInvoker(
  handlers: Record<string, () => Promise<Handler>>,
  asyncConfig: Record<string, AsyncConfig> = {},
  reserved: Reserved = { classes: {} },
): Server {
  const shares = reserved.shares ?? new ReservedShares();
  const waiting = new Map<string, Array<() => Promise<void>>>();
  const retries = new Set<NodeJS.Timeout>();
  let closed = false;

  /** Runs what waits for `name` while its share has room; each run that ends makes room for the next. */
  const dispatch = (name: string) => {
    const queue = waiting.get(name) ?? [];
    const kind = reserved.classes[name];
    while (queue.length > 0 && !closed) {
      const next = queue[0] as () => Promise<void>;
      const running = kind ? shares.of(name, kind).tryRun(next) : next();
      if (!running) return; // Throttled: kept, run when a slot frees.
      queue.shift();
      void running.finally(() => dispatch(name));
    }
  };
  const enqueue = (name: string, run: () => Promise<void>) => {
    if (closed) {
      // A run that outlived the server failed or has a failure record: said, as at the close.
      logger().warn('invocation not run: the Lambda stand-in has stopped', { function: name });
      return;
    }
    const queue = waiting.get(name) ?? [];
    queue.push(run);
    waiting.set(name, queue);
    dispatch(name);
  };

  /** One run of the event; a failure is retried (as a new event, through the share) or handed on. */
  const runOnce = async (name: string, payload: unknown, attempt: number): Promise<void> => {
    const config = asyncConfig[name];
    try {
      await (await (handlers[name] as () => Promise<Handler>)())(payload);
    } catch (error) {
      logger().error('invocation failed', { function: name, attempt, error: String(error) });
      if (config && attempt < config.retryAttempts && !closed) {
        const timer = setTimeout(
          () => {
            retries.delete(timer);
            enqueue(name, () => runOnce(name, payload, attempt + 1));
          },
          config.retryDelayMs * 2 ** attempt,
        );
        retries.add(timer);
        return;
      }
      const onFailure = config?.onFailure;
      if (onFailure && handlers[onFailure]) {
        const record = {
          requestContext: {
            functionArn: name,
            condition: 'RetriesExhausted',
            approximateInvokeCount: attempt + 1,
          },
          requestPayload: payload,
          responsePayload: { errorMessage: String(error) },
        };
        enqueue(onFailure, () => runOnce(onFailure, record, 0));
      }
    }
  };

  const server = createServer((request, response) => {
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const name = decodeURIComponent(INVOCATIONS.exec(request.url ?? '')?.[1] ?? '');
      if (request.method !== 'POST' || !handlers[name]) {
        return reply(404, { Type: 'User', message: `Function not found: ${name}` });
      }
      if (request.headers['x-amz-invocation-type'] !== 'Event') {
        return reply(400, { Type: 'User', message: 'only asynchronous (Event) invocations are served here' });
      }
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') as unknown;
      reply(202, {});
      enqueue(name, () => runOnce(name, payload, 0));
    });
  });
  server.on('close', () => {
    // Stopping the stand-in ends its queue, as the process would: said, not dropped silently.
    closed = true;
    for (const timer of retries) clearTimeout(timer);
    const left = [...waiting.values()].reduce((sum, queue) => sum + queue.length, 0) + retries.size;
    if (left > 0) logger().warn('invocations not run before the Lambda stand-in stopped', { left });
    retries.clear();
    waiting.clear();
  });
  return server;
}
