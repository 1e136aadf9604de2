import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { handler } from '../../functions/events/stream-consumer.ts';
import { startStreamPoller } from '../../lib/local/stream-poller.ts';
import { configure } from '../../shared/config.ts';

/**
 * A consumer in a process of its own, for the crash test: the stream poller with the deployed handler,
 * given one record per invocation and saying so before each (`record <n>`), so that a test can kill it
 * between two records or in the middle of one.
 */
configure(process.env);
let records = 0;
startStreamPoller({
  endpoint: process.env.DYNAMODB_ENDPOINT as string,
  tableName: process.env.TABLE_NAME as string,
  consume: async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    for (const record of event.Records) {
      console.log(`record ${++records}`);
      const result = await handler({ Records: [record] });
      if (result.batchItemFailures.length > 0) return result;
    }
    return { batchItemFailures: [] };
  },
});
