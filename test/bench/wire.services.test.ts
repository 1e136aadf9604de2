import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CountingProxy, concurrentGroups, describeCall, startCountingProxy } from '../../bench/wire.ts';

/** The bench counts DynamoDB round trips at the wire: every request the SDK sends through its proxy is one. */
let proxy: CountingProxy;
let client: DynamoDBClient;
const table = () => process.env.TABLE_NAME as string;
const pk = `BENCHTEST#${randomUUID()}`;

function clientFor(endpoint: string, maxAttempts?: number): DynamoDBClient {
  return new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...(maxAttempts && { maxAttempts }),
  });
}

const put = (sk: string) => ({ Put: { TableName: table(), Item: { pk: { S: pk }, sk: { S: sk } } } });

beforeAll(async () => {
  proxy = await startCountingProxy(process.env.DYNAMODB_ENDPOINT as string);
  client = clientFor(proxy.url);
});
afterAll(async () => {
  client.destroy();
  await proxy.close();
});

describe('counting proxy', () => {
  it('counts one GetItem as exactly one call, named from X-Amz-Target', async () => {
    const { result, calls } = await proxy.record(() =>
      client.send(
        new GetItemCommand({ TableName: table(), Key: { pk: { S: pk }, sk: { S: 'BRAND#000000000001' } } }),
      ),
    );
    expect(result.Item).toBeUndefined();
    expect(calls.map((call) => [call.operation, call.status])).toEqual([['GetItem', 200]]);
    expect(describeCall(calls[0] as (typeof calls)[number])).toBe('GetItem BRAND#');
  });

  it('counts a TransactWriteItems of three items as one call', async () => {
    const { calls } = await proxy.record(() =>
      client.send(new TransactWriteItemsCommand({ TransactItems: [put('A#1'), put('A#2'), put('B#1')] })),
    );
    expect(calls.map((call) => call.operation)).toEqual(['TransactWriteItems']);
    expect(describeCall(calls[0] as (typeof calls)[number])).toBe('TransactWriteItems[2×Put A#, Put B#]');
  });

  it('counts a refused conditional write as one call, with its status', async () => {
    const { calls } = await proxy.record(() =>
      client
        .send(
          new PutItemCommand({
            ...put('A#1').Put,
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        )
        .catch((error: unknown) => error),
    );
    expect(calls.map((call) => [call.operation, call.status])).toEqual([['PutItem', 400]]);
  });

  it('counts parallel calls one each', async () => {
    const get = (sk: string) =>
      client.send(new GetItemCommand({ TableName: table(), Key: { pk: { S: pk }, sk: { S: sk } } }));
    const { calls } = await proxy.record(() => Promise.all([get('A#1'), get('A#2'), get('B#1')]));
    expect(calls.map((call) => call.operation)).toEqual(['GetItem', 'GetItem', 'GetItem']);
  });

  it('groups calls that overlapped in flight, and separates a call that started after the others ended', () => {
    const call = (startedAt: number, endedAt: number) => ({
      operation: 'GetItem',
      body: '{}',
      status: 200,
      startedAt,
      endedAt,
    });
    const first = call(0, 10);
    const parallel = call(2, 12);
    const overlapsSecond = call(11, 20);
    const after = call(21, 30);
    expect(concurrentGroups([after, first, overlapsSecond, parallel])).toEqual([
      [first, parallel, overlapsSecond],
      [after],
    ]);
  });

  it('counts every retry the SDK sends', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const deadEnd = await startCountingProxy(`http://127.0.0.1:${closedPort}`);
    const retrying = clientFor(deadEnd.url, 3);
    try {
      const { result } = await deadEnd.record(() =>
        retrying
          .send(new GetItemCommand({ TableName: table(), Key: { pk: { S: pk }, sk: { S: 'A#1' } } }))
          .catch((error: unknown) => error),
      );
      expect(result).toBeInstanceOf(Error);
      expect(result).not.toBeInstanceOf(ConditionalCheckFailedException);
      expect(deadEnd.calls.map((call) => [call.operation, call.status])).toEqual([
        ['GetItem', 502],
        ['GetItem', 502],
        ['GetItem', 502],
      ]);
    } finally {
      retrying.destroy();
      await deadEnd.close();
    }
  });
});
