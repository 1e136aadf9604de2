import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { sdkClientOptions } from '../aws.ts';
import { config } from '../config.ts';
import type { ChangeEvent } from '../domain/event-shape.ts';
import { withLargestOmitted } from './event-size.ts';

/** What the platform's rules match on: `{"source": ["team-messaging-api"], "detail-type": ["brand.updated"]}`. */
export const EVENT_SOURCE = 'team-messaging-api';
/**
 * EventBridge's caps on one PutEvents: 10 entries, and 256 KB of entries together, each counted as its
 * Time (14 bytes), Source, DetailType and Detail in UTF-8 (the local stand-in enforces both).
 */
export const PUT_EVENTS = { entries: 10, bytes: 256 * 1024 } as const;
export interface BusEntry {
  Source: string;
  DetailType: string;
  Detail: string;
}
export const entryBytes = (entry: BusEntry): number =>
  14 +
  Buffer.byteLength(entry.Source) +
  Buffer.byteLength(entry.DetailType) +
  Buffer.byteLength(entry.Detail);

const entryOf = (event: ChangeEvent): BusEntry => ({
  Source: EVENT_SOURCE,
  DetailType: event.type,
  Detail: JSON.stringify(event),
});

/**
 * The entry of an event: the event whole when it fits one PutEvents, else without its largest former values
 * (or, a pick list's largest options being over it alone, its object: named in `data.omitted`, and whole in
 * the log, `GET /api/v1/events/{id}`).
 */
export const busEntryOf = (event: ChangeEvent): BusEntry =>
  entryOf(withLargestOmitted(event, (fitted) => entryBytes(entryOf(fitted)) <= PUT_EVENTS.bytes, 'bus'));

let client: EventBridgeClient | undefined;
/** The one EventBridge client of the process (timeouts and retries: aws.ts); locally the stand-in's endpoint. */
const eventBridge = (): EventBridgeClient =>
  (client ??= new EventBridgeClient(sdkClientOptions(config.eventBridgeEndpoint(), 'local')));

/**
 * Puts each event on the stack's bus, detail-type its type, detail the event as the events API shows it.
 * A call with a failed entry throws, so the stream record is retried: the bus may see an event twice
 * (the same id), never miss one.
 */
export async function publishEvents(events: readonly ChangeEvent[]): Promise<void> {
  // Side by side: EventBridge keeps no order between entries anyway (subscribers order by
  // resource_version), and a batch of 100 records is ten calls.
  await Promise.all(
    batchesOf(events).map(async (batch) => {
      const { FailedEntryCount, Entries } = await eventBridge().send(
        new PutEventsCommand({
          Entries: batch.map(({ event, entry }) => ({
            EventBusName: config.eventBusName(),
            ...entry,
            Time: new Date(event.created_at),
          })),
        }),
      );
      if (FailedEntryCount) {
        const failed = Entries?.find((entry) => entry.ErrorCode);
        throw new Error(
          `EventBridge refused ${FailedEntryCount} event(s): ${failed?.ErrorCode} ${failed?.ErrorMessage}`,
        );
      }
    }),
  );
}

/** The events in order, in batches within PutEvents' caps (each entry fits one alone: busEntryOf). */
function batchesOf(events: readonly ChangeEvent[]): Array<Array<{ event: ChangeEvent; entry: BusEntry }>> {
  const batches: Array<Array<{ event: ChangeEvent; entry: BusEntry }>> = [];
  let batch: Array<{ event: ChangeEvent; entry: BusEntry }> = [];
  let bytes = 0;
  for (const event of events) {
    const entry = busEntryOf(event);
    const size = entryBytes(entry);
    if (batch.length === PUT_EVENTS.entries || (batch.length > 0 && bytes + size > PUT_EVENTS.bytes)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push({ event, entry });
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
