import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { dynamo, tableName } from './dynamo.ts';
import { type Sequence, sequenceKey } from './keys.ts';

/**
 * Global per-entity id sequences (ids are unique across teams, which is what lets an id route tell
 * "another team's" from "none"). Each process reserves a block of ids with one atomic counter update, so
 * a create costs no extra round trip until its block runs out (the sequences: keys.ts).
 */

interface Block {
  next: number;
  last: number;
}

const blocks = new Map<Sequence, Block>();
const refills = new Map<Sequence, Promise<Block>>();

export async function nextId(sequence: Sequence): Promise<number> {
  for (;;) {
    const block = blocks.get(sequence);
    if (block && block.next <= block.last) return block.next++;
    // Concurrent callers in one process share a single refill.
    let refill = refills.get(sequence);
    if (!refill) {
      refill = reserveBlock(sequence).finally(() => refills.delete(sequence));
      refills.set(sequence, refill);
    }
    const fresh = await refill;
    const current = blocks.get(sequence);
    if (!current || current.next > current.last) blocks.set(sequence, fresh);
  }
}

async function reserveBlock(sequence: Sequence): Promise<Block> {
  const size = config.idBlockSize();
  const { Attributes } = await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: sequenceKey(sequence),
      UpdateExpression: 'ADD #last :size',
      ExpressionAttributeNames: { '#last': 'last' },
      ExpressionAttributeValues: { ':size': size },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const last = Number(Attributes?.last);
  return { next: last - size + 1, last };
}
