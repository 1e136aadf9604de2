import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { parse } from 'node-html-parser';

/** The floor of a function that reads web pages (auto-configure): the DynamoDB floor plus the HTML parser. */
const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { body?: string }) => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: 'FLOOR', sk: 'FLOOR' } }),
  );
  const title = parse(event.body ?? '').querySelector('title')?.text ?? null;
  return { statusCode: 200, body: JSON.stringify([Item ?? null, title]) };
};
