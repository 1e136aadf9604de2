import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';

// placeholder: replaced by the real consumer on merge
export async function handler(_event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  return { batchItemFailures: [] };
}
