import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { publishEvents } from '../../shared/events/bus.ts';
import { consumeRecords } from '../../shared/events/stream-consumer.ts';

/** The table's stream (only brand and contact field items pass the mapping's filter) → the event log and the bus. */
export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  consumeRecords(event.Records, publishEvents);
