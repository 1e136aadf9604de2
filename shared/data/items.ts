import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ForbiddenError, NotFoundError } from '../http/errors.ts';
import { dynamo, ID_INDEX, tableName } from './dynamo.ts';

/** Attributes that only address an item; they never reach a response. */
export const KEY_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk'] as const;

/**
 * Called after an id missed in the caller's own partition: 403 when the id belongs to another team,
 * 404 when it belongs to none. One Query on the id index.
 */
export async function throwMissing(kind: string, model: string, id: number): Promise<never> {
  const { Count } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: ID_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': `${kind}#${id}` },
      Select: 'COUNT',
      Limit: 1,
    }),
  );
  throw (Count ?? 0) > 0 ? new ForbiddenError() : new NotFoundError(model, id);
}

/** Every item of one Query, following pagination. */
export async function queryAll(
  input: ConstructorParameters<typeof QueryCommand>[0],
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** The items of the whole table that `sk` names, page by page: for operator commands (a Scan reads it all). */
export async function* scanSortKey(sk: string, projection?: string): AsyncGenerator<Record<string, unknown>> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'sk = :sk',
        ExpressionAttributeValues: { ':sk': sk },
        ...(projection && { ProjectionExpression: projection }),
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    yield* page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}
