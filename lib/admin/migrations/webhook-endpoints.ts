import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import { queryAll, scanPages, scanSortKey, writtenIf } from '../../../shared/data/items.ts';
import {
  teamPk,
  WEBHOOK_PREFIX,
  WEBHOOK_SENDERS_SK,
  webhookEndpointKey,
  webhooksPk,
} from '../../../shared/data/keys.ts';
import { beforeRetry } from '../../../shared/data/transactions.ts';
import {
  findWebhookEndpoint,
  sealedSecretFor,
  webhookEndpointOfItem,
} from '../../../shared/data/webhook-endpoints.ts';

/**
 * `admin migrate`'s one-off migrations of webhook endpoints: each reads the whole table (a Scan), so it is
 * an operator's command, never a request's, and each is safe to run again and while deliveries run.
 */

/**
 * Every endpoint's secrets kept in clear (written before they were encrypted) sealed, each endpoint
 * rewritten conditioned on its version as any change is. A Scan; returns the endpoints sealed.
 */
export async function sealPlaintextSecrets(): Promise<number> {
  let sealed = 0;
  const pages = scanPages({
    TableName: tableName(),
    // At most two secrets an endpoint (the current and the one it replaced).
    FilterExpression: 'attribute_exists(secrets[0].secret) OR attribute_exists(secrets[1].secret)',
  });
  for await (const page of pages) {
    for (const item of page.items) {
      if (await sealSecretsOf(item)) sealed++;
    }
  }
  return sealed;
}

/**
 * One endpoint's secrets sealed in place: the same secrets, so neither its version nor updated_at changes
 * (an If-Match the team holds stays good); conditioned on the version read, read again on a change.
 */
async function sealSecretsOf(item: Record<string, unknown>): Promise<boolean> {
  const { team_id: teamId, id } = webhookEndpointOfItem(item);
  for (let attempt = 1; ; attempt++) {
    const found = await findWebhookEndpoint(teamId, id);
    const endpoint = found?.endpoint;
    if (!found || !endpoint || endpoint.secrets.every((stored) => 'sealed' in stored)) return false;
    const secrets = await Promise.all(endpoint.secrets.map((stored) => sealedSecretFor(stored, endpoint)));
    const written = await writtenIf(
      dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: webhookEndpointKey(teamId, id),
          UpdateExpression: 'SET secrets = :sealed',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':sealed': secrets, ':version': found.version },
        }),
      ),
    );
    if (written) return true;
    await beforeRetry(attempt, 'webhook endpoint');
  }
}

/**
 * Moves each team's endpoints from where earlier versions kept them (under `TEAM#<team>`) to the team's
 * webhooks partition, and the team's sender item with them: each is put at its new key only if none is
 * there (one written since is newer and wins), then deleted at the old, so a run stopped anywhere is
 * finished by the next.
 * Until it has run, endpoints kept under `TEAM#` are not seen (nothing is delivered to them). Reads every
 * team (a Scan), its old endpoints (a Query) and sender item (a GetItem).
 * Returns how many it moved.
 */
export async function moveWebhookEndpoints(): Promise<number> {
  let moved = 0;
  for await (const team of scanSortKey('TEAM', 'id')) {
    const teamId = team.id as number;
    // The endpoints, and the sender item (its leases run out by themselves, but it also keeps each
    // endpoint's count of attempts, which pruning the attempts list goes by).
    const [endpoints, senders] = await Promise.all([
      queryAll({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': teamPk(teamId), ':prefix': WEBHOOK_PREFIX },
        ConsistentRead: true,
      }),
      dynamo().send(
        new GetCommand({
          TableName: tableName(),
          Key: { pk: teamPk(teamId), sk: WEBHOOK_SENDERS_SK },
          ConsistentRead: true,
        }),
      ),
    ]);
    for (const item of [...endpoints, ...(senders.Item ? [senders.Item] : [])]) {
      const copied = await writtenIf(
        dynamo().send(
          new PutCommand({
            TableName: tableName(),
            Item: { ...item, pk: webhooksPk(teamId) },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      );
      // One already there was copied by a run cut short, or written since: it wins.
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk } }));
      if (copied && item.sk !== WEBHOOK_SENDERS_SK) moved++;
    }
  }
  return moved;
}
