import { randomUUID } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { PUT_EVENTS } from '../../shared/events/bus.ts';

/**
 * EventBridge's PutEvents, locally: the consumer's SDK client talks to it over HTTP (EVENTBRIDGE_ENDPOINT)
 * exactly as it talks to the bus in AWS. Every entry is kept in order, appended to `file` when given (one
 * JSON line each: what a rule on the bus would see), and listed by `GET /entries` for tests and people.
 */
export interface ReceivedEntry {
  EventBusName?: string;
  Source?: string;
  DetailType?: string;
  Detail?: string;
  Time?: number | string;
}

export function createEventBus(file?: string): Server {
  const entries: ReceivedEntry[] = [];
  return createServer((request, response) => {
    const reply = (status: number, body: unknown, type = 'application/json') => {
      response.writeHead(status, { 'Content-Type': type });
      response.end(JSON.stringify(body));
    };
    if (request.method === 'GET' && request.url === '/entries') return reply(200, entries);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      if (request.headers['x-amz-target'] !== 'AWSEvents.PutEvents') {
        return reply(400, { __type: 'UnknownOperationException', message: 'only PutEvents is served here' });
      }
      const put = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Entries?: ReceivedEntry[] };
      const given = put.Entries ?? [];
      // EventBridge's own caps, refused as it refuses them (shared/events/bus.ts keeps within them).
      const bytes = given.reduce(
        (sum, entry) =>
          sum +
          14 +
          [entry.Source, entry.DetailType, entry.Detail].reduce(
            (n, text) => n + Buffer.byteLength(text ?? ''),
            0,
          ),
        0,
      );
      if (given.length > PUT_EVENTS.entries || bytes > PUT_EVENTS.bytes) {
        return reply(400, {
          __type: 'ValidationException',
          message: `${given.length} entries of ${bytes} bytes: over PutEvents' ${PUT_EVENTS.entries} entries or ${PUT_EVENTS.bytes} bytes.`,
        });
      }
      entries.push(...given);
      if (file && given.length > 0)
        await appendFile(file, given.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
      reply(
        200,
        { FailedEntryCount: 0, Entries: given.map(() => ({ EventId: randomUUID() })) },
        'application/x-amz-json-1.1',
      );
    });
  });
}
