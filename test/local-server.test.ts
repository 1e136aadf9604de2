import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { admin, runScript, stopChild, waitForOutput } from './support/processes.ts';

/** `npm start` as a newcomer runs it: its own DynamoDB Local and s3rver, data on disk, a demo team. */
describe('npm start', () => {
  const started: Array<ReturnType<typeof runScript>> = [];
  let dataDir = '';
  afterAll(async () => {
    for (const run of started) await stopChild(run.child, run.exited);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    const run = runScript('bin/local.ts', [], {
      PORT: '0',
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: '',
      S3_ENDPOINT: '',
    });
    started.push(run);
    const [, url] = await waitForOutput(run, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const local = JSON.parse(await readFile(join(dataDir, 'local.json'), 'utf8'));
    return { run, url: url as string, local };
  };

  it('starts, serves with the printed token, keeps data across a restart, and stops what it started', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tm-start-'));
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
  }, 120_000);
});
