import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { writeLocalConfig } from '../../lib/local/local-api.ts';
import { HANG_MS } from './timeouts.ts';

export const ROOT = resolve(import.meta.dirname, '..', '..');

/** Runs a repository script with tsx and collects its output; the child is the exact process to stop. */
export function runScript(script: string, args: string[], env: Record<string, string | undefined>) {
  // Node itself with tsx's loader, not the tsx wrapper: the recorded child is the process that runs the
  // script, so a signal (SIGKILL included) reaches exactly it and leaves no orphan behind.
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

/** Resolves once the output contains the pattern; rejects if the process exits first or time runs out. */
export async function waitForOutput(
  run: ReturnType<typeof runScript>,
  pattern: RegExp,
  timeoutMs = HANG_MS,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = run.output().stdout.match(pattern);
    if (found) return found;
    if (run.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`no ${pattern} in output:\n${run.output().stdout}\n${run.output().stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stops exactly this child (SIGTERM, then SIGKILL after a grace period) and waits for it. */
export async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Runs the admin CLI once to completion: its exit code and its stdout parsed as JSON when it is. A spawned
 * CLI compiles its TypeScript as it starts (tsx): seconds alone, tens of seconds on two busy cores, so a
 * test that runs it twice gives it minutes (hang-only).
 */
export async function admin(args: string[], env: Record<string, string | undefined>) {
  const run = runScript('bin/admin.ts', args, env);
  const code = await run.exited;
  const { stdout, stderr } = run.output();
  const parse = (text: string) => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  return { code, json: parse(stdout), error: parse(stderr)?.error as string | undefined, stdout, stderr };
}

/**
 * A data directory of the calling test file, made before its tests and removed after them, whose local.json
 * names the test run's services; `env` makes a spawned CLI find its target through that file alone.
 */
export function useLocalConfigDir(prefix: string): {
  readonly dir: string;
  readonly env: Record<string, string>;
} {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    await writeTestRunLocalConfig(dir);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  return {
    get dir() {
      return dir;
    },
    get env() {
      return { DATA_DIR: dir, TABLE_NAME: '', DYNAMODB_ENDPOINT: '', S3_ENDPOINT: '' };
    },
  };
}

/** A local.json in `dataDir` naming the test run's DynamoDB Local and s3rver: a CLI's target found as a person's is. */
export function writeTestRunLocalConfig(dataDir: string): Promise<void> {
  return writeLocalConfig(dataDir, {
    api_url: 'http://127.0.0.1:1',
    dynamodb_endpoint: process.env.DYNAMODB_ENDPOINT as string,
    s3_endpoint: process.env.S3_ENDPOINT as string,
    eventbridge_endpoint: process.env.EVENTBRIDGE_ENDPOINT as string,
    event_bus_name: process.env.EVENT_BUS_NAME as string,
    lambda_endpoint: process.env.LAMBDA_ENDPOINT as string,
    kms_endpoint: process.env.KMS_ENDPOINT as string,
    table_name: process.env.TABLE_NAME as string,
    private_bucket: process.env.PRIVATE_BUCKET as string,
    public_bucket: process.env.PUBLIC_BUCKET as string,
    public_base_url: process.env.PUBLIC_BASE_URL as string,
  });
}
