import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The floor of a function that reads and writes the file libraries (brand images, uploads): the DynamoDB
 * floor plus an S3 client, which the design fixes for them.
 */
const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const s3 = new S3Client({});

export const handler = async () => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: 'FLOOR', sk: 'FLOOR' } }),
  );
  const head = await s3.send(new HeadObjectCommand({ Bucket: process.env.BUCKET, Key: 'floor' }));
  return { statusCode: 200, body: JSON.stringify([Item ?? null, head.ContentType]) };
};
