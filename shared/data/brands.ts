import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, padId, tableName, teamPk } from './dynamo.ts';

/**
 * Brands. The team's default brand is named by one pointer item per team (`DEFAULT_BRAND`); the brand it
 * names carries `is_default = true`, and every change of either happens in one transaction conditioned on
 * the pointer, so at most one brand is ever the default. `linked_lists` counts the lists that reference a
 * brand, so a delete can prove that it nulled every one of them.
 */
export const brandKey = (teamId: number, brandId: number) => ({
  pk: teamPk(teamId),
  sk: `BRAND#${padId(brandId)}`,
});
export const defaultBrandKey = (teamId: number) => ({ pk: teamPk(teamId), sk: 'DEFAULT_BRAND' });

/** The id of the team's default brand, if it has one (strongly consistent). */
export async function getDefaultBrandId(teamId: number): Promise<number | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: defaultBrandKey(teamId), ConsistentRead: true }),
  );
  return Item?.brand_id ?? undefined;
}
