import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

/**
 * `npm run -s test:unit:time`: the unit lane (vitest.config.ts), run as `npm run test:unit` runs it, and its
 * wall time printed. A figure to watch, never a bound: the lane is meant to answer in under a minute.
 */
const root = resolve(import.meta.dirname, '..');
const started = performance.now();
const run = spawnSync(
  process.execPath,
  [resolve(root, 'node_modules/vitest/vitest.mjs'), 'run', '--project', 'unit', ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);
const seconds = (performance.now() - started) / 1000;
console.log(`unit lane: ${seconds.toFixed(1)} s wall time`);
process.exit(run.status ?? 1);
