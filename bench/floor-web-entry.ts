import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { parse } from 'node-html-parser';
import { getDomainWithoutSuffix } from 'tldts';

/**
 * The floor of a function that reads web pages (auto-configure): the DynamoDB floor plus the HTML parser and the
 * Public Suffix List (a site's registrable name).
 */
const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { body?: string }) => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: 'FLOOR', sk: 'FLOOR' } }),
  );
  const title = parse(event.body ?? '').querySelector('title')?.text ?? null;
  const site = getDomainWithoutSuffix('www.example.co.uk', { allowPrivateDomains: true });
  return { statusCode: 200, body: JSON.stringify([Item ?? null, title, site]) };
};
