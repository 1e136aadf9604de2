import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
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

export default defineConfig({
  plugins: [textImports, observedHandlers],
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/env.ts'],
    include: ['test/**/*.test.ts'],
    // Hang-only (support/timeouts.ts): the suite must pass on two busy cores.
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: HOOK_TIMEOUT_MS,
    pool: 'forks',
    // Vitest's default worker count (one fewer than the cores) runs the files one at a time on two cores. Two
    // would overlap their waits (a subset measured 18% faster), but four files' `admin migrate` tests work on
    // the whole shared table and count what they moved: one file's migrate would move another's legacy items.
    env: { LOG_LEVEL: 'silent', METRICS: 'off', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
