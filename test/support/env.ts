import { afterAll, inject } from 'vitest';
import { configure } from '../../shared/config.ts';
import { touchesOutsideGrants } from './key-observer.ts';

// Before each test file: the run's local servers (global setup). Scripts the tests spawn inherit them.
Object.assign(process.env, inject('localEnv'));
configure(process.env);

// After each test file: every key a function's code touched in it is one its role may touch in AWS (DynamoDB
// Local enforces no IAM; support/key-observer.ts).
afterAll(() => {
  const outside = [...new Set(touchesOutsideGrants())];
  if (outside.length > 0) {
    throw new Error(
      `Functions touched the table outside their grants (shared/routes.ts table):\n${outside.join('\n')}`,
    );
  }
});
