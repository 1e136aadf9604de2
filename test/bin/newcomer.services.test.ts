import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, runScript, stopChild, writeTestRunLocalConfig } from '../support/processes.ts';

/**
 * A newcomer's first commands, as they are typed: no SDK notice to read past, help that is text, and a
 * busy port named in one line. The AWS SDK's Node notice appears only on Node 20, as CI runs.
 */
let dataDir = '';
let env: Record<string, string | undefined>;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tm-newcomer-'));
  await writeTestRunLocalConfig(dataDir);
  // As a person runs them: without the test harness's own silencing of the SDK's notice.
  env = { DATA_DIR: dataDir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined };
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('the admin CLI for a person', () => {
  it('prints no AWS SDK notice about Node versions, only its JSON', async () => {
    const created = await admin(['team', 'create', '--name', 'Quiet'], env);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^\{"team_id":\d+,"token":"tm_[a-z][a-z0-9-]*_\d+_\w+"\}\n$/);
    expect(created.stderr).toBe('');
  });

  it.each([[['--help']], [['-h']], [['help']]])('%j prints the usage as text and exits 0', async (args) => {
    const result = await admin(args, env);
    expect(result.code).toBe(0);
    expect(result.json).toBeUndefined();
    expect(result.stdout).toMatch(/^usage: npm run admin -- <command> \[flags\]\n/);
    expect(result.stdout).toContain('team create --name N');
    expect(result.stdout).toContain('target flags');
  });

  it('prints one command’s usage for help <command> and <command> --help', async () => {
    for (const args of [
      ['help', 'quota', 'set'],
      ['quota', 'set', '--help'],
    ]) {
      const result = await admin(args, env);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('quota set --team T --kind');
      expect(result.stdout).not.toContain('field create');
    }
  });

  it('keeps errors of a known command as JSON on stderr', async () => {
    const result = await admin(['token', 'create', '--team', 'abc'], env);
    expect(result.code).toBe(1);
    expect(result.error).toBe('--team must be a positive integer');
  });
});

describe('npm start on a busy port', () => {
  let busy: Server;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('says in one line which port is taken and how to choose another, and exits 1', async () => {
    const port = (busy.address() as { port: number }).port;
    const run = runScript('bin/local.ts', [], {
      ...env,
      PORT: String(port),
      DATA_DIR: join(dataDir, 'busy'),
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
      S3_ENDPOINT: process.env.S3_ENDPOINT,
    });
    try {
      expect(await run.exited).toBe(1);
    } finally {
      await stopChild(run.child, run.exited);
    }
    const { stderr } = run.output();
    expect(stderr.trim().split('\n')).toEqual([
      `port ${port} is in use: stop what listens there, or set PORT to another (PORT=0 picks a free one)`,
    ]);
  });
});
