import { inject } from 'vitest';
import { configure, type Environment } from '../../shared/config.ts';

/** Runs the code under test with some settings changed (the way an entry point would configure it). */
export function useSettings(overrides: Environment): void {
  configure({ ...process.env, ...inject('localEnv'), ...overrides });
}

/** Back to the settings every test file starts with (test/support/env.ts). */
export function restoreSettings(): void {
  configure({ ...process.env, ...inject('localEnv') });
}
