import { request } from 'node:http';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { dynamo, tableName } from '../../shared/data/dynamo.ts';
import { tokenKey } from '../../shared/data/keys.ts';
import { createToken, hashToken, recordTokenUse, revokeToken } from '../../shared/data/tokens.ts';
import { CONTACT_FIELD_TYPES } from '../../shared/domain/contact-field-types.ts';
import { BEARER_CHALLENGE, MESSAGES } from '../../shared/http/messages.ts';
import { apiClient, newTeam, useApi } from '../support/api.ts';

const api = useApi();

const TYPES = '/api/v1/contact-fields/types';

describe('authentication through the gateway and authorizer', () => {
  it('serves the types endpoint to a valid token, in the spec order', async () => {
    const { token } = await newTeam();
    const response = await apiClient(api.url, token).get(TYPES);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(CONTACT_FIELD_TYPES);
    expect(response.body.map((type: { value: string }) => type.value)).toEqual([
      'text',
      'email',
      'phone',
      'number',
      'date',
      'datetime',
      'boolean',
      'url',
      'pick_list',
      'related',
    ]);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['no Authorization header', {}],
    ['a wrong scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['a bearer without token', { Authorization: 'Bearer ' }],
    ['a malformed token', { Authorization: 'Bearer not-a-token' }],
    ['an unknown well-formed token', { Authorization: `Bearer tm_${'A'.repeat(43)}` }],
    ['two tokens', { Authorization: `Bearer tm_${'A'.repeat(43)} tm_${'B'.repeat(43)}` }],
  ])('answers 401 Unauthenticated to %s', async (_name, headers) => {
    const response = await apiClient(api.url).get(TYPES, headers);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: MESSAGES.unauthenticated });
    // RFC 6750: a 401 says which credentials it wants.
    expect(response.headers.get('www-authenticate')).toBe(BEARER_CHALLENGE);
  });

  it('reads the Authorization header whatever the case of its name', async () => {
    const { token } = await newTeam();
    for (const name of ['authorization', 'AUTHORIZATION', 'Authorization']) {
      // node:http sends header names as given (fetch would lower-case them).
      const status = await new Promise<number | undefined>((resolve, reject) => {
        request(`${api.url}${TYPES}`, { headers: { [name]: `Bearer ${token}` } }, (response) => {
          response.resume();
          resolve(response.statusCode);
        })
          .on('error', reject)
          .end();
      });
      expect(status, name).toBe(200);
    }
  });

  it('stops accepting a token once it is revoked, and keeps the others of the team', async () => {
    const { teamId, token } = await newTeam();
    const second = await createToken(teamId);
    expect((await apiClient(api.url, token).get(TYPES)).status).toBe(200);
    expect(await revokeToken(token)).toBe(true);
    expect((await apiClient(api.url, token).get(TYPES)).status).toBe(401);
    expect((await apiClient(api.url, second).get(TYPES)).status).toBe(200);
    expect(await revokeToken(token)).toBe(false);
  });

  it('stores only the SHA-256 of a token, and tokens name their plan and team and are long', async () => {
    const { teamId, token } = await newTeam();
    expect(token).toMatch(new RegExp(`^tm_standard_${teamId}_[0-9A-Za-z]{43}$`));
    const hashed = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: { pk: `TOKEN#${hashToken(token)}`, sk: 'TOKEN' } }),
    );
    expect(hashed.Item).toBeDefined();
    expect(JSON.stringify(hashed.Item)).not.toContain(token);
    const plain = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: { pk: `TOKEN#${token}`, sk: 'TOKEN' } }),
    );
    expect(plain.Item).toBeUndefined();
  });
});

describe('token lifecycle', () => {
  const tokenWrites = (send: { mock: { calls: unknown[][] } }, token: string) =>
    send.mock.calls.filter(
      ([command]) =>
        command instanceof UpdateCommand &&
        (command.input.Key as { pk?: string } | undefined)?.pk === tokenKey(hashToken(token)).pk,
    ).length;
  const lastUsedOn = async (token: string) =>
    (await dynamo().send(new GetCommand({ TableName: tableName(), Key: tokenKey(hashToken(token)) }))).Item
      ?.last_used_on;

  it('records the UTC day a token was last used: one write a day, not one a request', async () => {
    const { token } = await newTeam();
    const client = apiClient(api.url, token);
    const today = new Date().toISOString().slice(0, 10);
    expect(await lastUsedOn(token)).toBeUndefined();
    const send = vi.spyOn(dynamo(), 'send');
    try {
      for (let i = 0; i < 3; i++) expect((await client.get(TYPES)).status).toBe(200);
      expect(tokenWrites(send, token)).toBe(1);
      expect(await lastUsedOn(token)).toBe(today);
      // Last used yesterday: today's first request writes today, once.
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: tokenKey(hashToken(token)),
          UpdateExpression: 'SET last_used_on = :day',
          ExpressionAttributeValues: { ':day': '2000-01-01' },
        }),
      );
      const before = tokenWrites(send, token);
      for (let i = 0; i < 2; i++) expect((await client.get(TYPES)).status).toBe(200);
      expect(tokenWrites(send, token) - before).toBe(1);
      expect(await lastUsedOn(token)).toBe(today);
    } finally {
      send.mockRestore();
    }
  });

  it('records the day once when a token’s first requests of the day race, and never on a revoked token', async () => {
    const { teamId, token } = await newTeam();
    const results = await Promise.all(Array.from({ length: 8 }, () => apiClient(api.url, token).get(TYPES)));
    expect(results.every((result) => result.status === 200)).toBe(true);
    expect(await lastUsedOn(token)).toBe(new Date().toISOString().slice(0, 10));
    // Each write is conditional on the day being earlier: the racers' writes after the first change nothing.
    expect(await recordTokenUse(token)).toBe(false);
    const revoked = await createToken(teamId);
    await revokeToken(revoked);
    expect(await recordTokenUse(revoked)).toBe(false);
    expect(await lastUsedOn(revoked)).toBeUndefined();
  });

  it('stops accepting a token at its expiry, to the second', async () => {
    // The clock of this process, where the gateway runs the authorizer, stopped: no waiting, no race.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const { teamId } = await newTeam();
      // A whole second: expiries are kept to the second (shared/data/tokens.ts).
      const expiresAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000);
      const token = await createToken(teamId, { expiresAt });
      const client = apiClient(api.url, token);
      expect((await client.get(TYPES)).status).toBe(200);
      vi.setSystemTime(expiresAt.getTime() - 1);
      expect((await client.get(TYPES)).status).toBe(200);
      vi.setSystemTime(expiresAt);
      const expired = await client.get(TYPES);
      expect([expired.status, expired.body]).toEqual([401, { message: MESSAGES.unauthenticated }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps accepting a token of the form made before tokens named their plan, in the default plan', async () => {
    const { teamId } = await newTeam();
    const old = `tm_${teamId}_${'Q'.repeat(43)}`;
    await dynamo().send(
      new PutCommand({ TableName: tableName(), Item: { ...tokenKey(hashToken(old)), team_id: teamId } }),
    );
    const limits = await apiClient(api.url, old).get('/api/v1/limits');
    expect([limits.status, limits.body.rate_limit.plan]).toEqual([200, 'standard']);
  });
});

describe('gateway behaviour', () => {
  // A method a known path lacks is a 405 (test/lib/local/methods.services.test.ts).
  it('answers unknown routes with 404 JSON, before authentication', async () => {
    const { token } = await newTeam();
    for (const [method, path] of [
      ['GET', '/api/v1/nothing'],
      ['GET', '/'],
      ['DELETE', `${TYPES}/more`],
    ] as const) {
      const response = await fetch(api.url + path, { method, headers: { Authorization: `Bearer ${token}` } });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: MESSAGES.noSuchPath });
    }
  });

  it('answers 503 JSON with Retry-After, not 401, when the authorizer itself fails (AUTHORIZER_FAILURE)', async () => {
    const { token } = await newTeam();
    const send = vi.spyOn(dynamo(), 'send').mockRejectedValueOnce(new Error('DynamoDB is down') as never);
    try {
      const response = await apiClient(api.url, token).get(TYPES);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.body).toEqual({ message: MESSAGES.unavailable });
    } finally {
      send.mockRestore();
    }
  });
});
