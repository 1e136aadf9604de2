import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import { deliveryKey, endpointDeliveries, padId, teamPk } from '../../../shared/data/keys.ts';
import { shardOf } from '../../../shared/data/webhook-deliveries/due.ts';
import { failedDeliveriesSince } from '../../../shared/data/webhook-deliveries/restarts.ts';
import { eventPosition } from '../../../shared/domain/event-shape.ts';
import { deliverToEndpoint } from '../../../shared/webhooks/deliverer.ts';
import { dueRequests } from '../../../shared/webhooks/sweeper.ts';
import { useApi } from '../../support/api.ts';
import { writeEvents } from '../../support/events.ts';
import { admin } from '../../support/processes.ts';
import { startReceiver, useReceivers } from '../../support/webhook-receiver.ts';

/**
 * Scale: an endpoint's deliveries and attempts have a partition key of their own
 * (`ENDPOINT#<team>#<endpoint>`), off the team's; `admin migrate` moves those of older tables, pending
 * retries still due after it.
 */
const api = useApi();
const receivers = useReceivers();

describe('webhook delivery keys', () => {
  it("an endpoint's deliveries are under its own partition key, not the team's", () => {
    const position = `001767225600#${'42'.padStart(40, '0')}#0`;
    expect(deliveryKey(7, 3, position)).toEqual({ pk: 'ENDPOINT#7#3', sk: `DELIVERY#${position}` });
    expect(endpointDeliveries(7, 3)).toEqual({ pk: 'ENDPOINT#7#3', skPrefix: 'DELIVERY#' });
    expect(deliveryKey(7, 3, position).pk).not.toBe(teamPk(7));
  });

  it('`admin migrate` moves deliveries and attempts from the team partition: given up, pending retries and the attempts list', async () => {
    const caller = await api.caller();
    const at = await startReceiver();
    receivers.push(at);
    const created = await caller.client.post('/api/v1/webhook-endpoints', {
      url: at.url,
      event_types: ['brand.updated'],
    });
    at.secrets = [created.body.secret];
    const endpointId = created.body.id as number;
    const [failed, pending] = await writeEvents(caller.teamId, 2, { newest: new Date(Date.now() + 3000) });
    const legacyKey = (prefix: string, rest: string) => ({
      pk: teamPk(caller.teamId),
      sk: `${prefix}${padId(endpointId)}#${rest}`,
    });
    const position = (id: string) => eventPosition(id)?.position as string;
    const now = Date.now();
    const common = {
      team_id: caller.teamId,
      endpoint_id: endpointId,
      expires_at: Math.floor(now / 1000) + 3600,
    };
    const legacy = [
      {
        ...legacyKey('DELIVERY#', position(failed?.id as string)),
        ...common,
        event_id: failed?.id,
        status: 'failed',
        tries: 10,
        next_try_at: now - 1000,
        settled_at: now - 1000,
      },
      {
        ...legacyKey('DELIVERY#', position(pending?.id as string)),
        ...common,
        event_id: pending?.id,
        status: 'pending',
        tries: 1,
        next_try_at: now - 500,
        gsi2pk: `DUE#${shardOf(endpointId, pending?.id as string)}`,
        gsi2sk: `${String(now - 500).padStart(13, '0')}#${caller.teamId}#${endpointId}#${pending?.id}`,
      },
      {
        ...legacyKey('ATTEMPT#', `${String(now - 2000).padStart(13, '0')}#${position(failed?.id as string)}`),
        ...common,
        event_id: failed?.id,
        attempted_at: new Date(now - 2000).toISOString().replace('Z', '000Z'),
        status_code: 500,
        error: null,
        duration_ms: 12,
        response: 'down',
        succeeded: false,
      },
    ];
    for (const item of legacy) await dynamo().send(new PutCommand({ TableName: tableName(), Item: item }));

    const run = await admin(['migrate'], {});
    expect(run.code).toBe(0);
    expect(run.json.webhook_delivery_keys.deliveries).toBeGreaterThanOrEqual(2);
    expect(run.json.webhook_delivery_keys.attempts).toBeGreaterThanOrEqual(1);
    for (const item of legacy) {
      const { Item } = await dynamo().send(
        new GetCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true }),
      );
      expect(Item).toBeUndefined();
    }
    // Given up: recover finds it. Pending: the sweep finds it and it is sent. The attempts list shows the try.
    expect(await failedDeliveriesSince(caller.teamId, endpointId, 0)).toEqual([failed?.id]);
    const attempts = await caller.client.get(`/api/v1/webhook-endpoints/${endpointId}/attempts`);
    expect(attempts.body).toMatchObject([{ event_id: failed?.id, status_code: 500, response: 'down' }]);
    const due = (await dueRequests(Date.now())).filter((request) => request.team_id === caller.teamId);
    expect(due).toEqual([{ team_id: caller.teamId, endpoint_id: endpointId, event_ids: [pending?.id] }]);
    await deliverToEndpoint(due[0] as (typeof due)[number]);
    const [sent] = await at.received(1);
    expect(sent?.id).toBe(pending?.id);
    // Again: nothing left to move.
    expect((await admin(['migrate'], {})).json.webhook_delivery_keys).toEqual({ deliveries: 0, attempts: 0 });
  });
});
