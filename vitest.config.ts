import { defineConfig } from 'vitest/config';

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

export default defineConfig({
  plugins: [textImports],
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/env.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
    pool: 'forks',
    env: { LOG_LEVEL: 'silent', METRICS: 'off', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
