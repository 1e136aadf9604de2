import { request } from 'node:http';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { dynamo, tableName } from '../shared/data/dynamo.ts';
import { createToken, hashToken, revokeToken } from '../shared/data/teams.ts';
import { CONTACT_FIELD_TYPES } from '../shared/domain/contact-field-types.ts';
import { BEARER_CHALLENGE, MESSAGES } from '../shared/http/messages.ts';
import { apiClient, newTeam, useApi } from './support/api.ts';

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
    expect(response.body).toEqual({ message: 'Unauthenticated.' });
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

  it('stores only the SHA-256 of a token, and tokens name their team and are long', async () => {
    const { teamId, token } = await newTeam();
    expect(token).toMatch(new RegExp(`^tm_${teamId}_[0-9A-Za-z]{43}$`));
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

describe('gateway behaviour', () => {
  // A method a known path lacks is a 405 (methods.test.ts).
  it('answers unknown routes with 404 JSON, before authentication', async () => {
    const { token } = await newTeam();
    for (const [method, path] of [
      ['GET', '/api/v1/nothing'],
      ['GET', '/'],
      ['DELETE', `${TYPES}/more`],
    ] as const) {
      const response = await fetch(api.url + path, { method, headers: { Authorization: `Bearer ${token}` } });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: 'Not Found.' });
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
