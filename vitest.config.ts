import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SERVICES, STACK, WHOLE_TABLE } from './test/support/lanes.ts';
import { HOOK_TIMEOUT_MS, TEST_TIMEOUT_MS } from './test/support/timeouts.ts';

/**
 * `import … with { type: 'text' }` (a file's text, as esbuild bundles it for Lambda) read as Vite's `?raw`
 * import: tests run the handlers in-process.
 */
const textImports = {
  name: 'text-imports',
  enforce: 'pre' as const,
  transform: (code: string) =>
    code.includes("with { type: 'text' }")
      ? { code: code.replace(/from '([^']+)' with \{ type: 'text' \}/g, "from '$1?raw'"), map: null }
      : null,
};

/**
 * Each function's `handler`, as the tests load it, runs in that function's own context, so that every key
 * its real code touches through the whole suite is recorded as its (test/support/key-observer.ts) and held
 * to its grants after each file (test/support/env.ts).
 */
const root = dirname(fileURLToPath(import.meta.url));
const observedHandlers = {
  name: 'observed-handlers',
  enforce: 'pre' as const,
  transform: (code: string, id: string) => {
    const file = relative(root, id.split('?')[0] as string);
    if (!/^functions\/.+\.ts$/.test(file) || !code.includes('export const handler =')) return null;
    const observer = join(root, 'test/support/key-observer.ts');
    return {
      code: `${code.replace('export const handler =', 'const unobservedHandler =')}
import { observedHandler } from '${observer}';
export const handler = observedHandler('${file}', unobservedHandler);
`,
      map: null,
    };
  },
};

/**
 * The lanes, by file name (test/support/lanes.ts): `*.services.test.ts` needs DynamoDB Local, s3rver and
 * the change-event pipeline (one of each for the lane: support/global-setup.ts); `*.stack.test.ts`
 * synthesizes the stack; any other `*.test.ts` is a unit test and needs neither. The lanes without services
 * point every endpoint at a closed port (support/no-services.ts) and refuse a call to DynamoDB or S3 at
 * once, naming the lane to use (support/unit-lane.ts). Every file is in exactly one lane (test/lanes.test.ts).
 *
 * `*.whole-table.test.ts` are services files whose `admin migrate` works on the whole table and counts what
 * it moved: they run first and one at a time, on a DynamoDB Local of their own (a project's global setup is
 * its own), which holds only their teams (the scan is quick) and no other file's migrate can reach. Then the
 * other lanes run side by side, three files at a time on two cores: a services file mostly waits on its
 * servers, and the others fill the waits (two at a time took 550 s of the suite, three 427 s).
 */
const withoutServices = {
  globalSetup: ['test/support/no-services.ts'],
  setupFiles: ['test/support/env.ts', 'test/support/unit-lane.ts'],
};
const withServices = { globalSetup: ['test/support/global-setup.ts'], setupFiles: ['test/support/env.ts'] };
const [first, then] = [{ groupOrder: 1 }, { groupOrder: 2 }];

export default defineConfig({
  plugins: [textImports, observedHandlers],
  test: {
    // Hang-only (support/timeouts.ts): the suite must pass on two busy cores.
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: HOOK_TIMEOUT_MS,
    pool: 'forks',
    maxWorkers: 3,
    env: { LOG_LEVEL: 'silent', METRICS: 'off', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...SERVICES, ...WHOLE_TABLE, ...STACK],
          sequence: then,
          ...withoutServices,
        },
      },
      { extends: true, test: { name: 'stack', include: STACK, sequence: then, ...withoutServices } },
      { extends: true, test: { name: 'services', include: SERVICES, sequence: then, ...withServices } },
      {
        extends: true,
        test: {
          name: 'services-whole-table',
          include: WHOLE_TABLE,
          sequence: first,
          maxWorkers: 1,
          ...withServices,
        },
      },
    ],
  },
});
