import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { streamConsumer } from '../../shared/routes.ts';

/**
 * Lambda's event source mapping, locally: reads every shard of the table's stream, hands each batch to the
 * consumer as Lambda would (a DynamoDBStreamEvent), and on a reported failure reads the shard again from
 * the failed record. Only the items the route table's streamConsumer names are passed, as the mapping's
 * filter does in AWS. A record is handed over again only after a failure, as in AWS (at least once). With
 * a checkpoint file it keeps its place across restarts, as a mapping does: each shard resumes after the
 * last record a finished batch held, a closed shard read to its end is not read again, and a shard it
 * has no place in starts from its oldest record (TRIM_HORIZON).
 */
export interface StreamPollerOptions {
  endpoint: string;
  tableName: string;
  consume: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;
  /** Pause between reads of a shard with nothing new. */
  idleMs?: number;
  /**
   * Where the poller keeps its place (a JSON file, written after each finished batch); none: it starts
   * from each shard's oldest record on every start. One poller per file.
   */
  checkpointPath?: string;
}

/**
 * What the checkpoint file holds: the stream it is a place in (a table made again has a new stream, whose
 * shards it knows nothing of), and per shard the last record finished and whether the shard is read to its end.
 */
interface Checkpoint {
  stream_arn: string;
  shards: Record<string, { sequence_number?: string; finished?: boolean }>;
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
  const checkpoints = checkpointFile(options.checkpointPath);

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
   * One shard, from its checkpoint (or its start) to its end (a closed shard) or until stopped. After a
   * batch the consumer finished, reading resumes after its last record; after a failure (reported, thrown,
   * or DynamoDB Local unreachable) it resumes at the first record not known to be done. A place the stream
   * no longer holds (trimmed after 24 hours) resumes at the oldest record it does hold.
   */
  async function pollShard(arn: string, shardId: string): Promise<void> {
    const place = await checkpoints.place(arn, shardId);
    if (place.finished) return;
    let done = place.sequence_number;
    const iteratorFrom = (sequence: string | undefined, type: 'AT' | 'AFTER') =>
      retrying(async () => {
        const from = async (at: string | undefined) =>
          (
            await streams.send(
              new GetShardIteratorCommand({
                StreamArn: arn,
                ShardId: shardId,
                ...(at
                  ? { ShardIteratorType: `${type}_SEQUENCE_NUMBER`, SequenceNumber: at }
                  : { ShardIteratorType: 'TRIM_HORIZON' }),
              }),
            )
          ).ShardIterator;
        try {
          return await from(sequence);
        } catch (error) {
          if ((error as Error).name === 'TrimmedDataAccessException') return from(undefined);
          throw error;
        }
      });
    let iterator = await iteratorFrom(done, 'AFTER');
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
      const last = records.at(-1)?.dynamodb?.SequenceNumber;
      iterator = read.NextShardIterator;
      if (last !== undefined || !iterator) {
        done = last ?? done;
        // A closed shard ends with no next iterator: read to its end, it is not read again.
        await checkpoints.save(arn, shardId, { sequence_number: done, finished: !iterator });
      }
      if (records.length === 0) await sleep(idleMs);
    }
  }

  const running = (async () => {
    const arn = await streamArn();
    const polled = new Map<string, Promise<void>>();
    while (!stopped && arn) {
      const shards = await retrying(async () => {
        // DescribeStream answers up to 100 shards a call; a long-lived local table has more.
        const all = [];
        let after: string | undefined;
        do {
          const { StreamDescription } = await streams.send(
            new DescribeStreamCommand({ StreamArn: arn, ExclusiveStartShardId: after }),
          );
          all.push(...(StreamDescription?.Shards ?? []));
          after = StreamDescription?.LastEvaluatedShardId;
        } while (after);
        return all;
      });
      for (const shard of shards ?? []) {
        const id = shard.ShardId as string;
        if (!polled.has(id)) polled.set(id, pollShard(arn, id));
      }
      await sleep(idleMs * 10);
    }
    await Promise.all(polled.values());
    await checkpoints.flushed();
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

/**
 * The checkpoint file: read once, then written whole after each change, one write at a time, to a temporary
 * file renamed over it (a rename replaces a file atomically), so a poller killed mid-write leaves the
 * previous checkpoint, never half of one. Without a path, places are kept in memory only.
 */
function checkpointFile(path: string | undefined) {
  let loaded: Promise<Checkpoint> | undefined;
  let writes: Promise<void> = Promise.resolve();
  const load = (arn: string) => {
    loaded ??= (async () => {
      let stored: Checkpoint | undefined;
      try {
        if (path) stored = JSON.parse(await readFile(path, 'utf8')) as Checkpoint;
      } catch {
        stored = undefined; // none yet (or unreadable): every shard from its start, as before
      }
      return stored?.stream_arn === arn && stored.shards ? stored : { stream_arn: arn, shards: {} };
    })();
    return loaded;
  };
  return {
    async place(arn: string, shardId: string): Promise<Checkpoint['shards'][string]> {
      return (await load(arn)).shards[shardId] ?? {};
    },
    async save(arn: string, shardId: string, place: Checkpoint['shards'][string]): Promise<void> {
      const checkpoint = await load(arn);
      checkpoint.shards[shardId] = place;
      if (!path) return;
      const text = `${JSON.stringify(checkpoint)}\n`;
      writes = writes
        .then(async () => {
          const temporary = `${path}.${process.pid}.tmp`;
          await mkdir(dirname(path), { recursive: true });
          await writeFile(temporary, text);
          await rename(temporary, path);
        })
        .catch(() => {
          // Not written (a full disk): the next batch's write carries this place too; until then a
          // restart hands the batch over again, which at least once allows.
        });
      await writes;
    },
    flushed: () => writes,
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
