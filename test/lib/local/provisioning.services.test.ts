import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { LOCAL_RESOURCES } from '../../../lib/local/local-api.ts';
import { provision } from '../../../lib/local/services.ts';
import { TABLE_SCHEMA } from '../../../shared/data/table-schema.ts';

/**
 * The run's DynamoDB Local (started by lib/local/services.ts, as `npm start` starts it) listens on every
 * interface, since it cannot be told one: what a page in the developer's browser could do with it is what
 * its CORS allow-list lets through, and that is nothing.
 */
describe('local DynamoDB', () => {
  const endpoint = () => process.env.DYNAMODB_ENDPOINT as string;

  it('refuses a browser page of any origin: no preflight passes, no answer is readable', async () => {
    const preflight = await fetch(endpoint(), {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://some-page.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-amz-target,authorization',
      },
    });
    // DynamoDB Local's default allow-list is `*`, which would answer `*` here and let the page through.
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();

    // A simple request a page could send without a preflight: DynamoDB Local answers, but not to the page.
    const simple = await fetch(endpoint(), {
      method: 'POST',
      headers: { Origin: 'http://some-page.example', 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(simple.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('still serves the API (requests without an Origin, as the SDK sends them)', async () => {
    const preflightFree = await fetch(endpoint(), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.ListTables',
        Authorization:
          'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: '{}',
    });
    expect(preflightFree.status).toBe(200);
    expect(((await preflightFree.json()) as { TableNames: unknown }).TableNames).toEqual(expect.any(Array));
  });
});

/**
 * `provision` makes the table as the stack has it, and brings a table an earlier version made up to date:
 * the stream (change events) and the `byDueTime` index (webhook deliveries), which it waits to be ACTIVE.
 */
describe('local provisioning', () => {
  const endpoints = () => ({
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT as string,
    s3Endpoint: process.env.S3_ENDPOINT as string,
  });
  const client = () =>
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: endpoints().dynamodbEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  const { idIndex, dueIndex } = TABLE_SCHEMA;
  const describeTable = async (dynamo: DynamoDBClient, name: string) =>
    (await dynamo.send(new DescribeTableCommand({ TableName: name }))).Table;
  const indexes = (table: Awaited<ReturnType<typeof describeTable>>) =>
    Object.fromEntries(
      (table?.GlobalSecondaryIndexes ?? []).map((index) => [
        index.IndexName,
        {
          status: index.IndexStatus,
          keys: index.KeySchema?.map((key) => key.AttributeName),
          projection: index.Projection?.ProjectionType,
        },
      ]),
    );
  const expected = {
    [idIndex.name]: { status: 'ACTIVE', keys: ['gsi1pk', 'gsi1sk'], projection: 'KEYS_ONLY' },
    [dueIndex.name]: { status: 'ACTIVE', keys: ['gsi2pk', 'gsi2sk'], projection: 'KEYS_ONLY' },
  };

  it('creates a new table with both indexes, keys only, and its stream', async () => {
    const dynamo = client();
    const name = `fresh-${randomUUID()}`;
    try {
      await provision(endpoints(), { ...LOCAL_RESOURCES, tableName: name });
      const table = await describeTable(dynamo, name);
      expect(indexes(table)).toEqual(expected);
      expect(table?.StreamSpecification?.StreamEnabled).toBe(true);
    } finally {
      await dynamo.send(new DeleteTableCommand({ TableName: name }));
      dynamo.destroy();
    }
  });

  it('gives a table made before webhooks its byDueTime index over the items it has, and its stream', async () => {
    const dynamo = client();
    const name = `before-webhooks-${randomUUID()}`;
    try {
      // As provision made it before change events and webhooks: the id index only, no stream.
      await dynamo.send(
        new CreateTableCommand({
          TableName: name,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: ['pk', 'sk', 'gsi1pk', 'gsi1sk'].map((attribute) => ({
            AttributeName: attribute,
            AttributeType: 'S',
          })),
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: [
            {
              IndexName: idIndex.name,
              KeySchema: [
                { AttributeName: 'gsi1pk', KeyType: 'HASH' },
                { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'KEYS_ONLY' },
            },
          ],
        }),
      );
      const due = { pk: 'TEAM#1', sk: 'DELIVERY#1', gsi2pk: 'DUE#0', gsi2sk: '1767225600000' };
      await dynamo.send(
        new PutItemCommand({
          TableName: name,
          Item: Object.fromEntries(Object.entries(due).map(([key, value]) => [key, { S: value }])),
        }),
      );
      expect(Object.keys(indexes(await describeTable(dynamo, name)))).toEqual([idIndex.name]);

      await provision(endpoints(), { ...LOCAL_RESOURCES, tableName: name });
      const table = await describeTable(dynamo, name);
      expect(indexes(table)).toEqual(expected);
      expect(table?.StreamSpecification?.StreamEnabled).toBe(true);
      const { Items } = await dynamo.send(
        new QueryCommand({
          TableName: name,
          IndexName: dueIndex.name,
          KeyConditionExpression: 'gsi2pk = :shard',
          ExpressionAttributeValues: { ':shard': { S: 'DUE#0' } },
        }),
      );
      expect(Items?.map((item) => item.sk?.S)).toEqual(['DELIVERY#1']);

      // Provisioned again (the next start): nothing left to add.
      await provision(endpoints(), { ...LOCAL_RESOURCES, tableName: name });
      expect(indexes(await describeTable(dynamo, name))).toEqual(expected);
    } finally {
      await dynamo.send(new DeleteTableCommand({ TableName: name }));
      dynamo.destroy();
    }
  });
});
