import { mkdtemp, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { sealPlaintextSecrets } from '../../../lib/admin/migrations/webhook-endpoints.ts';
import { createKms, LOCAL_KMS_KEY_ARN, localKmsKey } from '../../../lib/local/kms.ts';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import { teamPk, webhookEndpointKey } from '../../../shared/data/keys.ts';
import { dataKeyName, forgetDataKeys, SIGNING_SECRET_PURPOSE } from '../../../shared/data/secret-envelope.ts';
import { findWebhookEndpoint, openSecretsInForce } from '../../../shared/data/webhook-endpoints.ts';
import { newSigningSecret } from '../../../shared/domain/webhook-signing.ts';
import { type Caller, useApi } from '../../support/api.ts';
import { storedDelivery, until } from '../../support/deliveries.ts';
import { receiverOf, useReceivers } from '../../support/webhook-receiver.ts';

/**
 * Secrets encrypted at rest: webhook signing secrets are sealed under KMS data keys (the local
 * KMS stand-in of the test run, through the same SDK client), never kept in clear in the endpoint's item
 * or in the create's Idempotency-Key record; a replay never shows a secret that is not the endpoint's
 * current one; a sealed secret copied onto another endpoint does not open; a warm deliverer asks KMS once
 * per data key, not once per delivery; a secret kept in clear before this still signs, and migrate seals it.
 */
const api = useApi();
const receivers = useReceivers();

const receiver = () => receiverOf(receivers);

/** An endpoint of the caller's team at a new receiver (subscribed to brand.created), which knows its secret. */
async function subscribed(caller: Caller, headers: Record<string, string> = {}) {
  const at = await receiver();
  const body = { url: at.url, event_types: ['brand.created'] };
  const created = await caller.client.post('/api/v1/webhook-endpoints', body, headers);
  expect(created.status).toBe(201);
  at.secrets = [created.body.secret];
  return { receiver: at, endpoint: created.body as { id: number; secret: string }, body };
}

/** Every item of the team's partition as DynamoDB Local holds it: endpoints, Idempotency-Key records. */
async function teamItems(teamId: number): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': teamPk(teamId) },
      ConsistentRead: true,
    }),
  );
  return Items;
}

async function rawEndpoint(teamId: number, id: number) {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: webhookEndpointKey(teamId, id), ConsistentRead: true }),
  );
  return Item as Record<string, unknown> & { secrets: Array<Record<string, unknown>>; version: number };
}

const setSecrets = (teamId: number, id: number, secrets: unknown) =>
  dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: webhookEndpointKey(teamId, id),
      UpdateExpression: 'SET secrets = :secrets',
      ExpressionAttributeValues: { ':secrets': secrets },
    }),
  );

/** The calls the run's KMS stand-in has served, in order. */
async function kmsCalls(): Promise<Array<{ operation: string; dataKey: string }>> {
  return (await (await fetch(`${process.env.KMS_ENDPOINT}/calls`)).json()) as Array<{
    operation: string;
    dataKey: string;
  }>;
}

const brandCreated = async (caller: Caller, name = 'Acme') => {
  const brand = await caller.client.post('/api/v1/brands', { name });
  expect(brand.status).toBe(201);
};

describe('webhook signing secrets at rest', () => {
  it('the endpoint item and the Idempotency-Key record of its create hold no secret, in any form', async () => {
    const caller = await api.caller();
    const { endpoint } = await subscribed(caller, { 'Idempotency-Key': 'create-once' });
    const items = await teamItems(caller.teamId);
    const text = JSON.stringify(items);
    expect(text).not.toContain('whsec_');
    expect(text).not.toContain(endpoint.secret.slice('whsec_'.length));
    const record = items.find((item) => String(item.sk).includes('webhook-endpoints'));
    expect(record, 'the create wrote its Idempotency-Key record').toBeDefined();
    const [sealed] = (await rawEndpoint(caller.teamId, endpoint.id)).secrets;
    expect(Object.keys(sealed ?? {}).sort()).toEqual(['data_key', 'expires_at', 'id', 'sealed']);
    // The record names the secret by its id only.
    expect(JSON.stringify(record)).toContain(String(sealed?.id));
  });

  it('a replay answers the secret while it is current; after a rotation, and after a deletion, no old secret', async () => {
    const caller = await api.caller();
    const key = { 'Idempotency-Key': 'replay-me' };
    const { endpoint, body } = await subscribed(caller, key);
    const first = await caller.client.get(`/api/v1/webhook-endpoints/${endpoint.id}`);
    const replayed = await caller.client.post('/api/v1/webhook-endpoints', body, key);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replay')).toBe('true');
    expect(replayed.body).toEqual(endpoint);

    const rotated = await caller.client.post(`/api/v1/webhook-endpoints/${endpoint.id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    const afterRotation = await caller.client.post('/api/v1/webhook-endpoints', body, key);
    expect(afterRotation.status).toBe(201);
    expect(JSON.stringify(afterRotation.body)).not.toContain('whsec_');
    const { secret: _shown, ...withoutSecret } = endpoint;
    expect(afterRotation.body).toEqual({ ...withoutSecret, secret_shown: false });
    expect(first.status).toBe(200);

    expect((await caller.client.delete(`/api/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(200);
    const afterDeletion = await caller.client.post('/api/v1/webhook-endpoints', body, key);
    expect(afterDeletion.status).toBe(201);
    expect(afterDeletion.body).toEqual({ ...withoutSecret, secret_shown: false });

    // Deleted without a rotation: the replay shows no secret either.
    const again = await subscribed(caller, { 'Idempotency-Key': 'then-deleted' });
    await caller.client.delete(`/api/v1/webhook-endpoints/${again.endpoint.id}`);
    const replay = await caller.client.post('/api/v1/webhook-endpoints', again.body, {
      'Idempotency-Key': 'then-deleted',
    });
    expect(JSON.stringify(replay.body)).not.toContain(again.endpoint.secret);
    expect(replay.body.secret_shown).toBe(false);
  });

  it('a sealed secret copied onto another endpoint does not open there: its deliveries are given up, never signed with it', async () => {
    const caller = await api.caller();
    const a = await subscribed(caller);
    const b = await subscribed(caller);
    await setSecrets(caller.teamId, b.endpoint.id, (await rawEndpoint(caller.teamId, a.endpoint.id)).secrets);
    const found = await findWebhookEndpoint(caller.teamId, b.endpoint.id);
    expect(await openSecretsInForce(found?.endpoint as never, Date.now())).toEqual({
      secrets: [],
      refused: 1,
    });

    await brandCreated(caller);
    const [toA] = await a.receiver.received(1);
    expect(toA?.verifiedBy).toEqual([a.endpoint.secret]);
    let status: string | undefined;
    await until(async () => {
      status = (await storedDelivery(caller.teamId, b.endpoint.id, toA?.id as string))?.status;
      return status !== undefined;
    });
    expect(status).toBe('failed');
    expect(b.receiver.deliveries).toEqual([]);
    // The caller sees no error: the endpoint reads, and a rotation gives it a secret of its own that signs.
    expect((await caller.client.get(`/api/v1/webhook-endpoints/${b.endpoint.id}`)).status).toBe(200);
    const rotated = await caller.client.post(`/api/v1/webhook-endpoints/${b.endpoint.id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    b.receiver.secrets = [rotated.body.secret, a.endpoint.secret];
    await brandCreated(caller, 'Second');
    const [toB] = await b.receiver.received(1);
    expect(toB?.verifiedBy).toEqual([rotated.body.secret]);
  });

  it('a warm deliverer makes one KMS Decrypt for many deliveries; creates share one data key', async () => {
    const caller = await api.caller();
    // This process seals with a data key no deliverer has opened yet.
    forgetDataKeys();
    const endpoints = [await subscribed(caller), await subscribed(caller), await subscribed(caller)];
    const dataKeys = new Set(
      await Promise.all(
        endpoints.map(
          async ({ endpoint }) =>
            (await rawEndpoint(caller.teamId, endpoint.id)).secrets[0]?.data_key as string,
        ),
      ),
    );
    expect(dataKeys.size).toBe(1);
    const name = dataKeyName([...dataKeys][0] as string);
    const deliveries = 6;
    for (let n = 0; n < deliveries; n++) await brandCreated(caller, `Brand ${n}`);
    for (const { receiver: at, endpoint } of endpoints) {
      const received = await at.received(deliveries);
      expect(received.every((delivery) => delivery.verifiedBy[0] === endpoint.secret)).toBe(true);
    }
    const calls = (await kmsCalls()).filter((call) => call.dataKey === name);
    expect(calls.map((call) => call.operation)).toEqual(['GenerateDataKey', 'Decrypt']);
  });

  it('a secret kept in clear (before this change) still signs; migrate seals it, keeping the version, and it signs on', async () => {
    const caller = await api.caller();
    const { receiver: at, endpoint } = await subscribed(caller);
    const legacy = newSigningSecret();
    await setSecrets(caller.teamId, endpoint.id, [{ secret: legacy, expires_at: null }]);
    at.secrets = [legacy];
    await brandCreated(caller, 'Before');
    const [before] = await at.received(1);
    expect(before?.verifiedBy).toEqual([legacy]);

    const version = (await rawEndpoint(caller.teamId, endpoint.id)).version;
    expect(await sealPlaintextSecrets()).toBeGreaterThanOrEqual(1);
    const sealed = await rawEndpoint(caller.teamId, endpoint.id);
    expect(JSON.stringify(sealed)).not.toContain('whsec_');
    expect(sealed.version).toBe(version);
    await brandCreated(caller, 'After');
    const [, after] = await at.received(2);
    expect(after?.verifiedBy).toEqual([legacy]);
  });
});

describe('the local KMS stand-in', () => {
  it('keeps its key in the data directory, mode 0600, made once; a data key opens only with its context', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tm-kms-'));
    const server = createKms(await localKmsKey(join(dir, 'kms-key')));
    try {
      expect((await stat(join(dir, 'kms-key'))).mode & 0o777).toBe(0o600);
      expect(await localKmsKey(join(dir, 'kms-key'))).toEqual(await localKmsKey(join(dir, 'kms-key')));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const kms = new KMSClient({
        region: 'us-east-1',
        endpoint,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      const { GenerateDataKeyCommand } = await import('@aws-sdk/client-kms');
      const context = { purpose: SIGNING_SECRET_PURPOSE };
      const made = await kms.send(
        new GenerateDataKeyCommand({
          KeyId: LOCAL_KMS_KEY_ARN,
          KeySpec: 'AES_256',
          EncryptionContext: context,
        }),
      );
      const opened = await kms.send(
        new DecryptCommand({ CiphertextBlob: made.CiphertextBlob, EncryptionContext: context }),
      );
      expect(Buffer.from(opened.Plaintext ?? [])).toEqual(Buffer.from(made.Plaintext ?? []));
      await expect(
        kms.send(
          new DecryptCommand({ CiphertextBlob: made.CiphertextBlob, EncryptionContext: { purpose: 'x' } }),
        ),
      ).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
      kms.destroy();
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
