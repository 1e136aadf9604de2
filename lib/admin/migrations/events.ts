import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import { eventExpired } from '../../../shared/data/events.ts';
import { queryPages, scanSortKey } from '../../../shared/data/items.ts';
import { EVENT_PREFIX, eventsPk, teamPk } from '../../../shared/data/keys.ts';

/**
 * Moves each team's events from where earlier versions kept them (under `TEAM#<team>`) to its log partition,
 * each in a transaction of its own (the copy, and the old item's delete), so that a run stopped anywhere
 * leaves every event in one place or the other, and the next run goes on; events expired meanwhile are only
 * deleted. Returns how many it moved. Reads every team (a Scan) and its old events (a Query each): an
 * operator's command (`npm run admin -- migrate`).
 */
export async function moveEventLogs(): Promise<number> {
  let moved = 0;
  for await (const team of scanSortKey('TEAM', 'id')) {
    const teamId = team.id as number;
    const pages = queryPages({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': teamPk(teamId), ':prefix': EVENT_PREFIX },
      ConsistentRead: true,
    });
    for await (const page of pages) {
      for (const item of page.items) {
        const old = { pk: item.pk, sk: item.sk };
        const remove = { Delete: { TableName: tableName(), Key: old } };
        await dynamo().send(
          new TransactWriteCommand({
            TransactItems: eventExpired(item)
              ? [remove]
              : [{ Put: { TableName: tableName(), Item: { ...item, pk: eventsPk(teamId) } } }, remove],
          }),
        );
        if (!eventExpired(item)) moved++;
      }
    }
  }
  return moved;
}
