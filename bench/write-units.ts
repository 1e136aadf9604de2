import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { dynamo } from '../shared/data/dynamo.ts';

/**
 * Write units counted at the wire (the bench's webhook section, and the test that holds the success path
 * to 3, test/shared/webhooks/write-units.services.test.ts): every write this process sends asks DynamoDB for its consumed capacity
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
/** Which writes count: by the key of the item written (every write when unset). */
let counted: ((key: { pk?: unknown; sk?: unknown }) => boolean) | undefined;

type WrittenKey = { pk?: unknown; sk?: unknown };
type BatchRequest = { PutRequest?: { Item: WrittenKey }; DeleteRequest?: { Key: WrittenKey } };

/** The key of the (first) item a write names. */
function keyOf(input: Record<string, unknown>): WrittenKey {
  if (input.Item) return input.Item as WrittenKey;
  if (input.Key) return input.Key as WrittenKey;
  const [first] = Object.values((input.RequestItems ?? {}) as Record<string, BatchRequest[]>)[0] ?? [];
  return first?.PutRequest?.Item ?? first?.DeleteRequest?.Key ?? {};
}

interface Capacity {
  CapacityUnits?: number;
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

/** Adds the counting to the process's client, once, on first use (after the entry point configured it). */
let installed = false;
function install(): void {
  if (installed) return;
  installed = true;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      if (!tally || !WRITES.test(context.commandName ?? '')) return next(args);
      const counting = tally;
      const input = args.input as Record<string, unknown>;
      if (counted && !counted(keyOf(input))) return next(args);
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
}

/**
 * The writes `action` sends from this process, tallied (one tally at a time); `only` counts the writes
 * of the items whose key it accepts (the bench: webhook deliveries' items, not the API's own writes).
 */
export async function writeUnits<T>(
  action: () => Promise<T>,
  only?: (key: { pk?: unknown; sk?: unknown }) => boolean,
): Promise<{ result: T; tally: WriteTally }> {
  if (tally) throw new Error('write units are already being counted');
  install();
  const counting: WriteTally = { units: 0, indexUnits: 0, writes: 0, refused: 0 };
  tally = counting;
  counted = only;
  try {
    return { result: await action(), tally: counting };
  } finally {
    tally = undefined;
    counted = undefined;
  }
}
