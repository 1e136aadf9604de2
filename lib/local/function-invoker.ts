import { createServer, type Server } from 'node:http';
import { logger } from '../../shared/telemetry.ts';

/**
 * Lambda's Invoke API, locally, for asynchronous invocations (InvocationType `Event`): the SDK client
 * that starts webhook deliveries talks to it over HTTP (LAMBDA_ENDPOINT) as it talks to Lambda in AWS.
 * It answers 202 at once and runs the named function's handler in this process afterwards, as Lambda
 * queues the event and runs it. A function's `asyncConfig` is Lambda's (its EventInvokeConfig): a failed
 * run is run again up to `retryAttempts` times, after `retryDelayMs` (Lambda waits about a minute, then
 * two), and then the failure record goes to its `onFailure` function, as an on-failure destination's
 * does (`requestPayload` is what the failed invocation was given). Failures are logged, as Lambda would.
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

export function createFunctionInvoker(
  handlers: Record<string, () => Promise<Handler>>,
  asyncConfig: Record<string, AsyncConfig> = {},
): Server {
  const run = async (name: string, payload: unknown): Promise<void> => {
    const load = handlers[name] as () => Promise<Handler>;
    const config = asyncConfig[name];
    for (let attempt = 0; ; attempt++) {
      try {
        await (await load())(payload);
        return;
      } catch (error) {
        logger().error('invocation failed', { function: name, attempt, error: String(error) });
        if (!config || attempt >= config.retryAttempts) {
          if (config?.onFailure && handlers[config.onFailure]) {
            const record = {
              requestContext: {
                functionArn: name,
                condition: 'RetriesExhausted',
                approximateInvokeCount: attempt + 1,
              },
              requestPayload: payload,
              responsePayload: { errorMessage: String(error) },
            };
            await run(config.onFailure, record);
          }
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, config.retryDelayMs * 2 ** attempt));
      }
    }
  };
  return createServer((request, response) => {
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
      void run(name, payload);
    });
  });
}
