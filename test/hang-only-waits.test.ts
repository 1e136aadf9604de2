import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/processes.ts';
import { HANG_MS, TEST_TIMEOUT_MS } from './support/timeouts.ts';

/**
 * The tests' own waits are for hangs only (support/timeouts.ts), so that the suite passes on two busy cores:
 * no poll with a shorter literal deadline, no per-test timeout below the run's, no elapsed time asserted
 * under a bound a loaded machine reaches (API Gateway's 29 s integration timeout is the only one allowed).
 */
const testSources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testSources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

const SOURCES = testSources(join(ROOT, 'test')).map((path) => ({
  file: relative(ROOT, path),
  text: readFileSync(path, 'utf8'),
}));

const number = (literal: string) => Number(literal.replaceAll('_', ''));

/** Each match of `pattern` in the test sources whose captured literal `tight` finds too small. */
function tight(pattern: RegExp, isTight: (captured: string) => boolean): string[] {
  return SOURCES.flatMap(({ file, text }) =>
    [...text.matchAll(pattern)]
      .filter((match) => isTight(match[1] as string))
      .map((match) => `${file}:${text.slice(0, match.index).split('\n').length}: ${match[0].trim()}`),
  );
}

describe('hang-only waits in the tests', () => {
  it('finds the test sources', () => {
    expect(SOURCES.length).toBeGreaterThan(50);
  });

  it('no poll has a literal deadline or default shorter than HANG_MS', () => {
    const deadlines = /(?:deadline = Date\.now\(\) \+|(?:deadline|timeout)Ms = )\s*([0-9][0-9_]*)/g;
    expect(tight(deadlines, (ms) => number(ms) < HANG_MS)).toEqual([]);
  });

  it('no helper is called with a literal deadline shorter than HANG_MS', () => {
    const calls = /(?:received|until|waitForOutput|eventsOf|loggedEvents)\([^;]*?,\s*([0-9][0-9_]{3,})\)/g;
    expect(tight(calls, (ms) => number(ms) < HANG_MS)).toEqual([]);
  });

  it('no test or hook sets a timeout below the run’s', () => {
    const timeouts = /^\s*\}\s*,\s*([0-9][0-9_]*)\);$/gm;
    expect(tight(timeouts, (ms) => number(ms) < TEST_TIMEOUT_MS)).toEqual([]);
  });

  it('no elapsed time is asserted under a bound other than API Gateway’s integration timeout', () => {
    const elapsed = /expect\(Date\.now\(\) - \w+\)\.toBeLessThan\(([^)]*)\)/g;
    expect(tight(elapsed, (bound) => bound !== 'TIMEOUTS.gatewayMs')).toEqual([]);
  });
});
