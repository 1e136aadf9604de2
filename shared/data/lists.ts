import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { getDefaultBrandId } from './brands.ts';
import { dynamo, nowIso, tableName } from './dynamo.ts';
import { nextId } from './ids.ts';
import { brandKey, defaultBrandKey, listKey } from './keys.ts';
import { beforeRetry } from './transactions.ts';

/** Email, SMS and push lists. A list may name a brand; a new list takes the team's default brand. */
export type ListKind = 'email' | 'sms' | 'push';

export interface List {
  id: number;
  team_id: number;
  kind: ListKind;
  name: string;
  brand_id: number | null;
  created_at: string;
  updated_at: string;
}

/**
 * Creates a list linked to the default brand. The transaction re-checks that the brand is still the default
 * (and counts the link on it), so a list can never point at a brand that a concurrent delete removed.
 */
export async function createList(teamId: number, kind: ListKind, name: string): Promise<List> {
  const id = await nextId('list');
  for (let attempt = 1; ; attempt++) {
    const brandId = (await getDefaultBrandId(teamId)) ?? null;
    const now = nowIso();
    const list: List = {
      id,
      team_id: teamId,
      kind,
      name,
      brand_id: brandId,
      created_at: now,
      updated_at: now,
    };
    const linkCheck =
      brandId === null
        ? {
            ConditionCheck: {
              TableName: tableName(),
              Key: defaultBrandKey(teamId),
              ConditionExpression: 'attribute_not_exists(brand_id)',
            },
          }
        : {
            Update: {
              TableName: tableName(),
              Key: brandKey(teamId, brandId),
              UpdateExpression: 'ADD linked_lists :one',
              ConditionExpression: 'attribute_exists(pk) AND is_default = :true',
              ExpressionAttributeValues: { ':one': 1, ':true': true },
            },
          };
    try {
      await dynamo().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName(),
                Item: { ...listKey(teamId, id), ...list },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            linkCheck,
          ],
        }),
      );
      return list;
    } catch (error) {
      // The default changed between the read and the write: read it again.
      if (!(error instanceof TransactionCanceledException)) throw error;
    }
    await beforeRetry(attempt, 'default brand');
  }
}

export async function getList(teamId: number, listId: number): Promise<List | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: listKey(teamId, listId), ConsistentRead: true }),
  );
  return (
    Item && {
      id: Item.id,
      team_id: Item.team_id,
      kind: Item.kind,
      name: Item.name,
      brand_id: Item.brand_id ?? null,
      created_at: Item.created_at,
      updated_at: Item.updated_at,
    }
  );
}
