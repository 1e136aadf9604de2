import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_RESOURCES } from '../../lib/local/local-api.ts';
import { provision } from '../../lib/local/services.ts';
import { startStreamPoller } from '../../lib/local/stream-poller.ts';

/**
 * What a change event says is true of the change it reports (issue 37, items 1, 3 and 4): the local poller
 * hands each record over once across restarts, an event names the request and the state of its change,
 * and its time is the write's, to the microsecond.
 */
const endpoint = process.env.DYNAMODB_ENDPOINT as string;
let scratch = '';
const pollers: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'tm-event-truth-'));
});
afterAll(async () => {
  for (const poller of pollers) await poller.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe('the local stream poller restarted', () => {
  it('hands over each record once: none twice, none missed, those written while it was stopped after', async () => {
    // A table of its own, so that only this poller reads its stream.
    const table = `poller-${randomUUID()}`;
    await provision(
      { dynamodbEndpoint: endpoint, s3Endpoint: process.env.S3_ENDPOINT as string },
      {
        ...LOCAL_RESOURCES,
        tableName: table,
      },
    );
    const dynamo = new DynamoDBClient({
      region: 'us-east-1',
      endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const write = (n: number) =>
      dynamo.send(
        new PutItemCommand({
          TableName: table,
          Item: {
            pk: { S: 'TEAM#1' },
            sk: { S: 'BRAND#000000000001' },
            n: { N: String(n) },
          },
        }),
      );
    const handed: number[] = [];
    const checkpointPath = join(scratch, 'checkpoint.json');
    const start = () => {
      const poller = startStreamPoller({
        endpoint,
        tableName: table,
        checkpointPath,
        idleMs: 20,
        consume: async (event) => {
          for (const record of event.Records) handed.push(Number(record.dynamodb?.NewImage?.n?.N));
          return { batchItemFailures: [] };
        },
      });
      pollers.push(poller);
      return poller;
    };
    const handedOver = async (n: number) => {
      const deadline = Date.now() + 30_000;
      while (!handed.includes(n) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(handed).toContain(n);
    };

    const first = start();
    for (let n = 1; n <= 10; n++) await write(n);
    await handedOver(10);
    await first.stop();

    for (let n = 11; n <= 20; n++) await write(n); // while no poller runs
    const second = start();
    await handedOver(20);
    for (let n = 21; n <= 25; n++) await write(n);
    // Records of one item come in order: once the last is handed over, every earlier one has been.
    await handedOver(25);
    await second.stop();
    dynamo.destroy();

    expect([...handed].sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    // Its place, in the file a restart reads: the stream's, and the shard's last record.
    const checkpoint = JSON.parse(await readFile(checkpointPath, 'utf8'));
    expect(
      Object.values(checkpoint.shards).some(
        (shard) => (shard as { sequence_number?: string }).sequence_number,
      ),
    ).toBe(true);
  }, 90_000);
});
