import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { streamConsumer } from '../routes.ts';

/**
 * Lambda's event source mapping, locally: reads every shard of the table's stream from its start, hands
 * each batch to the consumer as Lambda would (a DynamoDBStreamEvent), and on a reported failure reads the
 * shard again from the failed record. Only the items the route table's streamConsumer names are passed, as
 * the mapping's filter does in AWS. A record is handed over again only after a failure, as in AWS (at least once).
 */
export interface StreamPollerOptions {
  endpoint: string;
  tableName: string;
  consume: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;
  /** Pause between reads of a shard with nothing new. */
  idleMs?: number;
}

const BATCH_SIZE = 100;

export function startStreamPoller(options: StreamPollerOptions): { stop(): Promise<void> } {
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const clientOptions = { region: 'us-east-1', endpoint: options.endpoint, credentials };
  const streams = new DynamoDBStreamsClient(clientOptions);
  const dynamo = new DynamoDBClient(clientOptions);
  const idleMs = options.idleMs ?? 100;
  let stopped = false;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Runs `attempt` until it succeeds or the poller stops: DynamoDB Local down is waited out, as Lambda does. */
  async function retrying<T>(attempt: () => Promise<T>): Promise<T | undefined> {
    while (!stopped) {
      try {
        return await attempt();
      } catch {
        await sleep(idleMs * 10);
      }
    }
    return undefined;
  }

  async function streamArn(): Promise<string | undefined> {
    while (!stopped) {
      const arn = await retrying(async () => {
        const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: options.tableName }));
        return Table?.LatestStreamArn;
      });
      if (arn) return arn;
      await sleep(idleMs);
    }
    return undefined;
  }

  /**
   * One shard, from its start to its end (a closed shard) or until stopped. After a batch the consumer
   * finished, reading resumes after its last record; after a failure (reported, thrown, or DynamoDB Local
   * unreachable) it resumes at the first record not known to be done.
   */
  async function pollShard(arn: string, shardId: string): Promise<void> {
    let done: string | undefined;
    const iteratorFrom = (sequence: string | undefined, type: 'AT' | 'AFTER') =>
      retrying(
        async () =>
          (
            await streams.send(
              new GetShardIteratorCommand({
                StreamArn: arn,
                ShardId: shardId,
                ...(sequence
                  ? { ShardIteratorType: `${type}_SEQUENCE_NUMBER`, SequenceNumber: sequence }
                  : { ShardIteratorType: 'TRIM_HORIZON' }),
              }),
            )
          ).ShardIterator,
      );
    let iterator = await iteratorFrom(undefined, 'AFTER');
    while (!stopped && iterator) {
      let read: { Records?: StreamRecord[]; NextShardIterator?: string };
      try {
        read = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: BATCH_SIZE }));
      } catch {
        await sleep(idleMs * 10);
        iterator = await iteratorFrom(done, 'AFTER');
        continue;
      }
      const records = read.Records ?? [];
      const passed = records.filter(consumed).map(asLambdaRecord);
      const failed =
        passed.length === 0
          ? undefined
          : await options.consume({ Records: passed }).then(
              (result) => result.batchItemFailures[0]?.itemIdentifier,
              () => passed[0]?.dynamodb?.SequenceNumber,
            );
      if (failed) {
        await sleep(idleMs);
        iterator = await iteratorFrom(failed, 'AT');
        continue;
      }
      done = records.at(-1)?.dynamodb?.SequenceNumber ?? done;
      iterator = read.NextShardIterator;
      if (records.length === 0) await sleep(idleMs);
    }
  }

  const running = (async () => {
    const arn = await streamArn();
    const polled = new Map<string, Promise<void>>();
    while (!stopped && arn) {
      const shards = await retrying(
        async () =>
          (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription?.Shards,
      );
      for (const shard of shards ?? []) {
        const id = shard.ShardId as string;
        if (!polled.has(id)) polled.set(id, pollShard(arn, id));
      }
      await sleep(idleMs * 10);
    }
    await Promise.all(polled.values());
  })();

  return {
    async stop() {
      stopped = true;
      await running;
      streams.destroy();
      dynamo.destroy();
    },
  };
}

function consumed(record: StreamRecord): boolean {
  const sk = record.dynamodb?.Keys?.sk;
  const value = sk !== undefined && 'S' in sk ? sk.S : undefined;
  return (
    typeof value === 'string' && streamConsumer.sortKeyPrefixes.some((prefix) => value.startsWith(prefix))
  );
}

/** The SDK's record in the shape Lambda delivers: the creation time in epoch seconds. */
function asLambdaRecord(record: StreamRecord): DynamoDBRecord {
  const created = record.dynamodb?.ApproximateCreationDateTime;
  return {
    ...record,
    dynamodb: {
      ...record.dynamodb,
      ApproximateCreationDateTime: created ? Math.floor(created.getTime() / 1000) : undefined,
    },
  } as unknown as DynamoDBRecord;
}
