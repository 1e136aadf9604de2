import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The cold start floor: the least a function of this API can be. It creates a DynamoDB DocumentClient at
 * load and reads one item per invocation; bundled exactly as the API's functions are (bench/bundles.ts).
 */
const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async () => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: 'FLOOR', sk: 'FLOOR' } }),
  );
  return { statusCode: 200, body: JSON.stringify(Item ?? null) };
};
