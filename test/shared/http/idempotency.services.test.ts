import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dynamo } from '../../../shared/data/dynamo.ts';
import { idempotencyClock } from '../../../shared/data/idempotency.ts';
import { fingerprint } from '../../../shared/http/idempotency.ts';
import { useApi } from '../../support/api.ts';

/** Idempotency-Key on the two create endpoints (spec section 5), through the gateway. */
const api = useApi();
afterEach(() => vi.restoreAllMocks());

const BRANDS = '/api/v1/brands';
const FIELDS = '/api/v1/contact-fields';
const field = (tag: string) => ({ name: 'Plan', tag, type: 'text', contact_type: 'person' });
const key = () => `key-${crypto.randomUUID()}`;

/** Holds the first resource transaction until released: a request "in flight" for as long as a test needs. */
function holdTransactions() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered!: () => void;
  const held = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const send = dynamo().send.bind(dynamo());
  let holding = false;
  vi.spyOn(dynamo(), 'send').mockImplementation((async (command: unknown) => {
    if (command instanceof TransactWriteCommand && !holding) {
      holding = true;
      entered();
      await gate;
    }
    return send(command as never);
  }) as never);
  return { held, release };
}

/** Fails every DynamoDB call for which `fail` says so, as a dead network or a crashed Lambda would. */
function failWhen(fail: (command: unknown) => boolean) {
  const send = dynamo().send.bind(dynamo());
  vi.spyOn(dynamo(), 'send').mockImplementation((async (command: unknown) => {
    if (fail(command)) throw Object.assign(new Error('injected fault'), { name: 'InternalServerError' });
    return send(command as never);
  }) as never);
}

describe('Idempotency-Key', () => {
  it('replays the original status, body and headers for the same key and body, creating nothing new', async () => {
    const { client } = await api.caller();
    const k = key();
    const first = await client.post(
      BRANDS,
      { name: 'Acme', primary_color: '#112233' },
      { 'Idempotency-Key': k },
    );
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replay')).toBeNull();
    // Same body with other key order and whitespace.
    const raw = '{ "primary_color" : "#112233",\n  "name": "Acme" }';
    for (let i = 0; i < 2; i++) {
      const replay = await client.post(BRANDS, raw, { 'Idempotency-Key': k });
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(first.text); // byte for byte
      expect(replay.headers.get('idempotent-replay')).toBe('true');
    }
    expect((await client.get(BRANDS)).body).toHaveLength(1);
  });

  it('does not deduplicate requests without the header', async () => {
    const { client } = await api.caller();
    expect((await client.post(BRANDS, { name: 'Twice' })).status).toBe(201);
    expect((await client.post(BRANDS, { name: 'Twice' })).status).toBe(201);
    expect((await client.get(BRANDS)).body).toHaveLength(2);
  });

  it('creates exactly one resource from 30 parallel identical requests', async () => {
    const { client } = await api.caller();
    const k = key();
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => client.post(BRANDS, { name: 'Racy' }, { 'Idempotency-Key': k })),
    );
    // One request executes; every other one replays it (no "in progress" answers: there is no lease).
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 201));
    const executed = responses.filter((r) => r.headers.get('idempotent-replay') === null);
    expect(executed).toHaveLength(1);
    for (const r of responses) expect(r.body).toEqual(executed[0]?.body);
    const brands = (await client.get(BRANDS)).body;
    expect(brands).toHaveLength(1);
    expect(brands[0].id).toBe(executed[0]?.body.id);
  });

  it('answers 409 idempotency_key_conflict for another body, and still replays the original', async () => {
    const { client } = await api.caller();
    const k = key();
    const first = await client.post(FIELDS, field('plan'), { 'Idempotency-Key': k });
    expect(first.status).toBe(201);
    const conflict = await client.post(FIELDS, field('other_plan'), { 'Idempotency-Key': k });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({ message: expect.any(String), error_code: 'idempotency_key_conflict' });
    const replay = await client.post(FIELDS, field('plan'), { 'Idempotency-Key': k });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
  });

  it('lets two requests with one key race: the first to commit wins, the other replays it', async () => {
    const { client } = await api.caller();
    const k = key();
    const { held, release } = holdTransactions();
    const first = client.post(FIELDS, field('slow'), { 'Idempotency-Key': k });
    await held;
    const second = await client.post(FIELDS, field('slow'), { 'Idempotency-Key': k });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replay')).toBeNull();
    release();
    const late = await first;
    expect(late.status).toBe(201);
    expect(late.headers.get('idempotent-replay')).toBe('true');
    expect(late.body).toEqual(second.body);
    expect((await client.get(FIELDS)).body).toHaveLength(1);
  });

  it('answers the loser of a race with another body 409, and keeps the winner', async () => {
    const { client } = await api.caller();
    const k = key();
    const { held, release } = holdTransactions();
    const first = client.post(FIELDS, field('slow'), { 'Idempotency-Key': k });
    await held;
    const fast = await client.post(FIELDS, field('fast'), { 'Idempotency-Key': k });
    expect(fast.status).toBe(201);
    release();
    const slow = await first;
    expect(slow.status).toBe(409);
    expect(slow.body.error_code).toBe('idempotency_key_conflict');
    const replay = await client.post(FIELDS, field('fast'), { 'Idempotency-Key': k });
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    expect((await client.get(FIELDS)).body.map((f: { tag: string }) => f.tag)).toEqual(['fast']);
  });

  it('scopes keys to the team and to the endpoint', async () => {
    const [{ client: a }, { client: b }] = [await api.caller(), await api.caller()];
    const k = key();
    const brandA = await a.post(BRANDS, { name: 'Shared key' }, { 'Idempotency-Key': k });
    const brandB = await b.post(BRANDS, { name: 'Shared key' }, { 'Idempotency-Key': k });
    expect(brandA.status).toBe(201);
    expect(brandB.status).toBe(201);
    expect(brandB.headers.get('idempotent-replay')).toBeNull();
    expect(brandB.body.id).not.toBe(brandA.body.id);
    const fieldA = await a.post(FIELDS, field('shared_key'), { 'Idempotency-Key': k });
    expect(fieldA.status).toBe(201);
    expect(fieldA.headers.get('idempotent-replay')).toBeNull();
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a control character', 'abc\tdef'],
    ['only spaces', '   '],
  ])('refuses a key that is %s with 400, storing nothing', async (_name, badKey) => {
    const { client } = await api.caller();
    const response = await client.post(BRANDS, { name: 'Bad key' }, { 'Idempotency-Key': badKey });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/Idempotency-Key/);
    expect((await client.get(BRANDS)).body).toHaveLength(0);
  });

  it('accepts a key of exactly 255 characters', async () => {
    const { client } = await api.caller();
    const response = await client.post(BRANDS, { name: 'Long key' }, { 'Idempotency-Key': 'k'.repeat(255) });
    expect(response.status).toBe(201);
  });

  it('stores a 4xx and replays it; the same key with a corrected body is a conflict', async () => {
    const { client } = await api.caller();
    const k = key();
    const invalid = { name: '', primary_color: 'red' };
    const first = await client.post(BRANDS, invalid, { 'Idempotency-Key': k });
    expect(first.status).toBe(422);
    const replay = await client.post(BRANDS, invalid, { 'Idempotency-Key': k });
    expect(replay.status).toBe(422);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    const corrected = await client.post(BRANDS, { name: 'Fixed' }, { 'Idempotency-Key': k });
    expect(corrected.status).toBe(409);
    expect((await client.get(BRANDS)).body).toHaveLength(0);
  });

  it('stores nothing for a 5xx: no record, no resource, and a retry runs afresh', async () => {
    const { client } = await api.caller();
    const k = key();
    failWhen((command) => command instanceof TransactWriteCommand);
    const failed = await client.post(FIELDS, field('flaky'), { 'Idempotency-Key': k });
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ message: 'Server Error' });
    vi.restoreAllMocks();
    expect((await client.get(FIELDS)).body).toHaveLength(0);
    const retry = await client.post(FIELDS, field('flaky'), { 'Idempotency-Key': k });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replay')).toBeNull();
    expect((await client.get(FIELDS)).body).toHaveLength(1);
  });

  it('treats a record older than 24 hours as absent even before TTL deletes it', async () => {
    const { client } = await api.caller();
    const k = key();
    expect((await client.post(BRANDS, { name: 'Day one' }, { 'Idempotency-Key': k })).status).toBe(201);
    const now = Date.now();
    vi.spyOn(idempotencyClock, 'now').mockReturnValue(now + 24 * 3600 * 1000 + 60_000);
    const later = await client.post(BRANDS, { name: 'Day two' }, { 'Idempotency-Key': k });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replay')).toBeNull();
    expect((await client.get(BRANDS)).body.map((b: { name: string }) => b.name)).toEqual([
      'Day one',
      'Day two',
    ]);
  });

  it('leaves nothing behind when the request dies before its write: the retry executes at once', async () => {
    const { client } = await api.caller();
    const k = key();
    failWhen((command) => command instanceof TransactWriteCommand);
    expect((await client.post(FIELDS, field('orphan'), { 'Idempotency-Key': k })).status).toBe(500);
    vi.restoreAllMocks();
    const retried = await client.post(FIELDS, field('orphan'), { 'Idempotency-Key': k });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replay')).toBeNull();
    expect((await client.get(FIELDS)).body).toHaveLength(1);
  });
});

describe('request fingerprint', () => {
  it('ignores key order and whitespace but not values', () => {
    expect(fingerprint(JSON.parse('{"a":1,"b":{"c":[1,2],"d":null}}'))).toBe(
      fingerprint(JSON.parse('{ "b": { "d": null, "c": [1, 2] }, "a": 1 }')),
    );
    expect(fingerprint({ a: [1, 2] })).not.toBe(fingerprint({ a: [2, 1] }));
    expect(fingerprint({ a: '1' })).not.toBe(fingerprint({ a: 1 }));
  });
});
