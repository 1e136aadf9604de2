import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { sdkClientOptions } from '../aws.ts';
import { config } from '../config.ts';
import type { ChangeEvent } from './event-shape.ts';

/** What the platform's rules match on: `{"source": ["team-messaging-api"], "detail-type": ["brand.updated"]}`. */
export const EVENT_SOURCE = 'team-messaging-api';
/** PutEvents' cap on entries per call. */
const PUT_BATCH = 10;

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
  for (let start = 0; start < events.length; start += PUT_BATCH) {
    const { FailedEntryCount, Entries } = await eventBridge().send(
      new PutEventsCommand({
        Entries: events.slice(start, start + PUT_BATCH).map((event) => ({
          EventBusName: config.eventBusName(),
          Source: EVENT_SOURCE,
          DetailType: event.type,
          Detail: JSON.stringify(event),
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
  }
}
