import { rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { GetObjectTaggingCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DeserializeMiddleware } from '@smithy/types';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { config } from '../../shared/config.ts';
import { dynamo } from '../../shared/data/dynamo.ts';
import { listEvents } from '../../shared/data/events.ts';
import { brandKey } from '../../shared/data/keys.ts';
import { setQuota } from '../../shared/data/quotas.ts';
import { ORPHANED_TAG } from '../../shared/domain/public-urls.ts';
import { consumeRecords } from '../../shared/events/stream-consumer.ts';
import { putPrivateFile } from '../../shared/files/library.ts';
import { s3 } from '../../shared/files/s3.ts';
import { LIMITS } from '../../shared/limits.ts';
import { apiClient, newTeam, useApi } from '../support/api.ts';
import {
  fetchBytes,
  GIF,
  JPEG,
  PNG,
  pngOfSize,
  SVG_WITH_SCRIPT,
  uploadFile,
  WEBP,
} from '../support/images.ts';
import { roundTrips } from '../support/round-trips.ts';
import { type Synthesized, synthesize } from '../support/synth.ts';
import { idOf } from '../support/template.ts';

/**
 * Public images are images: what a team can make public through a brand's images. Each case
 * of the issue has its number here; the local stack is real (s3rver, DynamoDB Local), the lifecycle rule
 * that deletes orphaned copies is AWS's (s3rver has none), so it is read from the template.
 */
const api = useApi();
const BRANDS = '/api/v1/brands';
const MiB = 1024 * 1024;

/** Every key of the team's public brand images: what the team has made public. */
async function publicCopies(teamId: number): Promise<string[]> {
  const { Contents } = await s3().send(
    new ListObjectsV2Command({ Bucket: config.publicBucket(), Prefix: `brands/${teamId}/` }),
  );
  return (Contents ?? []).map((object) => object.Key as string).sort();
}

/** The S3 calls this process makes while `action` runs, by command name (a wrapper, nothing mocked). */
const S3_CALLS = 'count-s3-calls';
async function s3Calls<T>(action: () => Promise<T>): Promise<{ result: T; calls: string[] }> {
  const calls: string[] = [];
  s3().middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(context.commandName ?? '?');
      return next(args);
    },
    { step: 'initialize', name: S3_CALLS },
  );
  try {
    return { result: await action(), calls };
  } finally {
    s3().middlewareStack.remove(S3_CALLS);
  }
}

/**
 * The real S3 client of this process answers the commands whose name matches with S3's error answer
 * (XML with the code), beneath the SDK's retries and its deserializer: a fault injected, nothing mocked.
 */
const FAULT = 'answer-s3';
function answerS3(command: RegExp, answer: { status: number; code: string }): void {
  // biome-ignore lint/suspicious/noExplicitAny: one middleware for every command of the client.
  const middleware: DeserializeMiddleware<any, any> = (next, context) => async (args) => {
    if (!command.test(context.commandName ?? '')) return next(args);
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${answer.code}</Code><Message>injected</Message></Error>`;
    return {
      response: {
        statusCode: answer.status,
        headers: { 'content-type': 'application/xml' },
        body: Readable.from([Buffer.from(xml)]),
      },
      output: undefined,
    };
  };
  s3().middlewareStack.add(middleware, { step: 'deserialize', priority: 'low', name: FAULT });
}
afterEach(() => {
  s3().middlewareStack.remove(FAULT);
});

describe('any image/* upload of any size was made public: each slot has a byte limit', () => {
  it("60 MiB of zeros typed image/png is 422 on the field (over the limit, and no image), read up to the slot's limit in one ranged GET, and nothing is public", async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'zeros.png', Buffer.alloc(60 * MiB), 'image/png');
    const { result: response, calls } = await s3Calls(() =>
      client.post(BRANDS, { name: 'Zeros', social_share_image_path: 'zeros.png' }),
    );
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      social_share_image_path: [
        `The social share image path field must name a file of at most ${2 * MiB} bytes (2048 KiB) for the social share image (this one has ${60 * MiB}).`,
        "The social share image path field must name a PNG, JPEG, GIF or WebP image (the file's bytes are none of them).",
      ],
    });
    // One ranged GET (of at most the slot's limit), no copy.
    expect(calls).toEqual(['GetObjectCommand']);
    expect(await publicCopies(teamId)).toEqual([]);
    expect((await client.get(BRANDS)).body).toEqual([]);
  });

  it('the largest slot (social share, 2 MiB) takes a PNG of exactly its limit and refuses one byte more', async () => {
    const { teamId, client } = await api.caller();
    const limit = LIMITS.brandImageBytes.social_share_image;
    expect(limit).toBe(2 * MiB);
    await putPrivateFile(teamId, 'at-limit.png', pngOfSize(limit), 'image/png');
    await putPrivateFile(teamId, 'over-limit.png', pngOfSize(limit + 1), 'image/png');
    const over = await client.post(BRANDS, { name: 'Over', social_share_image_path: 'over-limit.png' });
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual({
      social_share_image_path: [
        `The social share image path field must name a file of at most ${limit} bytes (2048 KiB) for the social share image (this one has ${limit + 1}).`,
      ],
    });
    expect(await publicCopies(teamId)).toEqual([]);
    const at = await client.post(BRANDS, { name: 'At', social_share_image_path: 'at-limit.png' });
    expect(at.status).toBe(201);
    expect(await fetchBytes(at.body.social_share_image)).toMatchObject({ status: 200, type: 'image/png' });
    expect(await publicCopies(teamId)).toHaveLength(1);
  });

  it('each slot has its own limit: one file named for two slots meets both, each field refused on its own', async () => {
    const { teamId, client } = await api.caller();
    const logoLimit = LIMITS.brandImageBytes.logo_image;
    await putPrivateFile(teamId, 'banner.png', pngOfSize(logoLimit + 1), 'image/png');
    const response = await client.post(BRANDS, {
      name: 'Two slots',
      logo_image_path: 'banner.png',
      header_image_path: 'banner.png',
    });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual(['logo_image_path']);
    expect(response.body.errors.logo_image_path[0]).toContain(`at most ${logoLimit} bytes (256 KiB)`);
    expect(await publicCopies(teamId)).toEqual([]);
    // Within the header's 1 MiB it is a header.
    expect((await client.post(BRANDS, { name: 'Header', header_image_path: 'banner.png' })).status).toBe(201);
  });
});

describe('an SVG with <script> and onload was served as image/svg+xml: SVG is refused', () => {
  it('an SVG typed image/svg+xml is 422 on the field, and nothing is public', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.svg', SVG_WITH_SCRIPT, 'image/svg+xml');
    const response = await client.post(BRANDS, { name: 'Script', logo_image_path: 'logo.svg' });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      logo_image_path: [
        'The logo image path field must name a PNG, JPEG, GIF or WebP image: SVG is not accepted (it can carry script).',
      ],
    });
    // Typed as a PNG, its bytes are still no image.
    await putPrivateFile(teamId, 'svg.png', SVG_WITH_SCRIPT, 'image/png');
    const disguised = await client.post(BRANDS, { name: 'Script', logo_image_path: 'svg.png' });
    expect(disguised.status).toBe(422);
    expect(await publicCopies(teamId)).toEqual([]);
  });
});

describe('the type is judged by the bytes, not the declared Content-Type', () => {
  it('a GIF declared as image/png is 422 naming both (a mismatch is refused, never served as either)', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'gif.png', GIF, 'image/png');
    const response = await client.post(BRANDS, { name: 'Mismatch', header_image_path: 'gif.png' });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      header_image_path: [
        'The header image path field names a GIF image uploaded as image/png: upload it again as image/gif, under a new path.',
      ],
    });
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it('a text file typed image/png is 422 on the field', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'notes.png', Buffer.from('just some text, not an image'), 'image/png');
    const response = await client.post(BRANDS, { name: 'Text', footer_image_path: 'notes.png' });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      footer_image_path: [
        "The footer image path field must name a PNG, JPEG, GIF or WebP image (the file's bytes are none of them).",
      ],
    });
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it('an empty file (S3 answers its range 416 InvalidRange) is 422 on the field, not an outage', async () => {
    // s3rver answers a range of an empty file with a body shorter than it says, so S3's answer is given.
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'empty.png', PNG, 'image/png');
    answerS3(/^GetObject/, { status: 416, code: 'InvalidRange' });
    const response = await client.post(BRANDS, { name: 'Empty', logo_square_image_path: 'empty.png' });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      logo_square_image_path: ['The logo square image path field names an empty file.'],
    });
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it('a real image is served with the type of its bytes (image/jpeg for a JPEG declared image/jpg)', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'photo.jpg', JPEG, 'image/jpg');
    const response = await client.post(BRANDS, { name: 'Photo', header_image_path: 'photo.jpg' });
    expect(response.status).toBe(201);
    expect(await fetchBytes(response.body.header_image)).toEqual({
      status: 200,
      type: 'image/jpeg',
      bytes: JPEG,
    });
  });
});

describe('the public copy was made before the brand was read: now only after the write', () => {
  /** A caller with a good image in its library, and another team's brand. */
  async function setUp() {
    const caller = await api.caller();
    await putPrivateFile(caller.teamId, 'logo.png', PNG, 'image/png');
    const other = await newTeam();
    const theirs = await apiClient(api.url, other.token).post(BRANDS, { name: 'Theirs' });
    return { ...caller, otherBrandId: theirs.body.id as number };
  }

  it("a PUT to another team's brand id is 403 and publishes nothing", async () => {
    const { teamId, client, otherBrandId } = await setUp();
    const response = await client.put(`${BRANDS}/${otherBrandId}`, { logo_image_path: 'logo.png' });
    expect(response.status).toBe(403);
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it('a PUT to a brand that does not exist is 404 and publishes nothing', async () => {
    const { teamId, client } = await setUp();
    const response = await client.put(`${BRANDS}/999999999`, { header_image_path: 'logo.png' });
    expect(response.status).toBe(404);
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it('a PUT with a stale If-Match is 412 and publishes nothing (in place and in a transaction)', async () => {
    const { teamId, client } = await setUp();
    const brand = await client.post(BRANDS, { name: 'Mine' });
    const etag = brand.headers.get('etag') as string;
    expect((await client.put(`${BRANDS}/${brand.body.id}`, { name: 'Changed' })).status).toBe(200);
    const inPlace = await client.put(
      `${BRANDS}/${brand.body.id}`,
      { logo_image_path: 'logo.png' },
      { 'If-Match': etag },
    );
    expect(inPlace.status).toBe(412);
    const inTransaction = await client.put(
      `${BRANDS}/${brand.body.id}`,
      { logo_image_path: 'logo.png', is_default: true },
      { 'If-Match': etag },
    );
    expect(inTransaction.status).toBe(412);
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it('a 422 found at the write (an identity that is not verified) publishes nothing, on create and update', async () => {
    const { teamId, client } = await setUp();
    const created = await client.post(BRANDS, {
      name: 'Unverified',
      logo_image_path: 'logo.png',
      email_address_id: 999999,
    });
    expect(created.status).toBe(422);
    expect(Object.keys(created.body.errors)).toEqual(['email_address_id']);
    const brand = await client.post(BRANDS, { name: 'Mine' });
    const updated = await client.put(`${BRANDS}/${brand.body.id}`, {
      logo_image_path: 'logo.png',
      phone_id: 999999,
    });
    expect(updated.status).toBe(422);
    expect(Object.keys(updated.body.errors)).toEqual(['phone_id']);
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it('a create refused by the brands quota publishes nothing', async () => {
    const { teamId, client } = await setUp();
    await setQuota(teamId, 'brands', 0);
    const response = await client.post(BRANDS, { name: 'Over quota', logo_image_path: 'logo.png' });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual(['quota']);
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it("ten parallel PUTs to another team's brand, and ten to a missing one, publish nothing", async () => {
    const { teamId, client, otherBrandId } = await setUp();
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () =>
        client.put(`${BRANDS}/${otherBrandId}`, { logo_image_path: 'logo.png' }),
      ),
      ...Array.from({ length: 10 }, () => client.put(`${BRANDS}/999999998`, { logo_image_path: 'logo.png' })),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([
      ...Array(10).fill(403),
      ...Array(10).fill(404),
    ]);
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it('the success path makes the same calls as before: one ranged GET and one copy per file; DynamoDB unchanged', async () => {
    const { teamId, client } = await setUp();
    const brand = await client.post(BRANDS, { name: 'Counted' });
    const { result, calls } = await s3Calls(() =>
      roundTrips(() =>
        client.put(`${BRANDS}/${brand.body.id}`, {
          logo_image_path: 'logo.png',
          header_image_path: 'logo.png',
        }),
      ),
    );
    expect(result.result.status).toBe(200);
    expect(calls).toEqual(['GetObjectCommand', 'CopyObjectCommand']);
    expect(result.calls).toEqual(['UpdateItemCommand']);
    expect(await publicCopies(teamId)).toHaveLength(1);
  });
});

describe('a copy that fails after the write undoes the write', () => {
  it('an update that also made the brand the default is undone: fields and default as before, a new ETag and time', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
    const first = await client.post(BRANDS, { name: 'First', is_default: true });
    const brand = await client.post(BRANDS, { name: 'Before', tags: ['a'] });
    // The file changed between its check and its copy (CopySourceIfMatch failed).
    answerS3(/^CopyObject/, { status: 412, code: 'PreconditionFailed' });
    const response = await client.put(`${BRANDS}/${brand.body.id}`, {
      name: 'After',
      tags: ['b'],
      is_default: true,
      logo_image_path: 'logo.png',
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      logo_image_path: [
        'The logo image path field names a file that changed while it was being copied: send the request again.',
      ],
    });
    const after = await client.get(`${BRANDS}/${brand.body.id}`);
    // The undoing is a write of its own: a later time, never one before the write it undid.
    expect(after.body).toEqual({ ...brand.body, updated_at: after.body.updated_at });
    expect(after.body.updated_at > brand.body.updated_at).toBe(true);
    expect(after.headers.get('etag')).not.toBe(brand.headers.get('etag'));
    expect((await client.get(`${BRANDS}/${first.body.id}`)).body.is_default).toBe(true);
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it('a keyed create whose copy meets an outage is undone with its Idempotency-Key record: 503, and the retry creates it once', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
    const headers = { 'Idempotency-Key': `images-${crypto.randomUUID()}` };
    const body = { name: 'Outage', logo_image_path: 'logo.png', is_default: true };
    answerS3(/^CopyObject/, { status: 503, code: 'SlowDown' });
    const failed = await client.post(BRANDS, body, headers);
    expect(failed.status).toBe(503);
    expect((await client.get(BRANDS)).body).toEqual([]);
    expect((await client.get('/api/v1/limits')).body.quotas.brands.used).toBe(0);
    s3().middlewareStack.remove(FAULT);
    const retried = await client.post(BRANDS, body, headers);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replay')).toBeNull();
    expect(await fetchBytes(retried.body.logo_image)).toEqual({ status: 200, type: 'image/png', bytes: PNG });
    const replay = await client.post(BRANDS, body, headers);
    expect(replay.text).toBe(retried.text);
    expect((await client.get(BRANDS)).body).toEqual([retried.body]);
  });
});

describe('public copies no brand names any longer are removed', () => {
  /** The stream record of a write, from the item as read before and after it: what the consumer reads. */
  const recordOf = (before?: Record<string, unknown>, after?: Record<string, unknown>): DynamoDBRecord => ({
    eventName: before && after ? 'MODIFY' : after ? 'INSERT' : 'REMOVE',
    dynamodb: {
      SequenceNumber: String(Date.now()),
      ApproximateCreationDateTime: Date.now() / 1000,
      ...(before && { OldImage: marshall(before, { removeUndefinedValues: true }) as never }),
      ...(after && { NewImage: marshall(after, { removeUndefinedValues: true }) as never }),
    },
  });
  const item = async (teamId: number, brandId: number) =>
    (
      await dynamo().send(
        new GetCommand({
          TableName: config.tableName(),
          Key: brandKey(teamId, brandId),
          ConsistentRead: true,
        }),
      )
    ).Item;
  const tags = async (key: string) =>
    (await s3().send(new GetObjectTaggingCommand({ Bucket: config.publicBucket(), Key: key }))).TagSet ?? [];
  /** Runs `write` and hands its stream record to the consumer (events are published nowhere). */
  /**
   * The write, once the run's own stream consumer has taken it (its event is logged: every record before
   * it is taken too, so none of them marks or unmarks afterwards), then its record consumed here, where
   * its S3 calls can be counted.
   */
  async function consumed(teamId: number, brandId: number, write: () => Promise<{ headers: Headers }>) {
    const before = await item(teamId, brandId);
    const requestId = (await write()).headers.get('x-request-id');
    await vi.waitFor(
      async () => {
        const { items } = await listEvents(teamId, {}, { limit: 200 });
        expect(items.map((event) => event.request_id)).toContain(requestId);
      },
      { timeout: 30_000, interval: 100 },
    );
    const result = await consumeRecords([recordOf(before, await item(teamId, brandId))], async () => {});
    expect(result.batchItemFailures).toEqual([]);
  }

  it('a copy is marked (new creation date, the orphaned tag) when the last brand naming it drops it, and unmarked when one names it again', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
    const a = (await client.post(BRANDS, { name: 'A', logo_image_path: 'logo.png' })).body;
    const b = (await client.post(BRANDS, { name: 'B', header_image_path: 'logo.png' })).body;
    const [key] = await publicCopies(teamId);
    expect(a.logo_image).toBe(`${config.publicBaseUrl()}/${key}`);

    // A drops it, B still names it: kept, unmarked.
    await consumed(teamId, a.id, () => client.put(`${BRANDS}/${a.id}`, { logo_image: null }));
    expect(await tags(key as string)).toEqual([]);

    // B is deleted: nothing names it; marked, and copied onto itself so that its grace period starts now
    // (in S3 the copy is a new object with a new creation date; s3rver keeps the old date).
    const { calls } = await s3Calls(() => consumed(teamId, b.id, () => client.delete(`${BRANDS}/${b.id}`)));
    expect(calls).toEqual(['HeadObjectCommand', 'CopyObjectCommand', 'PutObjectTaggingCommand']);
    expect(await tags(key as string)).toEqual([ORPHANED_TAG]);
    const marked = await s3().send(new HeadObjectCommand({ Bucket: config.publicBucket(), Key: key }));
    expect(marked.Metadata?.['orphaned-at']).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Still served meanwhile, as it was: mails already sent show it.
    expect(await fetchBytes(a.logo_image)).toEqual({ status: 200, type: 'image/png', bytes: PNG });
    expect(marked.CacheControl).toBe('public, max-age=31536000, immutable');

    // A names it again by its URL (as a client sends a read brand back): unmarked.
    await consumed(teamId, a.id, () => client.put(`${BRANDS}/${a.id}`, { logo_image: a.logo_image }));
    expect(await tags(key as string)).toEqual([]);
  });

  it('a copy already gone (an undone write) and another item are nothing to mark', async () => {
    const { teamId, client } = await api.caller();
    const brand = (await client.post(BRANDS, { name: 'Gone' })).body;
    const stored = await item(teamId, brand.id);
    const gone = { ...stored, logo_image: `brands/${teamId}/${'0'.repeat(32)}/gone.png` };
    const result = await consumeRecords([recordOf(gone, stored)], async () => {});
    expect(result.batchItemFailures).toEqual([]);
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it("a copy can only be the team's own: another team's key is never marked", async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
    const mine = (await client.post(BRANDS, { name: 'Mine', logo_image_path: 'logo.png' })).body;
    const other = await apiClient(api.url, (await newTeam()).token);
    // Another team sends our URL: it stays a URL on its brand (public-urls.ts), not one of its keys.
    const theirs = (await other.post(BRANDS, { name: 'Theirs', logo_image: mine.logo_image })).body;
    const [key] = await publicCopies(teamId);
    await consumed(theirs.team_id, theirs.id, () => other.delete(`${BRANDS}/${theirs.id}`));
    expect(await tags(key as string)).toEqual([]);
    expect(await publicCopies(teamId)).toEqual([key]);
  });
});

describe('a PNG header followed by a page was published under the name the caller chose: the whole file must be one image, named by its type', () => {
  /** A real PNG signature and IHDR chunk, then a web page: what the type check of the first bytes let through. */
  const POLYGLOT = Buffer.concat([
    PNG.subarray(0, 33),
    Buffer.from(
      `<!DOCTYPE html><html><body><script>alert(document.domain)</script>${'x'.repeat(1000)}</body></html>`,
    ),
  ]);

  it('a PNG header and a page uploaded as evil.html is 422 on the field, on create and update, and nothing is written or public', async () => {
    const { teamId, client } = await api.caller();
    await uploadFile(client, 'evil.html', POLYGLOT, 'image/png');
    const { result: created, calls } = await s3Calls(() =>
      client.post(BRANDS, { name: 'Polyglot', logo_image_path: 'evil.html' }),
    );
    expect(created.status).toBe(422);
    expect(created.body.errors).toEqual({
      logo_image_path: [
        'The logo image path field names a file that is not a well-formed PNG: the file ends inside a chunk.',
      ],
    });
    expect(calls).toEqual(['GetObjectCommand']);
    expect((await client.get(BRANDS)).body).toEqual([]);

    const brand = await client.post(BRANDS, { name: 'Kept' });
    const updated = await client.put(`${BRANDS}/${brand.body.id}`, { social_share_image_path: 'evil.html' });
    expect(updated.status).toBe(422);
    expect(Object.keys(updated.body.errors)).toEqual(['social_share_image_path']);
    const after = await client.get(`${BRANDS}/${brand.body.id}`);
    expect(after.body).toEqual(brand.body);
    expect(after.headers.get('etag')).toBe(brand.headers.get('etag'));
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it.each([
    [
      'a page after a whole PNG',
      Buffer.concat([PNG, Buffer.from('<html><script>alert(1)</script></html>')]),
      'image/png',
      'names a file that is not a well-formed PNG: data after the IEND chunk.',
    ],
    [
      'a page after a whole GIF',
      Buffer.concat([GIF, Buffer.from('<html>')]),
      'image/gif',
      'names a file that is not a well-formed GIF: data after the trailer.',
    ],
    [
      'a JPEG cut short',
      JPEG.subarray(0, -2),
      'image/jpeg',
      'names a file that is not a well-formed JPEG: the file ends inside scan data.',
    ],
    [
      'a page in a PNG text chunk',
      withPngText(PNG, 'Comment\0<script>alert(1)</script>'),
      'image/png',
      'names a PNG image with markup in a text chunk (tEXt): export it again without text metadata.',
    ],
  ])('7b. %s is 422 saying what is wrong, and nothing is public', async (_case, bytes, type, message) => {
    const { teamId, client } = await api.caller();
    await uploadFile(client, 'image', bytes, type);
    const response = await client.post(BRANDS, { name: 'Refused', header_image_path: 'image' });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ header_image_path: [`The header image path field ${message}`] });
    expect((await client.get(BRANDS)).body).toEqual([]);
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it.each([
    ['a PNG uploaded as logo.html', 'logo.html', PNG, 'image/png', 'logo.png'],
    ['a JPEG uploaded as photo.JPEG', 'photo.JPEG', JPEG, 'image/jpeg', 'photo.jpg'],
    ['a GIF uploaded as banner.gif.html', 'banner.gif.html', GIF, 'image/gif', 'banner.gif.gif'],
    ['a WebP uploaded with no extension', 'brand/mark', WEBP, 'image/webp', 'mark.webp'],
  ])('7c. %s is published under a name ending with its type', async (_case, path, bytes, type, name) => {
    const { teamId, client } = await api.caller();
    await uploadFile(client, path, bytes, type);
    const response = await client.post(BRANDS, { name: 'Renamed', logo_image_path: path });
    expect(response.status).toBe(201);
    const [key] = await publicCopies(teamId);
    expect(key).toMatch(new RegExp(`^brands/${teamId}/[0-9a-f]{32}/${name.replaceAll('.', '\\.')}$`));
    expect(response.body.logo_image).toBe(`${config.publicBaseUrl()}/${key}`);
    expect(await fetchBytes(response.body.logo_image)).toEqual({ status: 200, type, bytes });
  });
});

/** The PNG with a tEXt chunk of `data` (keyword, NUL, text) before IEND, its CRC-32 right. */
function withPngText(png: Buffer, data: string): Buffer {
  const body = Buffer.from(`tEXt${data}`, 'latin1');
  const chunk = Buffer.alloc(body.length + 8);
  chunk.writeUInt32BE(body.length - 4, 0);
  body.copy(chunk, 4);
  chunk.writeUInt32BE(crc32(body), body.length + 4);
  return Buffer.concat([png.subarray(0, -12), chunk, png.subarray(-12)]);
}

describe('the lifecycle rule that deletes marked copies (AWS enforces it; read from the template)', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize({ full: false });
  });
  afterAll(() => {
    if (synth) rmSync(synth.outdir, { recursive: true, force: true });
  });

  it(`expires public brand images tagged orphaned=true ${LIMITS.orphanedImageDays} days after they were marked`, () => {
    const bucket = synth.template.toJSON().Resources[idOf(synth, synth.stack.publicFiles)];
    expect(bucket.Properties.LifecycleConfiguration.Rules).toContainEqual({
      Id: 'OrphanedBrandImages',
      Prefix: 'brands/',
      TagFilters: [{ Key: 'orphaned', Value: 'true' }],
      ExpirationInDays: 30,
      Status: 'Enabled',
    });
    expect(LIMITS.orphanedImageDays).toBe(30);
  });
});
