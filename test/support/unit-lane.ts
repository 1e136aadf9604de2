import type { InitializeMiddleware } from '@smithy/types';
import { dynamo } from '../../shared/data/dynamo.ts';
import { s3 } from '../../shared/files/s3.ts';

/**
 * In the lanes without services (unit, stack; vitest.config.ts), a call to DynamoDB or S3 fails before it is
 * sent, saying which lane the file belongs in. It runs after the key observer's (support/key-observer.ts), so
 * a function's touch is still held to its grants.
 */
// biome-ignore lint/suspicious/noExplicitAny: it refuses every command of either client.
const refuse: InitializeMiddleware<any, any> = (_next, context) => async () => {
  throw new Error(
    `${context.commandName ?? 'A call'} reached for DynamoDB or S3 from a test file of a lane without services: move the file to the services lane (test/support/lanes.ts).`,
  );
};
const options = { step: 'initialize', name: 'refuseServices', priority: 'low' } as const;
dynamo().middlewareStack.add(refuse, options);
s3().middlewareStack.add(refuse, options);
