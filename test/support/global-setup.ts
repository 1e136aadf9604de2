import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  handlerEnvironment,
  LOCAL_RESOURCES,
  servicesConfig,
  startEventPipeline,
} from '../../lib/local/local-api.ts';
import { provision, startServices } from '../../lib/local/services.ts';
import { configure } from '../../shared/config.ts';
import { TEST_SDK_TIMEOUTS } from './timeouts.ts';

/**
 * One DynamoDB Local (in memory) and one s3rver for the run of a services lane (vitest.config.ts: the
 * whole-table files have their own); its test files share them, each with its own teams.
 */
export default async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const scratchDir = await mkdtemp(join(tmpdir(), 'tm-test-'));
  const services = await startServices({ scratchDir });
  await provision(services, LOCAL_RESOURCES);
  // The handlers' environment, with SDK timeouts only a hang reaches (support/timeouts.ts).
  const environment = { ...handlerEnvironment(servicesConfig(services)), ...TEST_SDK_TIMEOUTS };
  project.provide('localEnv', environment);
  // Every test file's writes make change events, as they do under `npm start`: the consumer runs here,
  // and so does the deliverer of webhooks (the Lambda stand-in's), to the tests' receivers on 127.0.0.1.
  configure({
    ...process.env,
    ...environment,
    LOG_LEVEL: 'SILENT',
    METRICS: 'off',
    AUTOCONFIGURE_ALLOW_LOOPBACK: '1',
  });
  const events = startEventPipeline(servicesConfig(services));
  return async () => {
    await events.stop();
    await services.stop();
    await rm(scratchDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    localEnv: Record<string, string>;
  }
}
