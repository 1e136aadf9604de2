import { inject } from 'vitest';

// Runs before each test file's imports: the handlers and data modules read this environment when loaded.
Object.assign(process.env, inject('localEnv'));
