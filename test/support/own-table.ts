import { randomInt, randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { provision } from '../../lib/local/services.ts';
import { configure } from '../../shared/config.ts';
import { dynamo } from '../../shared/data/dynamo.ts';
import { SEQUENCES, sequenceKey } from '../../shared/data/keys.ts';

/**
 * For the tests of the describe block that calls it: a table of their own on the run's DynamoDB Local. For
 * `admin migrate`, a job over the whole table: on the shared one it reads the thousands of teams every other
 * file made (minutes of work on two busy cores) and could move another file's items. The handlers and data
 * modules of this process and the CLIs it spawns use it (TABLE_NAME); the change-event pipeline of the run
 * does not read its stream. Its id sequences start in a window of their own, far above the shared table's: a
 * block of ids this process reserves from it is still used after the block, on the shared table.
 */
export function useOwnTable(): void {
  const shared = process.env.TABLE_NAME;
  beforeAll(async () => {
    const own = `tm-own-${process.pid}-${randomUUID().slice(0, 8)}`;
    await provision(
      {
        dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT as string,
        s3Endpoint: process.env.S3_ENDPOINT as string,
      },
      {
        tableName: own,
        privateBucket: process.env.PRIVATE_BUCKET as string,
        publicBucket: process.env.PUBLIC_BUCKET as string,
      },
    );
    const base = 100_000_000_000 + randomInt(0, 900_000) * 100_000;
    for (const sequence of SEQUENCES) {
      await dynamo().send(new PutCommand({ TableName: own, Item: { ...sequenceKey(sequence), last: base } }));
    }
    process.env.TABLE_NAME = own;
    configure({ ...process.env });
  });
  afterAll(() => {
    process.env.TABLE_NAME = shared;
    configure({ ...process.env });
  });
}
