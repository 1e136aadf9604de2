import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import { nextId } from '../../../shared/data/ids.ts';
import { scanSortKey, writtenIf } from '../../../shared/data/items.ts';
import { TOKEN_SK, teamTokenIndexKeys, teamTokensIndexPk } from '../../../shared/data/keys.ts';

/**
 * `admin migrate`: gives each token made before tokens had ids an id and its place in the team's listing
 * (a Scan); returns how many it numbered. Run again, it numbers none. An operator's command
 * (`npm run admin -- migrate`).
 */
export async function numberTokens(): Promise<number> {
  let numbered = 0;
  for await (const token of scanSortKey(TOKEN_SK, 'pk, sk, id, team_id')) {
    if (token.id !== undefined || typeof token.team_id !== 'number') continue;
    const id = await nextId('token');
    const written = await writtenIf(
      dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: { pk: token.pk, sk: token.sk },
          UpdateExpression: 'SET id = :id, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(id)',
          ExpressionAttributeValues: {
            ':id': id,
            ':gsi1pk': teamTokensIndexPk(token.team_id),
            ':gsi1sk': teamTokenIndexKeys(token.team_id, id).gsi1sk,
          },
        }),
      ),
    );
    if (written) numbered++;
  }
  return numbered;
}
