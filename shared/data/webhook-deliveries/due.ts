import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../config.ts';
import { SENDING } from '../../domain/delivery-states.ts';
import { dynamo, tableName } from '../dynamo.ts';
import { queryPages, writtenIf } from '../items.ts';
import { TABLE_SCHEMA } from '../table-schema.ts';
import { keyOf } from './item-keys.ts';

/**
 * The due index: only a delivery that is due later (a retry, a restart, one left for the sweep) is in it,
 * under one of DUE_SHARDS partitions chosen by hashing it (no hot partition however many are due), sorted
 * by due time: the sweeper reads each shard up to now, in pages.
 */
const { dueIndex } = TABLE_SCHEMA;

/** The attribute names of an update that moves a delivery into or out of the due index. */
export const STATUS_AND_DUE_NAMES = {
  '#status': 'status',
  '#duePk': dueIndex.partitionKey,
  '#dueSk': dueIndex.sortKey,
};

/**
 * The due index's shards: DUE_SHARDS in AWS, sized for every delivery failing at 1,000,000 a minute for
 * the schedule's 3 days: 300,000 index writes a second at steady state, 586 a shard, under a partition's
 * 1,000 (docs/webhooks.md, "Scale"). Locally fewer (WEBHOOK_DUE_SHARDS): `npm start` sweeps every second,
 * and 512 Queries a second would keep DynamoDB Local busy for nothing.
 */
export const DUE_SHARDS = 512;
export const dueShards = (): number => config.webhookDueShards() ?? DUE_SHARDS;

/** A delivery as the sweeper finds it in the index: enough to start it. */
export interface DueDelivery {
  teamId: number;
  endpointId: number;
  eventId: string;
  dueAt: number;
}

const MS_DIGITS = 13;
const padMs = (ms: number) => String(Math.max(0, Math.floor(ms))).padStart(MS_DIGITS, '0');

/** Its shard: a hash of the delivery, so one endpoint's backlog spreads over every shard. */
export function shardOf(endpointId: number, eventId: string): number {
  return createHash('sha256').update(`${endpointId}#${eventId}`).digest().readUInt32BE(0) % dueShards();
}

/** The index keys of a delivery due at `dueAt` (its sort key names it, so the index is keys only). */
export function dueKeys(teamId: number, endpointId: number, eventId: string, dueAt: number) {
  return {
    [dueIndex.partitionKey]: `DUE#${shardOf(endpointId, eventId)}`,
    [dueIndex.sortKey]: `${padMs(dueAt)}#${teamId}#${endpointId}#${eventId}`,
  };
}

/** A claimed delivery put in the index at its lease's end, while the claim is still the one seen. */
export async function dueAtLeaseEnd(
  teamId: number,
  endpointId: number,
  eventId: string,
  claimed: Record<string, unknown>,
): Promise<void> {
  const due = dueKeys(teamId, endpointId, eventId, Number(claimed.lease_until ?? 0));
  await writtenIf(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(teamId, endpointId, eventId),
        UpdateExpression: 'SET #duePk = :duePk, #dueSk = :dueSk',
        ConditionExpression: 'claim = :claim AND #status = :sending',
        ExpressionAttributeNames: STATUS_AND_DUE_NAMES,
        ExpressionAttributeValues: {
          ':claim': claimed.claim,
          ':sending': SENDING,
          ':duePk': due[dueIndex.partitionKey],
          ':dueSk': due[dueIndex.sortKey],
        },
      }),
    ),
  );
}

/**
 * The deliveries due by `nowMs` in one shard, oldest first, a page of at most `pageSize` at a time: the
 * sweeper stops reading when it has taken enough.
 */
export async function* dueDeliveryPages(
  shard: number,
  nowMs: number,
  pageSize: number,
): AsyncGenerator<DueDelivery[]> {
  const pages = queryPages(
    {
      TableName: tableName(),
      IndexName: dueIndex.name,
      KeyConditionExpression: '#pk = :pk AND #sk < :upTo',
      ExpressionAttributeNames: { '#pk': dueIndex.partitionKey, '#sk': dueIndex.sortKey },
      ExpressionAttributeValues: { ':pk': `DUE#${shard}`, ':upTo': padMs(nowMs + 1) },
    },
    { limit: pageSize },
  );
  for await (const page of pages) {
    yield page.items.map((item) => {
      const [due, team, endpoint, eventId] = String(item[dueIndex.sortKey]).split('#');
      return {
        dueAt: Number(due),
        teamId: Number(team),
        endpointId: Number(endpoint),
        eventId: eventId ?? '',
      };
    });
  }
}
