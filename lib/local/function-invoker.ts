import { createServer, type Server } from 'node:http';
import { logger } from '../../shared/telemetry.ts';

/**
 * Lambda's Invoke API, locally, for asynchronous invocations (InvocationType `Event`): the SDK client
 * that starts webhook deliveries talks to it over HTTP (LAMBDA_ENDPOINT) as it talks to Lambda in AWS.
 * It answers 202 at once and runs the named function's handler in this process afterwards, as Lambda
 * queues the event and runs it; a handler's failure is logged, as Lambda would log it.
 */
const INVOCATIONS = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

export function createFunctionInvoker(
  handlers: Record<string, () => Promise<(payload: unknown) => Promise<unknown>>>,
): Server {
  return createServer((request, response) => {
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const name = decodeURIComponent(INVOCATIONS.exec(request.url ?? '')?.[1] ?? '');
      const load = handlers[name];
      if (request.method !== 'POST' || !load) {
        return reply(404, { Type: 'User', message: `Function not found: ${name}` });
      }
      if (request.headers['x-amz-invocation-type'] !== 'Event') {
        return reply(400, { Type: 'User', message: 'only asynchronous (Event) invocations are served here' });
      }
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') as unknown;
      reply(202, {});
      load()
        .then((handler) => handler(payload))
        .catch((error: unknown) =>
          logger().error('invocation failed', { function: name, error: String(error) }),
        );
    });
  });
}
