import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { provision, startServices } from '../../lib/local/services.ts';
import { handlerEnvironment, LOCAL_RESOURCES } from '../../lib/local/stack.ts';

/** One DynamoDB Local (in memory) and one s3rver for the whole run; test files share them, each with its own teams. */
export default async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const scratchDir = await mkdtemp(join(tmpdir(), 'tm-test-'));
  const services = await startServices({ scratchDir });
  await provision(services, LOCAL_RESOURCES);
  const env = handlerEnvironment({
    dynamodb_endpoint: services.dynamodbEndpoint,
    s3_endpoint: services.s3Endpoint,
    table_name: LOCAL_RESOURCES.tableName,
    private_bucket: LOCAL_RESOURCES.privateBucket,
    public_bucket: LOCAL_RESOURCES.publicBucket,
    public_base_url: `${services.s3Endpoint}/${LOCAL_RESOURCES.publicBucket}`,
  });
  project.provide('localEnv', env);
  return async () => {
    await services.stop();
    await rm(scratchDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    localEnv: Record<string, string>;
  }
}
