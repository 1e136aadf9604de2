import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { fetchBytes, PNG } from '../support/images.ts';
import { admin, runScript, stopChild, waitForOutput } from '../support/processes.ts';

/** `npm start` as a newcomer runs it: its own DynamoDB Local and s3rver, data on disk, a demo team. */
describe('npm start', () => {
  const started: Array<ReturnType<typeof runScript>> = [];
  const dataDirs: string[] = [];
  afterAll(async () => {
    for (const run of started) await stopChild(run.child, run.exited);
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
  });
  let dataDir = '';
  const newDataDir = async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tm-start-'));
    dataDirs.push(dataDir);
  };

  /** `npm start` on dataDir: with its own DynamoDB Local unless `dynamodbEndpoint`, always its own s3rver. */
  const start = async (dynamodbEndpoint = '') => {
    const run = runScript('bin/local.ts', [], {
      PORT: '0',
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: dynamodbEndpoint,
      S3_ENDPOINT: '',
      // On the run's own table this server's consumer may deliver other tests' webhooks (to receivers on
      // 127.0.0.1), as the run's consumer does: under the same rule.
      AUTOCONFIGURE_ALLOW_LOOPBACK: '1',
    });
    started.push(run);
    const [, url] = await waitForOutput(run, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const local = JSON.parse(await readFile(join(dataDir, 'local.json'), 'utf8'));
    return { run, url: url as string, local };
  };

  it('starts, serves with the printed token, keeps data across a restart, and stops what it started', async () => {
    await newDataDir();
    const first = await start();
    expect(first.local).toMatchObject({
      api_url: first.url,
      table_name: 'team-messaging',
      private_bucket: expect.any(String),
      public_bucket: expect.any(String),
      dynamodb_endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      s3_endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    const printedToken = first.run.output().stdout.match(/API token: (tm_\w+)/)?.[1];
    expect(printedToken).toBe(first.local.demo_token);
    const types = await fetch(`${first.url}/api/v1/contact-fields/types`, {
      headers: { Authorization: `Bearer ${printedToken}` },
    });
    expect(types.status).toBe(200);

    // The admin CLI targets this stack through local.json.
    const team = await admin(['team', 'create', '--name', 'Acme'], { DATA_DIR: dataDir, TABLE_NAME: '' });
    expect(team.code).toBe(0);
    expect(team.json).toEqual({ team_id: expect.any(Number), token: expect.stringMatching(/^tm_/) });

    await stopChild(first.run.child, first.run.exited);
    expect(first.run.child.exitCode).toBe(0);
    // DynamoDB Local (a Java child) is gone with it.
    await expect(fetch(first.local.dynamodb_endpoint)).rejects.toThrow();

    const second = await start();
    expect(second.run.output().stdout).not.toContain('created demo team');
    expect(second.local.demo_team_id).toBe(first.local.demo_team_id);
    const again = await fetch(`${second.url}/api/v1/contact-fields/types`, {
      headers: { Authorization: `Bearer ${team.json.token}` },
    });
    expect(again.status).toBe(200);
  });

  /**
   * Brand images in the public library across restarts of one DATA_DIR: s3rver takes the port local.json
   * recorded again, so URLs handed out keep working; when that port is taken it takes another, and brands
   * answer their images under the new address. (The run's DynamoDB keeps the brands: the first test
   * restarts DynamoDB Local on disk.)
   */
  it('keeps brand image URLs across a restart, and renders them under a new s3rver port when it must move', async () => {
    await newDataDir();
    const first = await start(process.env.DYNAMODB_ENDPOINT);
    const client = (url: string) => apiClient(url, first.local.demo_token);
    const upload = await client(first.url).post('/api/v1/files', {
      path: 'logos/acme.png',
      content_type: 'image/png',
      size: PNG.length,
    });
    const put = await fetch(upload.body.upload_url, {
      method: 'PUT',
      headers: upload.body.headers,
      body: PNG,
    });
    expect(put.status).toBe(200);
    const created = await client(first.url).post('/api/v1/brands', {
      name: 'Acme',
      logo_image_path: 'logos/acme.png',
      header_image: 'https://cdn.example/header.png',
    });
    expect(created.status).toBe(201);
    const brand = created.body;
    const base = first.local.public_base_url as string;
    expect(brand.logo_image.startsWith(`${base}/brands/`)).toBe(true);
    const key = brand.logo_image.slice(base.length);
    expect(await fetchBytes(brand.logo_image)).toEqual({ status: 200, type: 'image/png', bytes: PNG });

    const read = async (url: string) => {
      const response = await client(url).get(`/api/v1/brands/${brand.id}`);
      expect(response.status).toBe(200);
      return response.body;
    };

    await stopChild(first.run.child, first.run.exited);
    await expect(fetch(brand.logo_image)).rejects.toThrow(); // connection refused: s3rver is gone

    // Restarted: the same s3rver port, so the very URL works again.
    const second = await start(process.env.DYNAMODB_ENDPOINT);
    expect(second.local.s3_endpoint).toBe(first.local.s3_endpoint);
    expect(second.local.public_base_url).toBe(base);
    expect(await read(second.url)).toEqual(brand);
    expect(await fetchBytes(brand.logo_image)).toEqual({ status: 200, type: 'image/png', bytes: PNG });
    await stopChild(second.run.child, second.run.exited);

    // Restarted while something else holds that port: another port, and the brand follows it.
    const blocker = await hold(Number(new URL(first.local.s3_endpoint).port));
    try {
      const third = await start(process.env.DYNAMODB_ENDPOINT);
      expect(third.local.s3_endpoint).not.toBe(first.local.s3_endpoint);
      const moved = await read(third.url);
      expect(moved).toEqual({ ...brand, logo_image: `${third.local.public_base_url}${key}` });
      expect(await fetchBytes(moved.logo_image)).toEqual({ status: 200, type: 'image/png', bytes: PNG });
      await stopChild(third.run.child, third.run.exited);
      expect(third.run.child.exitCode).toBe(0);
    } finally {
      await new Promise((closed) => blocker.close(closed));
    }
  });
});

/** Listens on 127.0.0.1:port, so that nothing else can. */
async function hold(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(port, '127.0.0.1', () => listening());
  });
  return server;
}
