import type { TestProject } from 'vitest/node';
import { handlerEnvironment, servicesConfig } from '../../lib/local/local-api.ts';
import { freePort } from '../../lib/local/services.ts';

/**
 * The global setup of the lanes without services (unit, stack): the handlers' environment as the services
 * lane's, every endpoint on a port of 127.0.0.1 that nothing listens on, so a call that reaches for DynamoDB,
 * S3 or the pipeline is refused at once, in this process (support/unit-lane.ts says so by name) and in any
 * process a test spawns.
 */
export default async function setup(project: TestProject) {
  // A port that was free a moment ago: nothing listens on it.
  const refused = `http://127.0.0.1:${await freePort()}`;
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
