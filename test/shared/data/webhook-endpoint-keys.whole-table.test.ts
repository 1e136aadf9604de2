import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import {
  teamKey,
  teamPk,
  WEBHOOK_SENDERS_SK,
  webhookEndpointKey,
  webhookSendersKey,
  webhooksPk,
} from '../../../shared/data/keys.ts';
import { deliverToEndpoint } from '../../../shared/webhooks/deliverer.ts';
import { useApi } from '../../support/api.ts';
import { writeEvents } from '../../support/events.ts';
import { admin } from '../../support/processes.ts';
import { startReceiver, useReceivers } from '../../support/webhook-receiver.ts';

/**
 * Least privilege: a team's webhook endpoints and its sender leases have a partition of their own
 * (`WEBHOOKS#<team>`), off the team's, so the deliverer is granted them and none of the team's other items;
 * `admin migrate` moves the endpoints of older tables.
 */
const api = useApi();
const receivers = useReceivers();

const itemAt = async (key: { pk: string; sk: string }) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

describe('webhook endpoint keys', () => {
  it("a team's endpoints and sender leases are in its webhooks partition, not the team's", () => {
    expect(webhookEndpointKey(7, 3)).toEqual({ pk: 'WEBHOOKS#7', sk: 'WEBHOOK#000000000003' });
    expect(webhookSendersKey(7)).toEqual({ pk: 'WEBHOOKS#7', sk: 'SENDERS' });
    expect(webhooksPk(7)).not.toBe(teamPk(7));
  });

  it('`admin migrate` moves endpoints kept under the team partition (unseen until then) and the sender item with them', async () => {
    const caller = await api.caller();
    const at = await startReceiver();
    receivers.push(at);
    const created = await caller.client.post('/api/v1/webhook-endpoints', {
      url: at.url,
      event_types: ['brand.updated'],
    });
    expect(created.status).toBe(201);
    at.secrets = [created.body.secret];
    const endpointId = created.body.id as number;
    const current = webhookEndpointKey(caller.teamId, endpointId);
    const stored = await itemAt(current);
    expect(stored).toBeDefined();

    // The table as an earlier version left it: the endpoint under the team's partition, and a sender lease.
    const legacy = { pk: teamPk(caller.teamId), sk: current.sk };
    const legacySenders = { pk: teamPk(caller.teamId), sk: WEBHOOK_SENDERS_SK };
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: { ...stored, ...legacy } }));
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: current }));
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...legacySenders, [`attempts_${endpointId}`]: 7 },
      }),
    );
    expect((await caller.client.get('/api/v1/webhook-endpoints')).body).toEqual([]);

    const run = await admin(['migrate'], {});
    expect(run.code, run.stderr).toBe(0);
    // How many it counts is not asserted: another test file's migrate, at the same time, may move it first.
    expect(run.json.webhook_endpoints_moved).toEqual(expect.any(Number));
    expect(await itemAt(legacy)).toBeUndefined();
    expect(await itemAt(legacySenders)).toBeUndefined();
    // The sender item moved with them: its count of the endpoint's attempts (pruning goes by it) is kept.
    expect((await itemAt(webhookSendersKey(caller.teamId)))?.[`attempts_${endpointId}`]).toBe(7);
    const read = await caller.client.get(`/api/v1/webhook-endpoints/${endpointId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: endpointId, url: at.url, event_types: ['brand.updated'] });
    // Counted where it is now: the team still has one endpoint of its quota.
    expect((await itemAt(teamKey(caller.teamId)))?.webhook_endpoints_used).toBe(1);
    // Delivered to, signed with its secret.
    const [event] = await writeEvents(caller.teamId, 1);
    await deliverToEndpoint({
      team_id: caller.teamId,
      endpoint_id: endpointId,
      event_ids: [event?.id as string],
      first: true,
    });
    const [sent] = await at.received(1);
    expect(sent?.verifiedBy).toEqual(at.secrets);

    // Again: nothing left to move.
    const again = await admin(['migrate'], {});
    expect(again.json.webhook_endpoints_moved).toBe(0);
  });
});
