import { PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterEach, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { setQuota } from '../../shared/data/quotas.ts';
import { privateObjectKey } from '../../shared/files/library.ts';
import { presigner } from '../../shared/files/s3.ts';
import { LIMITS, QUOTA_DEFAULTS } from '../../shared/limits.ts';
import { useApi } from '../support/api.ts';
import { admin } from '../support/processes.ts';
import { roundTrips } from '../support/round-trips.ts';
import { restoreSettings, useSettings } from '../support/settings.ts';

/**
 * Issue 36, "Per-team bounds on what a team can store", played by a hostile tenant against the local stack
 * (DynamoDB Local, s3rver): each bound with its number (README, "Tenant isolation", "Storage per team").
 */
const api = useApi();

const FILES = '/api/v1/files';
const upload = (size: number, path = 'files/a.bin') => ({ path, content_type: 'application/pdf', size });

afterEach(() => restoreSettings());

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
    ]);
    // S3 recomputes the signature from the request's own Content-Length: the URL's signature is the one of
    // exactly `size` bytes, and another length signs otherwise (AWS answers it 403 SignatureDoesNotMatch).
    const date = url.searchParams.get('X-Amz-Date') as string;
    const signingDate = new Date(
      `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`,
    );
    const signatureFor = async (length: number) =>
      new URL(
        await getSignedUrl(
          presigner(),
          new PutObjectCommand({
            Bucket: config.privateBucket(),
            Key: privateObjectKey(teamId, 'files/a.bin'),
            ContentType: 'application/pdf',
            ContentLength: length,
          }),
          { expiresIn: 900, signingDate, signableHeaders: new Set(['content-type', 'content-length']) },
        ),
      ).searchParams.get('X-Amz-Signature');
    expect(await signatureFor(size)).toBe(url.searchParams.get('X-Amz-Signature'));
    expect(await signatureFor(size + 1)).not.toBe(url.searchParams.get('X-Amz-Signature'));
    expect(await signatureFor(LIMITS.uploadFileBytes)).not.toBe(url.searchParams.get('X-Amz-Signature'));
    // s3rver does not check V4 signatures (AWS does): here the exact size is stored as sent.
    const put = await fetch(url, { method: 'PUT', headers: answer.body.headers, body: Buffer.alloc(size) });
    expect(put.status).toBe(200);
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
  }, 60_000);

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
  }, 60_000);

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
  }, 60_000);
});
