import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { ChangeEvent } from '../../shared/domain/event-shape.ts';
import { publishEvents } from '../../shared/events/bus.ts';
import { consumeRecords } from '../../shared/events/stream-consumer.ts';
import { fanOut } from '../../shared/webhooks/fan-out.ts';
import { startOrLeaveDue } from '../../shared/webhooks/start-deliveries.ts';

/**
 * Each batch's events go on the bus and, independently, to the webhook endpoints subscribed to them: one
 * deliverer invocation per endpoint (a team's small batches of first tries: one per team), nothing written
 * per delivery here; an invocation Lambda refuses is left due for the sweeper rather than failing the batch
 * (shared/webhooks/start-deliveries.ts).
 */
async function publish(events: readonly ChangeEvent[]): Promise<void> {
  await Promise.all([publishEvents(events), fanOut(events).then((requests) => startOrLeaveDue(requests))]);
}

/** The table's stream (brand, contact field and webhook endpoint items pass the mapping's filter) → events. */
export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  consumeRecords(event.Records, publish);
