import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { CopyObjectCommand, DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DeserializeMiddleware } from '@smithy/types';
import { afterEach, describe, expect, it } from 'vitest';
import { config } from '../../../shared/config.ts';
import { dynamo } from '../../../shared/data/dynamo.ts';
import { brandKey } from '../../../shared/data/keys.ts';
import { privateObjectKey, putPrivateFile } from '../../../shared/files/library.ts';
import { s3 } from '../../../shared/files/s3.ts';
import { MESSAGES } from '../../../shared/http/messages.ts';
import { TIMEOUTS } from '../../../shared/limits.ts';
import { apiClient, newTeam, useApi } from '../../support/api.ts';
import { fetchBytes, GIF, PNG, PNG_2X1, uploadFile } from '../../support/images.ts';
import { pathOfBytes } from '../../support/library-paths.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';

const api = useApi();

const BRANDS = '/api/v1/brands';
const FILES = '/api/v1/files';

/** Keys of the team's public brand images. */
async function publicCopies(teamId: number): Promise<string[]> {
  const { Contents } = await s3().send(
    new ListObjectsV2Command({ Bucket: config.publicBucket(), Prefix: `brands/${teamId}/` }),
  );
  return (Contents ?? []).map((object) => object.Key as string);
}

/**
 * New bytes for a path, as an operator would give them: a library file is written once (the private
 * bucket's policy), so a path takes a new file only once its file is deleted.
 */
async function replacePrivateFile(teamId: number, path: string, bytes: Buffer): Promise<void> {
  await s3().send(
    new DeleteObjectCommand({ Bucket: config.privateBucket(), Key: privateObjectKey(teamId, path) }),
  );
  await putPrivateFile(teamId, path, bytes, 'image/png');
}

/** Keys in the team's private library. */
async function privateFiles(teamId: number): Promise<string[]> {
  const { Contents } = await s3().send(
    new ListObjectsV2Command({ Bucket: config.privateBucket(), Prefix: `teams/${teamId}/` }),
  );
  return (Contents ?? []).map((object) => object.Key as string);
}

describe('the files endpoint', () => {
  it('hands out a presigned PUT URL; the uploaded file becomes a brand logo with a fetchable public URL', async () => {
    const { teamId, client } = await api.caller();
    const upload = await client.post(FILES, {
      path: 'logos/main logo.png',
      content_type: 'image/png',
      size: PNG.length,
    });
    expect(upload.status).toBe(200);
    expect(upload.body).toEqual({
      path: 'logos/main logo.png',
      upload_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/.+X-Amz-Signature=/),
      method: 'PUT',
      headers: { 'Content-Type': 'image/png', 'If-None-Match': '*' },
      expires_in: 900,
    });
    expect(upload.body.upload_url).toContain(`/teams/${teamId}/logos/main%20logo.png?`);
    expect(upload.body.upload_url).not.toContain('x-amz-checksum');

    const put = await fetch(upload.body.upload_url, {
      method: 'PUT',
      headers: upload.body.headers,
      body: PNG,
    });
    expect(put.status).toBe(200);

    const brand = await client.post(BRANDS, { name: 'Uploaded', logo_image_path: 'logos/main logo.png' });
    expect(brand.status).toBe(201);
    const url: string = brand.body.logo_image;
    expect(url).toMatch(
      new RegExp(`^${config.publicBaseUrl()}/brands/${teamId}/[0-9a-f]{32}/main-logo\\.png$`),
    );
    expect(url.length).toBeLessThanOrEqual(255);
    expect(await fetchBytes(url)).toEqual({ status: 200, type: 'image/png', bytes: PNG });
    // A public URL never changes content, so it may be cached for good.
    expect((await fetch(url)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(brand.body).not.toHaveProperty('logo_image_path');
  });

  it('signs the Content-Type, and a file stored with another type is no brand image', async () => {
    const { client } = await api.caller();
    const upload = await client.post(FILES, { path: 'a.png', content_type: 'image/png', size: 25 });
    // In AWS, S3 refuses a PUT whose Content-Type differs from the signed one; s3rver does not check V4
    // signatures, so here the stored type is what the brand endpoints must check.
    expect(new URL(upload.body.upload_url).searchParams.get('X-Amz-SignedHeaders')).toBe(
      'content-length;content-type;host;if-none-match',
    );
    const put = await fetch(upload.body.upload_url, {
      method: 'PUT',
      headers: { 'Content-Type': 'text/html' },
      body: '<script>alert(1)</script>',
    });
    expect(put.status).toBe(200);
    const brand = await client.post(BRANDS, { name: 'X', logo_image_path: 'a.png' });
    expect(brand.status).toBe(422);
    expect(brand.body.errors).toEqual({
      logo_image_path: ['The logo image path field must name an image file (this one is text/html).'],
    });
  });

  // One escape here; test/shared/domain/library-path.test.ts checks every rule of a library path.
  it('refuses a path that could leave the library', async () => {
    const { client } = await api.caller();
    const response = await client.post(FILES, { path: '../secret.png', content_type: 'image/png', size: 1 });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual(['path']);
  });

  it.each([
    [{ path: 'a.png', size: 1 }, 'content_type'],
    [{ path: 'a.png', content_type: 'png', size: 1 }, 'content_type'],
    [{ path: 'a.png', content_type: 'image/png; x', size: 1 }, 'content_type'],
    [{ content_type: 'image/png', size: 1 }, 'path'],
  ])('refuses %j with 422 on %s', async (body, field) => {
    const { client } = await api.caller();
    const response = await client.post(FILES, body);
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual([field]);
  });

  it('refuses a misspelled key, naming it and the field, and ignores others', async () => {
    const { client } = await api.caller();
    const response = await client.post(FILES, { path: 'a.png', contentType: 'image/png', size: 1 });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      contentType: ['Unknown field contentType: did you mean content_type?'],
      content_type: ['The content type field is required.'],
    });
    const ignored = await client.post(FILES, {
      path: 'a.png',
      content_type: 'image/png',
      size: 1,
      file: 'a.png',
    });
    expect(ignored.status).toBe(200);
  });

  it('accepts a MIME type with parameters', async () => {
    const { client } = await api.caller();
    const response = await client.post(FILES, {
      path: 'notes.txt',
      content_type: 'text/plain; charset=utf-8',
      size: 1,
    });
    expect(response.status).toBe(200);
    expect(response.body.headers).toEqual({
      'Content-Type': 'text/plain; charset=utf-8',
      'If-None-Match': '*',
    });
  });
});

describe('brand images in the path form', () => {
  it('copies every slot, prefers the path over the URL, and gives each file version one public URL', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'img/logo.png', PNG, 'image/png');
    await putPrivateFile(teamId, 'img/banner.gif', GIF, 'image/gif');
    const response = await client.post(BRANDS, {
      name: 'All slots',
      logo_image: 'https://cdn.example/ignored.png',
      logo_image_path: 'img/logo.png',
      logo_square_image_path: 'img/logo.png',
      header_image_path: 'img/banner.gif',
      footer_image_path: 'img/banner.gif',
      social_share_image_path: 'img/logo.png',
    });
    expect(response.status).toBe(201);
    const brand = response.body;
    expect(brand.logo_image).not.toContain('cdn.example');
    // One copy per distinct file.
    expect(brand.logo_square_image).toBe(brand.logo_image);
    expect(brand.footer_image).toBe(brand.header_image);
    expect((await publicCopies(teamId)).sort()).toEqual(
      [brand.logo_image, brand.header_image]
        .map((url: string) => url.slice(config.publicBaseUrl().length + 1))
        .sort(),
    );
    expect(await fetchBytes(brand.header_image)).toMatchObject({ status: 200, type: 'image/gif' });

    // The same file version again is the same public object; a new version is a new URL.
    const again = await client.put(`${BRANDS}/${brand.id}`, { logo_image_path: 'img/logo.png' });
    expect(again.body.logo_image).toBe(brand.logo_image);
    await replacePrivateFile(teamId, 'img/logo.png', PNG_2X1);
    const updated = await client.put(`${BRANDS}/${brand.id}`, {
      logo_image_path: 'img/logo.png',
      header_image: null,
    });
    expect(updated.status).toBe(200);
    expect(updated.body.logo_image).not.toBe(brand.logo_image);
    expect(updated.body.header_image).toBeNull();
    expect(updated.body.footer_image).toBe(brand.footer_image);
    expect(await fetchBytes(updated.body.logo_image)).toMatchObject({ status: 200, bytes: PNG_2X1 });
    expect(await fetchBytes(brand.logo_image)).toMatchObject({ status: 200, bytes: PNG });
  });

  it('refuses a missing file and a file that is not an image, naming each field, and copies nothing', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'ok.png', PNG, 'image/png');
    await putPrivateFile(teamId, 'doc.pdf', Buffer.from('%PDF-1.4'), 'application/pdf');
    const response = await client.post(BRANDS, {
      name: 'Bad files',
      logo_image_path: 'ok.png',
      header_image_path: 'missing.png',
      footer_image_path: 'doc.pdf',
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      header_image_path: ['The header image path field must name a file in your file library.'],
      footer_image_path: [
        'The footer image path field must name an image file (this one is application/pdf).',
      ],
    });
    expect(await publicCopies(teamId)).toEqual([]);
    expect((await client.get(BRANDS)).body).toEqual([]);
  });

  it('cannot reach another team library', async () => {
    const { client } = await api.caller();
    const other = await newTeam();
    await putPrivateFile(other.teamId, 'theirs.png', PNG, 'image/png');
    const response = await client.post(BRANDS, { name: 'Thief', logo_image_path: 'theirs.png' });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual(['logo_image_path']);
    const escaped = await client.post(BRANDS, {
      name: 'Thief',
      logo_image_path: `../${other.teamId}/theirs.png`,
    });
    expect(escaped.status).toBe(422);
  });

  // One escape here; test/shared/domain/library-path.test.ts checks every escape on every brand path field.
  it('refuses a brand path that could leave the library, on create and update', async () => {
    const path = 'a/../../b.png';
    const { teamId, client } = await api.caller();
    const created = await client.post(BRANDS, { name: 'Escape', social_share_image_path: path });
    expect(created.status).toBe(422);
    expect(Object.keys(created.body.errors)).toEqual(['social_share_image_path']);
    expect(created.body.errors.social_share_image_path[0]).toMatch(/^The social share image path /);
    const brand = (await client.post(BRANDS, { name: 'Escape' })).body;
    const updated = await client.put(`${BRANDS}/${brand.id}`, { logo_square_image_path: path });
    expect(updated.status).toBe(422);
    expect(Object.keys(updated.body.errors)).toEqual(['logo_square_image_path']);
    expect(await publicCopies(teamId)).toEqual([]);
  });
});

describe('failures half way', () => {
  const restores: Array<() => void> = [];
  afterEach(() => {
    for (const restore of restores.splice(0)) restore();
  });

  /** Makes the real client's next `send` of the given command class throw, once. */
  function failOnce(
    client: { send: (...args: unknown[]) => unknown },
    commandClass: abstract new (...args: never[]) => unknown,
  ) {
    const original = client.send;
    let failed = false;
    client.send = function (this: unknown, ...args: unknown[]) {
      if (!failed && args[0] instanceof commandClass) {
        failed = true;
        return Promise.reject(Object.assign(new Error('injected fault'), { name: 'InternalError' }));
      }
      return original.apply(this, args);
    } as typeof client.send;
    restores.push(() => {
      client.send = original;
    });
    return () => failed;
  }

  it('answers an S3 failure with a JSON 500 and writes no brand', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
    const injected = failOnce(s3() as never, CopyObjectCommand);
    const response = await client.post(BRANDS, { name: 'S3 down', logo_image_path: 'logo.png' });
    expect(injected()).toBe(true);
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ message: 'Server Error' });
    expect(response.headers.get('content-type')).toContain('application/json');
    expect((await client.get(BRANDS)).body).toEqual([]);
  });

  it('answers a DynamoDB failure at the write with a JSON 500, no brand and no public copy (the copy follows the write)', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
    const injected = failOnce(dynamo() as never, TransactWriteCommand);
    const response = await client.post(BRANDS, { name: 'DB down', logo_image_path: 'logo.png' });
    expect(injected()).toBe(true);
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ message: 'Server Error' });
    expect((await client.get(BRANDS)).body).toEqual([]);
    expect(await publicCopies(teamId)).toEqual([]);
    // The next attempt works.
    expect((await client.post(BRANDS, { name: 'DB back', logo_image_path: 'logo.png' })).status).toBe(201);
  });
});

/** S3 holds names of 255 bytes and keys of 1,024; so must the local stack (lib/local/services.ts). */
describe("names and keys at the file library's limits", () => {
  it.each([
    ['names of 255 ASCII bytes', `${'a'.repeat(255)}/${'b'.repeat(251)}.png`],
    ['names of 255 CJK and emoji bytes', `${'漢'.repeat(85)}/${'😀'.repeat(62)}abc.png`],
    ['the longest path, 1,002 bytes (1,024 with the largest team id)', `${pathOfBytes('a', 998)}.png`],
  ])('%s are uploaded and become a brand logo with a public URL', async (_kind, path) => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'ok.png', PNG, 'image/png');
    await uploadFile(client, path, PNG, 'image/png');
    expect((await privateFiles(teamId)).length).toBe(2);
    const brand = await client.post(BRANDS, { name: 'Long names', logo_image_path: path });
    expect(brand.status).toBe(201);
    expect(await fetchBytes(brand.body.logo_image)).toEqual({ status: 200, type: 'image/png', bytes: PNG });
    const again = await client.put(`${BRANDS}/${brand.body.id}`, { header_image_path: path });
    expect(again.status).toBe(200);
    expect(again.body.header_image).toBe(brand.body.logo_image);
  });
});

/**
 * Paths the file library refuses (README, "Limits and errors"). s3rver keeps objects as files: before the
 * rules, each reached it and the file system refused the name (or the whole key exceeded S3's), which
 * s3rver answers with a 500 and the API with a 503, while S3 in AWS answered otherwise.
 */
const REFUSED_PATHS = [
  ['255 CJK characters in a name', `logos/${'漢'.repeat(255)}.png`],
  ['100 emoji in a name', `${'😀'.repeat(100)}.png`],
  ['a 256-byte ASCII name', `logos/${'a'.repeat(252)}.png`],
  ['a key that fits alone but not with the team prefix', `${pathOfBytes('a', 1016)}.png`],
] as const;

const FAULT = 'injected-s3-answer';
afterEach(() => {
  s3().middlewareStack.remove(FAULT);
});

/**
 * The real S3 client of this process: every command whose name matches gets `answer` (or, without one,
 * goes to S3 as usual), beneath the SDK's retries and its deserializer, which reads the answer as it would
 * read S3's own. Returns the number of matching commands sent.
 */
function interceptS3(command: RegExp, answer?: { status: number; code?: string }): { calls: () => number } {
  let calls = 0;
  // biome-ignore lint/suspicious/noExplicitAny: one middleware for every command of the client.
  const middleware: DeserializeMiddleware<any, any> = (next, context) => async (args) => {
    if (!command.test(context.commandName ?? '')) return next(args);
    calls++;
    if (!answer) return next(args);
    // An error answer of S3: XML with the code, or nothing at all for a HEAD.
    const xml = answer.code
      ? `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${answer.code}</Code><Message>${answer.code} (injected)</Message></Error>`
      : '';
    const headers: Record<string, string> = answer.code ? { 'content-type': 'application/xml' } : {};
    return {
      response: { statusCode: answer.status, headers, body: Readable.from([Buffer.from(xml)]) },
      output: undefined,
    };
  };
  s3().middlewareStack.add(middleware, { step: 'deserialize', priority: 'low', name: FAULT });
  return { calls: () => calls };
}

describe("the file library's rules, checked before any S3 call", () => {
  it.each(REFUSED_PATHS)('POST /files with %s is 422 on path, and no upload URL', async (_kind, path) => {
    const { teamId, client } = await api.caller();
    const sent = interceptS3(/./);
    const response = await client.post(FILES, { path, content_type: 'image/png', size: 1 });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual(['path']);
    expect(response.body).not.toHaveProperty('upload_url');
    expect(sent.calls()).toBe(0);
    expect(await privateFiles(teamId)).toEqual([]);
  });

  it.each(REFUSED_PATHS)(
    'a brand create with %s is 422 on the field, and creates nothing',
    async (_kind, path) => {
      const { teamId, client } = await api.caller();
      // A file in the library: its folder exists, which is when s3rver's file system met the name.
      await putPrivateFile(teamId, 'ok.png', PNG, 'image/png');
      const sent = interceptS3(/./);
      const response = await client.post(BRANDS, {
        name: 'Long path',
        logo_square_image_path: 'ok.png',
        logo_image_path: path,
      });
      expect(response.status).toBe(422);
      expect(Object.keys(response.body.errors)).toEqual(['logo_image_path']);
      expect(response.body.errors.logo_image_path[0]).toMatch(/^The logo image path must not /);
      expect(sent.calls()).toBe(0);
      expect((await client.get(BRANDS)).body).toEqual([]);
      expect(await publicCopies(teamId)).toEqual([]);
    },
  );

  it.each(REFUSED_PATHS)(
    'a brand update with %s is 422 on the field, and changes nothing',
    async (_kind, path) => {
      const { teamId, client } = await api.caller();
      await putPrivateFile(teamId, 'ok.png', PNG, 'image/png');
      const brand = await client.post(BRANDS, { name: 'Before', logo_image_path: 'ok.png' });
      expect(brand.status).toBe(201);
      const sent = interceptS3(/./);
      const response = await client.put(`${BRANDS}/${brand.body.id}`, {
        name: 'After',
        header_image_path: path,
      });
      expect(response.status).toBe(422);
      expect(Object.keys(response.body.errors)).toEqual(['header_image_path']);
      expect(sent.calls()).toBe(0);
      const after = await client.get(`${BRANDS}/${brand.body.id}`);
      expect(after.body).toEqual(brand.body);
      expect(after.headers.get('etag')).toBe(brand.headers.get('etag'));
      expect(await publicCopies(teamId)).toHaveLength(1);
    },
  );
});

describe("S3 refusing a caller's file is the caller's 422, never a 503", () => {
  it('the ranged GET answered 400 (what S3 answers a key it cannot hold) is 422 on the field, not retried', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
    const head = interceptS3(/^GetObject/, { status: 400 });
    const response = await client.post(BRANDS, { name: 'Refused', logo_image_path: 'logo.png' });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      logo_image_path: [
        'The logo image path field names a file that cannot be stored or copied (S3: BadRequest).',
      ],
    });
    expect(head.calls()).toBe(1);
    expect((await client.get(BRANDS)).body).toEqual([]);
    expect(await publicCopies(teamId)).toEqual([]);
  });

  it.each([
    ['KeyTooLongError', 400, 'names a file that cannot be stored or copied (S3: KeyTooLongError).'],
    ['InvalidArgument', 400, 'names a file that cannot be stored or copied (S3: InvalidArgument).'],
    ['InvalidRequest', 400, 'names a file that cannot be stored or copied (S3: InvalidRequest).'],
    ['NoSuchKey', 404, 'must name a file in your file library.'],
    [
      'PreconditionFailed',
      412,
      'names a file that changed while it was being copied: send the request again.',
    ],
  ])(
    'a copy answered %s (%i) is 422 on every field naming the file, not retried, and no brand',
    async (code, status, message) => {
      const { teamId, client } = await api.caller();
      await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
      const copy = interceptS3(/^CopyObject/, { status, code });
      const response = await client.post(BRANDS, {
        name: 'Refused copy',
        logo_image_path: 'logo.png',
        logo_square_image_path: 'logo.png',
      });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({
        logo_image_path: [`The logo image path field ${message}`],
        logo_square_image_path: [`The logo square image path field ${message}`],
      });
      expect(copy.calls()).toBe(1);
      expect((await client.get(BRANDS)).body).toEqual([]);
    },
  );

  it('the same on an update: 422 on the field, and the brand as it was but for its time', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
    const brand = await client.post(BRANDS, { name: 'Kept' });
    interceptS3(/^CopyObject/, { status: 400, code: 'KeyTooLongError' });
    const response = await client.put(`${BRANDS}/${brand.body.id}`, { footer_image_path: 'logo.png' });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual(['footer_image_path']);
    // The write was undone by a write of its own (shared/data/brands.ts restoreBrand): a later updated_at.
    const after = (await client.get(`${BRANDS}/${brand.body.id}`)).body;
    expect(after).toEqual({ ...brand.body, updated_at: after.updated_at });
    expect(after.updated_at > brand.body.updated_at).toBe(true);
  });

  it.each([
    ['SlowDown', 503],
    ['InternalError', 500],
  ])(
    'a copy answered %s (%i) is still an outage: retried, then 503 with Retry-After',
    async (code, status) => {
      const { teamId, client } = await api.caller();
      await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
      const copy = interceptS3(/^CopyObject/, { status, code });
      const response = await client.post(BRANDS, { name: 'Outage', logo_image_path: 'logo.png' });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe(String(TIMEOUTS.retryAfterSeconds));
      expect(response.body).toEqual({ message: MESSAGES.unavailable });
      expect(copy.calls()).toBe(TIMEOUTS.attempts);
      expect((await client.get(BRANDS)).body).toEqual([]);
    },
  );

  it('a copy answered AccessDenied (our deployment, not the caller) stays a logged 500', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
    interceptS3(/^CopyObject/, { status: 403, code: 'AccessDenied' });
    const response = await client.post(BRANDS, { name: 'Denied', logo_image_path: 'logo.png' });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ message: 'Server Error' });
  });

  it('an upload through the admin CLI path that S3 refuses is a 422 on path', async () => {
    const { teamId } = await newTeam();
    interceptS3(/^PutObject/, { status: 400, code: 'EntityTooLarge' });
    await expect(putPrivateFile(teamId, 'big.png', PNG, 'image/png')).rejects.toMatchObject({
      name: 'ValidationError',
      errors: { path: ['The path field names a file that cannot be stored or copied (S3: EntityTooLarge).'] },
    });
  });
});

/**
 * The public base URL may change while brands stay: a replaced CloudFront distribution or a custom domain
 * in AWS, s3rver on another port after a restart locally. Here a second origin in front of the same s3rver
 * (as a new distribution in front of the same bucket) becomes PUBLIC_BASE_URL.
 */
describe('brand images under a new public base URL', () => {
  const mirrors: Server[] = [];
  afterEach(async () => {
    restoreSettings();
    for (const mirror of mirrors.splice(0)) await new Promise((closed) => mirror.close(closed));
  });

  /** Makes a new origin serving the public library PUBLIC_BASE_URL, and returns the old and new bases. */
  async function moveBase(): Promise<{ before: string; after: string }> {
    const before = config.publicBaseUrl();
    const target = new URL(before);
    const mirror = createServer((request, response) => {
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: request.url,
          method: request.method,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.destroy());
      request.pipe(upstream);
    });
    await new Promise<void>((listening) => mirror.listen(0, '127.0.0.1', listening));
    mirrors.push(mirror);
    const after = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}${target.pathname}`;
    useSettings({ PUBLIC_BASE_URL: after });
    return { before, after };
  }

  /** The brand item as stored, for what a brand keeps of an image. */
  async function storedItem(teamId: number, brandId: number) {
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: config.tableName(), Key: brandKey(teamId, brandId), ConsistentRead: true }),
    );
    return Item ?? {};
  }

  it('answers a path-form image under the new base, where it is fetched; other URLs and the ETag stay', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
    const created = await client.post(BRANDS, {
      name: 'Moving',
      logo_image_path: 'logo.png',
      header_image: 'https://cdn.example/header.png',
      is_default: true,
    });
    expect(created.status).toBe(201);
    const brand = created.body;
    const read = await client.get(`${BRANDS}/${brand.id}`);
    expect(read.text).toBe(created.text);
    const key = (await storedItem(teamId, brand.id)).logo_image;
    expect(key).toMatch(new RegExp(`^brands/${teamId}/[0-9a-f]{32}/logo\\.png$`));
    expect(brand.logo_image).toBe(`${config.publicBaseUrl()}/${key}`);

    const { before, after } = await moveBase();
    expect(after).not.toBe(before);
    const moved = await client.get(`${BRANDS}/${brand.id}`);
    expect(moved.body).toEqual({ ...brand, logo_image: `${after}/${key}` });
    expect(moved.headers.get('etag')).toBe(created.headers.get('etag'));
    expect(await fetchBytes(moved.body.logo_image)).toEqual({ status: 200, type: 'image/png', bytes: PNG });
    expect((await client.get(`${BRANDS}?limit=10`)).body).toEqual([moved.body]);
    // 304 while the brand is unchanged: the ETag names the brand's version, not the base.
    const etag = created.headers.get('etag') as string;
    expect((await client.get(`${BRANDS}/${brand.id}`, { 'If-None-Match': etag })).status).toBe(304);

    // A new image written under the new base is rendered under it too, by an update in place and by one
    // in a transaction (the default changes).
    await putPrivateFile(teamId, 'footer.png', PNG_2X1, 'image/png');
    const updated = await client.put(`${BRANDS}/${brand.id}`, { footer_image_path: 'footer.png' });
    expect(updated.body.footer_image).toMatch(new RegExp(`^${after}/brands/${teamId}/`));
    const undefaulted = await client.put(`${BRANDS}/${brand.id}`, {
      is_default: false,
      social_share_image_path: 'footer.png',
    });
    expect(undefaulted.status).toBe(200);
    expect(undefaulted.body).toMatchObject({
      is_default: false,
      logo_image: `${after}/${key}`,
      footer_image: updated.body.footer_image,
      social_share_image: updated.body.footer_image,
    });
    expect((await client.get(`${BRANDS}/${brand.id}`)).text).toBe(undefaulted.text);

    // Back on the first base, the first answer's bytes again (but the later changes).
    restoreSettings();
    const back = await client.get(`${BRANDS}/${brand.id}`);
    expect(back.body.logo_image).toBe(brand.logo_image);
    expect(back.body.footer_image).toBe(updated.body.footer_image.replace(after, before));
  });

  it('stores a URL sent back as read (GET then PUT) as the key: it moves with the base', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
    const brand = (await client.post(BRANDS, { name: 'Round trip', logo_image_path: 'logo.png' })).body;
    const other = await newTeam();
    await putPrivateFile(other.teamId, 'theirs.png', PNG, 'image/png');
    const theirs = await apiClient(api.url, other.token).post(BRANDS, {
      name: 'Theirs',
      logo_image_path: 'theirs.png',
    });
    const base = config.publicBaseUrl();
    // Under our base but not a copy of this team's: another team's copy, a path that only looks like one.
    const notOurs = {
      header_image: theirs.body.logo_image,
      footer_image: `${base}/brands/${teamId}/../${other.teamId}/x.png`,
      social_share_image: `${brand.logo_image}?size=2`,
    };

    // A brand stored before brands kept keys: its absolute URL is kept and answered as it is.
    await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName(),
        Key: brandKey(teamId, brand.id),
        UpdateExpression: 'SET logo_square_image = :url',
        ExpressionAttributeValues: { ':url': brand.logo_image },
      }),
    );
    const read = await client.get(`${BRANDS}/${brand.id}`);
    expect(read.body.logo_square_image).toBe(brand.logo_image);

    const { id, team_id, created_at, updated_at, is_default, ...writable } = read.body;
    const put = await client.put(
      `${BRANDS}/${brand.id}`,
      { ...read.body, ...notOurs },
      {
        'If-Match': read.headers.get('etag') as string,
      },
    );
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...read.body, ...notOurs, updated_at: put.body.updated_at });
    expect(Object.keys(put.body)).toEqual(Object.keys(read.body));
    const stored = await storedItem(teamId, brand.id);
    const key = brand.logo_image.slice(base.length + 1);
    expect(stored).toMatchObject({ ...writable, ...notOurs, logo_image: key, logo_square_image: key });

    const { after } = await moveBase();
    const moved = await client.get(`${BRANDS}/${brand.id}`);
    expect(moved.body).toEqual({
      ...put.body,
      logo_image: `${after}/${key}`,
      logo_square_image: `${after}/${key}`,
    });
    expect(await fetchBytes(moved.body.logo_square_image)).toEqual({
      status: 200,
      type: 'image/png',
      bytes: PNG,
    });
  });

  it('keeps URLs of other hosts exactly as given, whatever the base', async () => {
    const { client } = await api.caller();
    const images = {
      logo_image: 'https://cdn.example/brands/1/0123456789abcdef0123456789abcdef/logo.png',
      logo_square_image: 'http://127.0.0.1:1/brands/1/0123456789abcdef0123456789abcdef/square.png',
      header_image: 'https://CDN.example/Header%20Image.png?v=1#top',
      footer_image: null,
      social_share_image: `${config.publicBaseUrl()}.example/brands/x.png`,
    };
    const created = await client.post(BRANDS, { name: 'Elsewhere', ...images });
    expect(created.body).toMatchObject(images);
    await moveBase();
    expect((await client.get(`${BRANDS}/${created.body.id}`)).body).toEqual(created.body);
  });

  it('replays an idempotent create under the current base; under the same base, byte for byte', async () => {
    const { teamId, client } = await api.caller();
    await putPrivateFile(teamId, 'logo.png', PNG, 'image/png');
    const body = { name: 'Replayed', logo_image_path: 'logo.png', website_url: 'https://replayed.example' };
    const headers = { 'Idempotency-Key': `key-${crypto.randomUUID()}` };
    const first = await client.post(BRANDS, body, headers);
    expect(first.status).toBe(201);
    const same = await client.post(BRANDS, body, headers);
    expect(same.text).toBe(first.text);

    const { before, after } = await moveBase();
    const replay = await client.post(BRANDS, body, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(replay.body).toEqual({ ...first.body, logo_image: first.body.logo_image.replace(before, after) });
    expect(await fetchBytes(replay.body.logo_image)).toEqual({ status: 200, type: 'image/png', bytes: PNG });
    expect((await client.get(BRANDS)).body).toEqual([replay.body]);

    restoreSettings();
    expect((await client.post(BRANDS, body, headers)).text).toBe(first.text);
  });
});
