import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The floor of a function that starts webhook deliveries (redeliver, recover): the DynamoDB floor plus a
 * Lambda client to invoke the deliverer asynchronously, which the design fixes for them.
 */
const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const lambda = new LambdaClient({});

export const handler = async () => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: 'FLOOR', sk: 'FLOOR' } }),
  );
  await lambda.send(new InvokeCommand({ FunctionName: 'floor', InvocationType: 'Event' }));
  return { statusCode: 202, body: JSON.stringify(Item ?? null) };
};
