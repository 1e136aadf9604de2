import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { pointedId, readPointer } from './brand-default.ts';
import { dynamo, nowIso, tableName } from './dynamo.ts';
import { nextId } from './ids.ts';
import { brandKey, defaultBrandKey, listKey } from './keys.ts';
import { beforeRetry, LabelledTransaction } from './transactions.ts';

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
 * Creates a list linked to the default brand. The transaction re-checks that the pointer still names the
 * brand and counts the link on the brand, so a list can never point at a brand that a concurrent delete
 * removed; a pointer naming a deleted brand is "no default".
 */
export async function createList(teamId: number, kind: ListKind, name: string): Promise<List> {
  const [id, pointedAtStart] = await Promise.all([nextId('list'), readPointer(teamId)]);
  let pointed = pointedAtStart;
  let stale: number | undefined; // a pointed brand found deleted
  for (let attempt = 1; ; attempt++) {
    const brandId = pointed === stale ? null : (pointed ?? null);
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
    const transaction = new LabelledTransaction()
      .add('list', {
        Put: {
          TableName: tableName(),
          Item: { ...listKey(teamId, id), ...list },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      })
      .add('pointer', {
        ConditionCheck: {
          TableName: tableName(),
          Key: defaultBrandKey(teamId),
          ConditionExpression:
            pointed === undefined ? 'attribute_not_exists(brand_id)' : 'brand_id = :pointed',
          ...(pointed !== undefined && { ExpressionAttributeValues: { ':pointed': pointed } }),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      });
    if (brandId !== null) {
      transaction.add('brand', {
        Update: {
          TableName: tableName(),
          Key: brandKey(teamId, brandId),
          UpdateExpression: 'ADD linked_lists :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1 },
        },
      });
    }
    const cancellation = await transaction.commit();
    if (!cancellation) return list;
    // The default moved since it was read (the refusal returns the pointer), or its brand is gone.
    const moved = cancellation.conditionFailed('pointer');
    if (moved) pointed = pointedId(cancellation.oldItem('pointer'));
    if (cancellation.conditionFailed('brand')) stale = brandId ?? undefined;
    await beforeRetry(attempt, 'default brand', moved || cancellation.conditionFailed('brand'));
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
