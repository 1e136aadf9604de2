import { createServer } from 'node:net';
import type { TestProject } from 'vitest/node';
import { handlerEnvironment, servicesConfig } from '../../lib/local/local-api.ts';

/**
 * The global setup of the lanes without services (unit, stack): the handlers' environment as the services
 * lane's, every endpoint on a port of 127.0.0.1 that nothing listens on, so a call that reaches for DynamoDB,
 * S3 or the pipeline is refused at once, in this process (support/unit-lane.ts says so by name) and in any
 * process a test spawns.
 */
export default async function setup(project: TestProject) {
  const refused = `http://127.0.0.1:${await closedPort()}`;
  project.provide(
    'localEnv',
    handlerEnvironment(
      servicesConfig({
        dynamodbEndpoint: refused,
        s3Endpoint: refused,
        eventBridgeEndpoint: refused,
        lambdaEndpoint: refused,
        kmsEndpoint: refused,
      }),
    ),
  );
}

/** A port the system gave and took back: nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
