import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { sdkClientOptions } from '../aws.ts';
import { config } from '../config.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

let client: DynamoDBDocumentClient | undefined;

/** The one DynamoDB client of the process, made on first use (timeouts and retries: aws.ts). */
export const dynamo = (): DynamoDBDocumentClient =>
  (client ??= DynamoDBDocumentClient.from(
    new DynamoDBClient(sdkClientOptions(config.dynamodbEndpoint(), 'local')),
    {
      marshallOptions: {
        removeUndefinedValues: true,
        // A map from caller data may have a key named `constructor` (social_links), which hides the class
        // the marshaller looks for; such an object is still a plain map.
        convertClassInstanceToMap: true,
      },
    },
  ));

export const tableName = (): string => config.tableName();

export const nowIso = (): string => isoMicros(new Date());

/** ISO 8601 UTC with microseconds, as the API prints every timestamp. */
export function isoMicros(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export const ID_INDEX = TABLE_SCHEMA.idIndex.name;

/** One entry of a TransactWriteItems call. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
