import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { pointedId } from '../data/brand-default.ts';
import { dynamo, tableName } from '../data/dynamo.ts';
import { putEvents } from '../data/events.ts';
import { defaultBrandKey, tombstoneKey } from '../data/keys.ts';
import type { ChangeEvent } from '../domain/event-shape.ts';
import { imageReferencesOf, settleImageReferences } from '../files/orphaned-images.ts';
import { describeError, logger } from '../telemetry.ts';
import { type ChangeLookups, eventsOfChange, type ItemChange } from './change-events.ts';

/**
 * One batch of stream records, in order: their events are written to the log, then put on the bus. A
 * record that fails is reported with every record after it untouched (Lambda's per-record failure
 * reporting retries from it, so a resource's events keep their order), after the events of the records
 * before it are written and published. A record's events are the same on a retry, so a retry rewrites
 * them (the log holds each once) and the bus may get them again (same ids).
 */
export async function consumeRecords(
  records: readonly DynamoDBRecord[],
  publish: (events: readonly ChangeEvent[]) => Promise<void>,
): Promise<DynamoDBBatchResponse> {
  const lookups = batchLookups();
  const events: ChangeEvent[] = [];
  let failed: DynamoDBRecord | undefined;
  for (const record of records) {
    try {
      const change = itemChangeOf(record);
      events.push(...(await eventsOfChange(change, lookups)));
      // Public brand images the write stopped naming are marked for removal (files/orphaned-images.ts).
      const images = imageReferencesOf(change.oldImage, change.newImage);
      if (images) await settleImageReferences(images);
    } catch (error) {
      logger().error('stream record failed', {
        sequence_number: sequenceOf(record),
        ...describeError(error),
      });
      failed = record;
      break;
    }
  }
  try {
    await putEvents(events);
    await publish(events);
  } catch (error) {
    // Nothing of this batch is known to be done: retry it from its first record.
    logger().error('events not stored or published', { events: events.length, ...describeError(error) });
    failed = records[0];
  }
  return { batchItemFailures: failed ? [{ itemIdentifier: sequenceOf(failed) }] : [] };
}

/** A stream record as the events are made from it: the images unmarshalled, the time in seconds. */
export function itemChangeOf(record: DynamoDBRecord): ItemChange {
  const change = record.dynamodb ?? {};
  const image = (value: unknown) =>
    value === undefined ? undefined : unmarshall(value as Record<string, AttributeValue>);
  return {
    sequenceNumber: sequenceOf(record),
    approximateCreationSeconds: Math.floor(Number(change.ApproximateCreationDateTime ?? 0)),
    oldImage: image(change.OldImage),
    newImage: image(change.NewImage),
  };
}

const sequenceOf = (record: DynamoDBRecord): string => record.dynamodb?.SequenceNumber ?? '0';

/**
 * The tombstones of deletes (written with the delete and never changed), and the default pointer for brand
 * items older than DEFAULT_AT_VERSION (change-events.ts): read once per batch, strongly consistent.
 */
function batchLookups(): ChangeLookups {
  const reads = new Map<string, Promise<Record<string, unknown> | undefined>>();
  const read = (key: { pk: string; sk: string }) => {
    const id = `${key.pk} ${key.sk}`;
    let item = reads.get(id);
    if (!item) {
      item = dynamo()
        .send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))
        .then(({ Item }) => Item);
      reads.set(id, item);
    }
    return item;
  };
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    defaultBrandId: async (teamId) => pointedId(await read(defaultBrandKey(teamId))),
    deletion: async (teamId, sk) => {
      const tombstone = await read(tombstoneKey(teamId, sk));
      return tombstone && { requestId: text(tombstone.request_id), at: text(tombstone.deleted_at) };
    },
  };
}
