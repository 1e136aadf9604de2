import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterEach, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { dynamo, tableName } from '../../shared/data/dynamo.ts';
import { itemSize } from '../../shared/data/item-size.ts';
import { idempotencyDayKey, idempotencyKey } from '../../shared/data/keys.ts';
import { setQuota } from '../../shared/data/quotas.ts';
import type { ChangeEvent } from '../../shared/domain/event-shape.ts';
import { entryBytes, PUT_EVENTS, publishEvents } from '../../shared/events/bus.ts';
import { withinEventBytes } from '../../shared/events/change-events.ts';
import { privateObjectKey, putPrivateFile } from '../../shared/files/library.ts';
import { presigner, s3 } from '../../shared/files/s3.ts';
import { LIMITS, QUOTA_DEFAULTS } from '../../shared/limits.ts';
import { useApi } from '../support/api.ts';
import { loggedEvents } from '../support/events.ts';
import { maximalBrand, maximalBrandEvent } from '../support/maximal-events.ts';
import { admin } from '../support/processes.ts';
import { roundTrips } from '../support/round-trips.ts';
import { restoreSettings, useSettings } from '../support/settings.ts';

/**
 * Per-team bounds on what a team can store, played by a hostile tenant against the local stack
 * (DynamoDB Local, s3rver): each bound with its number (docs/tenant-isolation.md, "Storage per team").
 */
const api = useApi();

const FILES = '/api/v1/files';
const upload = (size: number, path = 'files/a.bin') => ({ path, content_type: 'application/pdf', size });

afterEach(() => restoreSettings());

/** The signature of an upload URL for `files/a.bin` of `length` bytes, signed at `signingDate`. */
async function signatureOf(
  teamId: number,
  signingDate: Date,
  length: number,
  ifNoneMatch: string | null = '*',
): Promise<string | null> {
  const signed = await getSignedUrl(
    presigner(),
    new PutObjectCommand({
      Bucket: config.privateBucket(),
      Key: privateObjectKey(teamId, 'files/a.bin'),
      ContentType: 'application/pdf',
      ContentLength: length,
      IfNoneMatch: ifNoneMatch ?? undefined,
    }),
    {
      expiresIn: 900,
      signingDate,
      signableHeaders: new Set(['content-type', 'content-length', 'if-none-match']),
    },
  );
  return new URL(signed).searchParams.get('X-Amz-Signature');
}

/** The bytes of a file of the team's library, as S3 keeps them. */
async function privateBytes(teamId: number, path: string): Promise<Buffer> {
  const object = await s3().send(
    new GetObjectCommand({ Bucket: config.privateBucket(), Key: privateObjectKey(teamId, path) }),
  );
  return Buffer.from(
    await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
  );
}

describe('upload bytes and count: quotas in GET /api/v1/limits', () => {
  it(`a file is at most ${LIMITS.uploadFileBytes} bytes (25 MiB): a size over it or none is a 422 on size`, async () => {
    const { client } = await api.caller();
    expect((await client.post(FILES, upload(LIMITS.uploadFileBytes))).status).toBe(200);
    for (const body of [
      upload(LIMITS.uploadFileBytes + 1),
      { path: 'a.pdf', content_type: 'application/pdf' },
    ]) {
      const refused = await client.post(FILES, body);
      expect([refused.status, Object.keys(refused.body.errors)]).toEqual([422, ['size']]);
    }
    const limits = (await client.get('/api/v1/limits')).body.quotas;
    expect([limits.uploads, limits.upload_bytes]).toEqual([
      { limit: QUOTA_DEFAULTS.uploads, used: 1 },
      { limit: QUOTA_DEFAULTS.upload_bytes, used: LIMITS.uploadFileBytes },
    ]);
  });

  it('the upload URL signs the declared size as Content-Length: S3 takes exactly that many bytes', async () => {
    const { teamId, client } = await api.caller();
    const size = 1234;
    const answer = await client.post(FILES, upload(size));
    expect(answer.status).toBe(200);
    const url = new URL(answer.body.upload_url);
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual([
      'content-length',
      'content-type',
      'host',
      'if-none-match',
    ]);
    // S3 recomputes the signature from the request's own Content-Length: the URL's signature is the one of
    // exactly `size` bytes, and another length signs otherwise (AWS answers it 403 SignatureDoesNotMatch).
    const date = url.searchParams.get('X-Amz-Date') as string;
    const signingDate = new Date(
      `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`,
    );
    const signature = url.searchParams.get('X-Amz-Signature');
    expect(await signatureOf(teamId, signingDate, size)).toBe(signature);
    expect(await signatureOf(teamId, signingDate, size + 1)).not.toBe(signature);
    expect(await signatureOf(teamId, signingDate, LIMITS.uploadFileBytes)).not.toBe(signature);
    // s3rver does not check V4 signatures (AWS does): here the exact size is stored as sent.
    const put = await fetch(url, { method: 'PUT', headers: answer.body.headers, body: Buffer.alloc(size) });
    expect(put.status).toBe(200);
  });

  it('the URL stores its bytes once: a second PUT on it is 412, the file and GET /limits keep the first', async () => {
    const { teamId, client } = await api.caller();
    const size = 1024 * 1024;
    const answer = await client.post(FILES, upload(size));
    expect(answer.body.headers).toEqual({ 'Content-Type': 'application/pdf', 'If-None-Match': '*' });
    const put = (fill: number) =>
      fetch(answer.body.upload_url, {
        method: 'PUT',
        headers: answer.body.headers,
        body: Buffer.alloc(size, fill),
      });
    expect((await put(1)).status).toBe(200);
    // S3 keeps every version of a key in the private bucket: each accepted PUT would be `size` bytes more.
    for (const fill of [2, 3]) {
      const again = await put(fill);
      expect([again.status, await again.text()]).toEqual([
        412,
        expect.stringContaining('<Code>PreconditionFailed</Code>'),
      ]);
    }
    // Buffer.equals: a deep comparison of 1 MiB ties the test's process up for seconds.
    expect((await privateBytes(teamId, 'files/a.bin')).equals(Buffer.alloc(size, 1))).toBe(true);
    const limits = (await client.get('/api/v1/limits')).body.quotas;
    expect([limits.uploads.used, limits.upload_bytes.used]).toEqual([1, size]);
  });

  it('the URL signs If-None-Match: *: a PUT without it, or with another value, is not the signed request (S3: 403)', async () => {
    const { teamId, client } = await api.caller();
    const answer = await client.post(FILES, upload(10));
    const url = new URL(answer.body.upload_url);
    const date = url.searchParams.get('X-Amz-Date') as string;
    const signingDate = new Date(
      `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`,
    );
    const signature = url.searchParams.get('X-Amz-Signature');
    expect(await signatureOf(teamId, signingDate, 10)).toBe(signature);
    // S3 signs the headers the request carries under the names the URL lists: without the header, or with
    // an ETag in it, the signature it computes is another one (s3rver does not check V4 signatures).
    expect(await signatureOf(teamId, signingDate, 10, null)).not.toBe(signature);
    expect(await signatureOf(teamId, signingDate, 10, '"0cc175b9c0f1b6a831c399e269772661"')).not.toBe(
      signature,
    );
  });

  it('a second URL for a path already written counts, and its PUT is 412: a library file is written once', async () => {
    const { teamId, client } = await api.caller();
    const first = await client.post(FILES, upload(4, 'logos/a.png'));
    const second = await client.post(FILES, upload(4, 'logos/a.png'));
    expect([first.status, second.status]).toEqual([200, 200]);
    const put = (target: { upload_url: string; headers: Record<string, string> }, bytes: string) =>
      fetch(target.upload_url, { method: 'PUT', headers: target.headers, body: bytes });
    expect((await put(first.body, 'one!')).status).toBe(200);
    expect((await put(second.body, 'two!')).status).toBe(412);
    expect((await privateBytes(teamId, 'logos/a.png')).toString()).toBe('one!');
    const limits = (await client.get('/api/v1/limits')).body.quotas;
    expect([limits.uploads.used, limits.upload_bytes.used]).toEqual([2, 8]);
  });

  it('10 parallel PUTs on one URL store one file: the others are 412 or 409 (a concurrent conditional write)', async () => {
    const { teamId, client } = await api.caller();
    const size = 64 * 1024;
    const answer = await client.post(FILES, upload(size));
    const statuses = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const put = await fetch(answer.body.upload_url, {
          method: 'PUT',
          headers: answer.body.headers,
          body: Buffer.alloc(size, i),
        });
        await put.arrayBuffer();
        return put.status;
      }),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status !== 200).every((status) => [409, 412].includes(status))).toBe(
      true,
    );
    const winner = statuses.indexOf(200);
    expect((await privateBytes(teamId, 'files/a.bin')).equals(Buffer.alloc(size, winner))).toBe(true);
  });

  it("the admin CLI's file put writes once too: a path already written is refused, the file kept", async () => {
    const { teamId } = await api.caller();
    await putPrivateFile(teamId, 'docs/a.txt', Buffer.from('first'), 'text/plain');
    await expect(
      putPrivateFile(teamId, 'docs/a.txt', Buffer.from('second'), 'text/plain'),
    ).rejects.toMatchObject({
      name: 'ValidationError',
      errors: {
        path: [
          'The path field names a file that already exists: a library file is written once; use a new path.',
        ],
      },
    });
    expect((await privateBytes(teamId, 'docs/a.txt')).toString()).toBe('first');
  });

  it('one UpdateItem of the team item takes both quotas before the URL is signed', async () => {
    const { client } = await api.caller();
    const { result, calls } = await roundTrips(() => client.post(FILES, upload(10)));
    expect([result.status, calls]).toEqual([200, ['UpdateItemCommand']]);
  });

  it('40 parallel requests of 1,000 bytes against a byte quota of 10,000 get exactly 10 URLs', async () => {
    const { teamId, client } = await api.caller();
    await setQuota(teamId, 'upload_bytes', 10_000);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => client.post(FILES, upload(1000, `race/${i}.bin`))),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 422)).toHaveLength(30);
    const message =
      "A file of 1000 bytes does not fit the team's quota of 10000 upload bytes (0 left); ask for a higher quota.";
    expect(answers.find((answer) => answer.status === 422)?.body).toEqual({
      message,
      errors: { quota: [message] },
    });
    const limits = (await client.get('/api/v1/limits')).body.quotas;
    expect([limits.uploads.used, limits.upload_bytes]).toEqual([10, { limit: 10_000, used: 10_000 }]);
    // What is left still fits a smaller file once the quota is raised, to the byte.
    await setQuota(teamId, 'upload_bytes', 10_500);
    expect((await client.post(FILES, upload(501))).status).toBe(422);
    expect((await client.post(FILES, upload(500))).status).toBe(200);
  });

  it('30 parallel requests against an upload quota of 5 get exactly 5 URLs, the 422 naming it', async () => {
    const { teamId, client } = await api.caller();
    await setQuota(teamId, 'uploads', 5);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => client.post(FILES, upload(1, `count/${i}.bin`))),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(5);
    const message = 'The team has reached its quota of 5 uploads; ask for a higher quota.';
    expect(answers.filter((answer) => answer.status === 422).map((answer) => answer.body)).toEqual(
      Array(25).fill({ message, errors: { quota: [message] } }),
    );
    expect((await client.get('/api/v1/limits')).body.quotas.uploads).toEqual({ limit: 5, used: 5 });
  });

  it("take the deployment's defaults (QUOTAS, cdk.json's quotas) and the admin CLI's quota set", async () => {
    const { teamId, client } = await api.caller();
    useSettings({ QUOTAS: '{"upload_bytes": 3000, "uploads": 100}' });
    expect((await client.post(FILES, upload(3001))).status).toBe(422);
    const answers = await Promise.all(Array.from({ length: 6 }, () => client.post(FILES, upload(1000))));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
    expect((await client.get('/api/v1/limits')).body.quotas.upload_bytes).toEqual({
      limit: 3000,
      used: 3000,
    });
    restoreSettings();
    // A team's own quota beyond 32 bits (10 GB), set and reset with the admin CLI.
    const set = await admin(
      ['quota', 'set', '--team', String(teamId), '--kind', 'upload_bytes', '--limit', '10000000000'],
      {},
    );
    expect(set.json, set.stderr).toEqual({ limit: 10_000_000_000, used: 3000 });
    expect((await client.post(FILES, upload(LIMITS.uploadFileBytes))).status).toBe(200);
    const reset = await admin(
      ['quota', 'set', '--team', String(teamId), '--kind', 'uploads', '--limit', '4'],
      {},
    );
    expect(reset.json).toEqual({ limit: 4, used: 4 });
    const refused = await client.post(FILES, upload(1));
    expect([refused.status, refused.body.message]).toEqual([
      422,
      'The team has reached its quota of 4 uploads; ask for a higher quota.',
    ]);
  });
});

/** A brand at every limit the API takes, of 3-byte characters where text may be any (`seed` varies it). */
const cjk = (length: number, seed: number) =>
  Array.from({ length }, (_, i) => String.fromCharCode(0x4e00 + ((seed * 997 + i) % 20_000))).join('');
const url = (seed: number, i = 0) => `https://example.com/${seed}/${i}/`.padEnd(LIMITS.textLength, 'x');
/** What the run's EventBridge stand-in (which enforces PutEvents' caps) was given for one event id. */
async function busEntry(eventId: string): Promise<{ bytes: number; event: ChangeEvent } | undefined> {
  const response = await fetch(`${process.env.EVENTBRIDGE_ENDPOINT}/entries`);
  const entries = (await response.json()) as Array<{ Source: string; DetailType: string; Detail: string }>;
  const entry = entries.find((given) => (JSON.parse(given.Detail) as ChangeEvent).id === eventId);
  return entry && { bytes: entryBytes(entry), event: JSON.parse(entry.Detail) };
}

/** Waits until the bus has the event (the consumer writes the log first, then publishes). */
async function onTheBus(eventId: string): Promise<{ bytes: number; event: ChangeEvent }> {
  for (let tries = 0; ; tries++) {
    const entry = await busEntry(eventId);
    if (entry || tries > 100) return entry as { bytes: number; event: ChangeEvent };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const largestBrandBody = (seed: number) => ({
  name: cjk(LIMITS.textLength, seed),
  short_description: cjk(LIMITS.textLength, seed + 1),
  website_url: url(seed),
  primary_color: seed % 2 ? '#abcdef' : '#123456',
  secondary_color: seed % 2 ? '#fedcba' : '#654321',
  logo_image: url(seed, 1),
  logo_square_image: url(seed, 2),
  header_image: url(seed, 3),
  footer_image: url(seed, 4),
  social_share_image: url(seed, 5),
  tags: Array.from({ length: LIMITS.brandTags }, (_, i) => cjk(LIMITS.textLength, seed * 1000 + i + 2)),
  social_links: Object.fromEntries(
    Array.from({ length: LIMITS.brandSocialLinks }, (_, i) => [`network${i}`, url(seed, 100 + i)]),
  ),
});

describe(`event size per change: at most ${LIMITS.eventBytes} bytes (300 KiB) as stored`, () => {
  it('the largest brand change the limits allow, computed from them, is 249,551 bytes: it fits whole', () => {
    const event = maximalBrandEvent();
    expect(itemSize(event as unknown as Record<string, unknown>)).toBe(249_551);
    expect(249_551).toBeLessThanOrEqual(LIMITS.eventBytes);
    expect(withinEventBytes(event)).toBe(event);
    // The log adds its key and expiry: still under DynamoDB's 400 KB item.
    expect(LIMITS.eventBytes + 200).toBeLessThan(LIMITS.itemBytes);
  });

  it('an update of a brand at every limit, every field changed, is one whole event in the log', async () => {
    const { teamId, client } = await api.caller();
    const created = await client.post('/api/v1/brands', largestBrandBody(1));
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    const updated = await client.put(`/api/v1/brands/${created.body.id}`, largestBrandBody(2));
    expect(updated.status, updated.text.slice(0, 300)).toBe(200);
    const [event] = await loggedEvents(teamId, 2);
    expect(event?.type).toBe('brand.updated');
    const { data } = event as ChangeEvent;
    expect(data.omitted).toBeUndefined();
    expect(data.object).toEqual(updated.body);
    expect(Object.keys(data.previous_attributes ?? {}).sort()).toEqual(
      [...Object.keys(largestBrandBody(1)), 'updated_at'].sort(),
    );
    const size = itemSize(event as unknown as Record<string, unknown>);
    expect(size).toBeGreaterThan(180_000); // 186,604 bytes here: URLs are ASCII, the API takes no other
    expect(size).toBeLessThanOrEqual(249_551);
    // On the bus whole too: one PutEvents entry of at most 256 KiB.
    const bus = await onTheBus((event as ChangeEvent).id);
    expect(bus.event).toEqual(event);
    expect(bus.bytes).toBeLessThanOrEqual(PUT_EVENTS.bytes);
  });

  it('a brand at every limit in control characters (6 bytes each in JSON): whole in the log, on the bus without its former tags', async () => {
    const { teamId, client } = await api.caller();
    const control = (seed: number) =>
      Array.from({ length: LIMITS.textLength }, (_, i) => String.fromCharCode(1 + ((seed + i) % 30))).join(
        '',
      );
    const body = (seed: number) => ({
      ...largestBrandBody(seed),
      name: `${control(seed)}`.slice(0, LIMITS.textLength - 1) + String(seed),
      short_description: control(seed + 1),
      // Tags are kept once each: three digits make each one its own.
      tags: Array.from(
        { length: LIMITS.brandTags },
        (_, i) => `${seed}${String(i).padStart(2, '0')}${control(i).slice(3)}`,
      ),
    });
    const created = await client.post('/api/v1/brands', body(1));
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    const updated = await client.put(`/api/v1/brands/${created.body.id}`, body(2));
    expect(updated.status, updated.text.slice(0, 300)).toBe(200);
    const [event] = await loggedEvents(teamId, 2);
    expect(event?.data.omitted).toBeUndefined();
    expect(Object.keys(event?.data.previous_attributes ?? {})).toContain('tags');
    const whole = JSON.stringify(event);
    expect(Buffer.byteLength(whole)).toBeGreaterThan(PUT_EVENTS.bytes);
    const bus = await onTheBus((event as ChangeEvent).id);
    expect(bus.event.data.omitted).toEqual(['previous_attributes.tags']);
    expect(bus.event.data.object).toEqual(event?.data.object);
    expect(bus.bytes).toBeLessThanOrEqual(PUT_EVENTS.bytes);
  });

  it("many large events are put on the bus in batches within PutEvents' 256 KiB, in order", async () => {
    const base = maximalBrandEvent();
    const events = Array.from({ length: 12 }, (_, i) => ({
      ...base,
      id: `evt_7_1795599992_${4200 + i}_0`,
      data: {
        object: { ...base.data.object, name: `${i}`.repeat(10) },
        previous_attributes: { tags: ['x'.repeat(90_000)] },
      },
    })) as ChangeEvent[];
    await publishEvents(events);
    const given = await Promise.all(events.map((event) => busEntry(event.id)));
    expect(given.map((entry) => entry?.event.id)).toEqual(events.map((event) => event.id));
    expect(given.every((entry) => entry?.event.data.omitted === undefined)).toBe(true);
  });

  it("a pick list's 256 KiB of options replaced whole: stored without the former options, naming them; the stream goes on", async () => {
    const { teamId, client } = await api.caller();
    // 1,000 options of 262 or 263 bytes: exactly LIMITS.contactFieldOptionsBytes, before and after.
    const options = (base: number) =>
      Array.from(
        { length: LIMITS.contactFieldOptions },
        (_, i) => String.fromCodePoint(base + i) + '漢'.repeat(86) + (i < 144 ? 'ab' : 'a'),
      );
    for (const list of [options(0x4e00), options(0x5e00)]) {
      expect(list.reduce((sum, option) => sum + Buffer.byteLength(option), 0)).toBe(
        LIMITS.contactFieldOptionsBytes,
      );
    }
    const field = await client.post('/api/v1/contact-fields', {
      name: 'Many',
      tag: 'many',
      type: 'pick_list',
      contact_type: 'person',
      options: options(0x4e00),
    });
    expect(field.status, field.text.slice(0, 300)).toBe(201);
    const replaced = await client.put(`/api/v1/contact-fields/${field.body.id}`, {
      options: options(0x5e00),
    });
    expect(replaced.status, replaced.text.slice(0, 300)).toBe(200);
    const renamed = await client.put(`/api/v1/contact-fields/${field.body.id}`, { name: 'After' });
    expect(renamed.status).toBe(200);
    const [rename, replace] = await loggedEvents(teamId, 3);
    expect(replace?.data.omitted).toEqual(['previous_attributes.options']);
    expect(replace?.data.object.options).toEqual(options(0x5e00));
    // A contact field has no updated_at: options were all that changed.
    expect(replace?.data.previous_attributes).toEqual({});
    expect(itemSize(replace as unknown as Record<string, unknown>)).toBeLessThanOrEqual(LIMITS.eventBytes);
    // Whole, it would have been over DynamoDB's item limit: the consumer could never have written it.
    const whole = {
      ...replace,
      data: { ...replace?.data, previous_attributes: { options: options(0x4e00) } },
    };
    expect(itemSize(whole)).toBeGreaterThan(LIMITS.itemBytes);
    expect(rename?.data.previous_attributes).toMatchObject({ name: 'Many' });
    expect(rename?.data.omitted).toBeUndefined();
    // On the bus, even the options alone are over PutEvents' 256 KiB: the id stands for the object there,
    // and the log (GET /api/v1/events/{id}) has it.
    const bus = await onTheBus((replace as ChangeEvent).id);
    expect(bus.event.data).toEqual({
      object: { id: field.body.id },
      previous_attributes: {},
      omitted: ['previous_attributes.options', 'object'],
    });
    expect((await onTheBus((rename as ChangeEvent).id)).event.data).toEqual({
      object: { id: field.body.id },
      previous_attributes: { name: 'Many' },
      omitted: ['object'],
    });
  });

  it('an event whose object alone is over (no resource within the limits is) is stored as its id, saying so', () => {
    const event = maximalBrandEvent();
    const huge = {
      ...event,
      data: { object: { id: 7, note: 'x'.repeat(LIMITS.eventBytes) }, previous_attributes: { name: 'a' } },
    };
    expect(withinEventBytes(huge).data).toEqual({
      object: { id: 7 },
      previous_attributes: { name: 'a' },
      omitted: ['object'],
    });
  });
});

describe('Idempotency-Key records per team', () => {
  it(`at most ${QUOTA_DEFAULTS.idempotency_records_per_day} a UTC day: 20 parallel keyed creates over a bound of 5 make exactly 5, the rest 429 with Retry-After`, async () => {
    const { teamId, client } = await api.caller();
    useSettings({ QUOTAS: '{"idempotency_records_per_day": 5}' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.post('/api/v1/brands', { name: `Keyed ${i}` }, { 'Idempotency-Key': `day-${i}` }),
      ),
    );
    const created = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter((answer) => answer.status === 429);
    expect([created.length, refused.length]).toEqual([5, 15]);
    const secondsToNextDay = 86_400 - (Math.floor(Date.now() / 1000) % 86_400);
    for (const answer of refused) {
      expect(answer.body).toEqual({
        message:
          'The team has used its 5 Idempotency-Key records of the day (UTC); retry after Retry-After, or send the request without a key.',
      });
      const retryAfter = Number(answer.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(secondsToNextDay + 5);
    }
    expect((await client.get('/api/v1/brands')).body).toHaveLength(5);
    // A replay is still answered; a keyed 4xx is refused too (nothing stored); no key is not counted.
    const replayedIndex = answers.findIndex((answer) => answer.status === 201);
    const replay = await client.post(
      '/api/v1/brands',
      { name: `Keyed ${replayedIndex}` },
      { 'Idempotency-Key': `day-${replayedIndex}` },
    );
    expect([replay.status, replay.headers.get('idempotent-replay')]).toEqual([201, 'true']);
    expect((await client.post('/api/v1/brands', {}, { 'Idempotency-Key': 'day-invalid' })).status).toBe(429);
    expect((await client.post('/api/v1/brands', { name: 'Unkeyed' })).status).toBe(201);
    const day = new Date().toISOString().slice(0, 10);
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: idempotencyDayKey(teamId, day), ConsistentRead: true }),
    );
    expect(Item?.records).toBe(5);
  });

  it(`a record is at most ${LIMITS.idempotencyRecordBytes} bytes (256 KiB): the largest create answer the limits allow fits`, async () => {
    // Computed: a brand answer at every limit, its text of control characters (6 bytes each in JSON).
    const control = (length: number, seed: number) =>
      Array.from({ length }, (_, i) => String.fromCharCode(1 + ((seed + i) % 30))).join('');
    const brand = maximalBrand(0);
    const widest = {
      ...brand,
      name: control(LIMITS.textLength, 0),
      short_description: control(LIMITS.textLength, 1),
      tags: (brand.tags as string[]).map((_, i) => control(LIMITS.textLength, i)),
    };
    const record = {
      pk: 'TEAM#999999999999999',
      sk: `IDEMPOTENCY#POST /api/v1/contact-fields#${'f'.repeat(64)}`,
      fingerprint: 'f'.repeat(64),
      expires_at: 2_000_000_000,
      response: { status: 201, body: JSON.stringify(widest), headers: { ETag: `"${'9'.repeat(20)}"` } },
    };
    expect(itemSize(record)).toBe(186_011);
    expect(186_011).toBeLessThanOrEqual(LIMITS.idempotencyRecordBytes);
    // And the record a real create at every limit keeps.
    const { teamId, client } = await api.caller();
    const created = await client.post('/api/v1/brands', largestBrandBody(3), {
      'Idempotency-Key': 'largest',
    });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    const { createHash } = await import('node:crypto');
    const { Item } = await dynamo().send(
      new GetCommand({
        TableName: tableName(),
        Key: idempotencyKey(
          teamId,
          'POST /api/v1/brands',
          createHash('sha256').update('largest').digest('hex'),
        ),
        ConsistentRead: true,
      }),
    );
    expect(Item?.response.body).toBe(created.text);
    expect(itemSize(Item as Record<string, unknown>)).toBeLessThanOrEqual(itemSize(record));
  });
});
