import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import { scanPages, writtenIf } from '../../../shared/data/items.ts';
import {
  ATTEMPT_PREFIX,
  DELIVERY_PREFIX,
  endpointPk,
  LEGACY_ENDPOINT_ITEM,
} from '../../../shared/data/keys.ts';

/**
 * Moves the deliveries and attempts of tables made before they had their endpoint's partition key (under
 * the team's, `DELIVERY#<endpoint>#<position>`) to it, due index keys and all, so pending retries stay
 * due. Each item is put at its new key only if none is there (one the deliverer wrote since is newer and
 * wins), then deleted at the old. Safe to run again and while deliveries run. Reads the whole table once
 * (a Scan): an operator's command (`npm run admin -- migrate`). How many it moved.
 */
export async function migrateDeliveryKeys(): Promise<{ deliveries: number; attempts: number }> {
  const moved = { deliveries: 0, attempts: 0 };
  const pages = scanPages({
    TableName: tableName(),
    FilterExpression: 'begins_with(pk, :team) AND (begins_with(sk, :delivery) OR begins_with(sk, :attempt))',
    ExpressionAttributeValues: {
      ':team': 'TEAM#',
      ':delivery': DELIVERY_PREFIX,
      ':attempt': ATTEMPT_PREFIX,
    },
  });
  for await (const page of pages) {
    for (const item of page.items) {
      const legacy = LEGACY_ENDPOINT_ITEM.exec(String(item.sk));
      if (!legacy) continue;
      const [, prefix, endpoint, rest] = legacy;
      const teamId = Number(String(item.pk).slice('TEAM#'.length));
      const key = { pk: endpointPk(teamId, Number(endpoint)), sk: `${prefix}${rest}` };
      await writtenIf(
        dynamo().send(
          new PutCommand({
            TableName: tableName(),
            Item: { ...item, ...key },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      );
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk } }));
      moved[prefix === DELIVERY_PREFIX ? 'deliveries' : 'attempts']++;
    }
  }
  return moved;
}
