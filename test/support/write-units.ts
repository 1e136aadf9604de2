import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { dynamo } from '../../shared/data/dynamo.ts';

/**
 * Write units counted at the wire: every write this process sends asks DynamoDB for its consumed capacity
 * (`ReturnConsumedCapacity: 'INDEXES'`, so index writes count too) and the answers are summed. A wrapper
 * around the real client, nothing mocked. A write refused by its condition answers no capacity but costs
 * at least one unit in AWS (Condition expressions, DynamoDB Developer Guide): counted apart, as `refused`.
 */
export interface WriteTally {
  /** Write units DynamoDB reported, table and indexes. */
  units: number;
  /** Of those, the indexes'. */
  indexUnits: number;
  /** Writes sent (each item of a batch or transaction counts). */
  writes: number;
  /** Conditional writes refused (nothing written; at least one unit each in AWS). */
  refused: number;
}

const WRITES = /^(Put|Update|Delete|BatchWrite|TransactWrite)(Item|Items)?Command$/;
let tally: WriteTally | undefined;

interface Capacity {
  CapacityUnits?: number;
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

dynamo().middlewareStack.add(
  (next, context) => async (args) => {
    if (!tally || !WRITES.test(context.commandName ?? '')) return next(args);
    const counting = tally;
    const input = args.input as Record<string, unknown>;
    input.ReturnConsumedCapacity = 'INDEXES';
    const items = Array.isArray(input.TransactItems)
      ? input.TransactItems.length
      : input.RequestItems
        ? Object.values(input.RequestItems as Record<string, unknown[]>).reduce(
            (sum, list) => sum + list.length,
            0,
          )
        : 1;
    counting.writes += items;
    try {
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
      for (const capacity of [consumed ?? []].flat()) {
        counting.units += capacity.CapacityUnits ?? 0;
        for (const index of Object.values(capacity.GlobalSecondaryIndexes ?? {})) {
          counting.indexUnits += index.CapacityUnits ?? 0;
        }
      }
      return result;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) counting.refused += 1;
      throw error;
    }
  },
  { step: 'initialize', name: 'countWriteUnits' },
);

/** The writes `action` sends from this process, tallied (one tally at a time). */
export async function writeUnits<T>(action: () => Promise<T>): Promise<{ result: T; tally: WriteTally }> {
  if (tally) throw new Error('write units are already being counted');
  const counting: WriteTally = { units: 0, indexUnits: 0, writes: 0, refused: 0 };
  tally = counting;
  try {
    return { result: await action(), tally: counting };
  } finally {
    tally = undefined;
  }
}
