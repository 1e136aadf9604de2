import { inject } from 'vitest';
import { configure } from '../../shared/config.ts';

// Before each test file: the run's local servers (global setup). Scripts the tests spawn inherit them.
Object.assign(process.env, inject('localEnv'));
configure(process.env);
