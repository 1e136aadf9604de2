import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../lib/local/services.ts';
import { ROOT, runScript, stopChild, waitForOutput } from './support/processes.ts';

/**
 * The shell examples of the README and of the docs pages that continue it, pasted in order into one shell
 * after `npm start`, as a newcomer would: the README's first request, then docs/local-development.md (local
 * invocation), docs/operating.md (the admin CLI, which makes the PNG the API page uploads) and docs/api.md
 * (the reference, whose brand create is the last example). A fence's info string says what it is: `sh` runs
 * here; `sh setup` (the two commands themselves), `sh aws` (needs an AWS account) and `sh long` (the
 * benchmark) do not; `text npm-start` is the start banner; `ts client` is the typed client's example,
 * examples/typed-client.ts, type-checked and run with tsx against the same server.
 */
const EXAMPLE_PAGES = ['README.md', 'docs/local-development.md', 'docs/operating.md', 'docs/api.md'];
const RUN = 'sh';
const NOT_RUN = ['sh setup', 'sh aws', 'sh long'];
const BANNER = 'text npm-start';
const CLIENT_EXAMPLE = 'ts client';
const CLIENT_EXAMPLE_FILE = join(ROOT, 'examples/typed-client.ts');
/** `ts receiver` is the webhook receiver's example, examples/webhook-receiver.ts, run against the same server. */
const RECEIVER_EXAMPLE = 'ts receiver';
const RECEIVER_EXAMPLE_FILE = join(ROOT, 'examples/webhook-receiver.ts');
/** What the pages show as the local API's address; a test server listens on a free port instead. */
const DOCUMENTED_API_URL = 'http://127.0.0.1:3000';

interface Fence {
  page: string;
  info: string;
  body: string;
}

function fencesOf(page: string, markdown: string): Fence[] {
  return [...markdown.matchAll(/^```([^\n`]*)\n([\s\S]*?)^```$/gm)].map(([, info, body]) => ({
    page,
    info: (info ?? '').trim(),
    body: body ?? '',
  }));
}

/** The fences of the pages, one page after the other. */
async function fencesOfPages(pages: string[]): Promise<Fence[]> {
  const texts = await Promise.all(pages.map((page) => readFile(join(ROOT, page), 'utf8')));
  return pages.flatMap((page, at) => fencesOf(page, texts[at] ?? ''));
}

/** Every Markdown page: the README and docs/. */
async function allPages(): Promise<string[]> {
  const docs = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/** Runs a script in bash, stopping at the first failing command; resolves with its exit code and output. */
function runInShell(script: string, env: Record<string, string>) {
  const child = spawn('bash', ['-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

/** What `tsc --noEmit` with the repository's tsconfig.json says about one file (and what it imports). */
function typeErrors(file: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!config) throw new Error('tsconfig.json could not be read');
  const program = ts.createProgram([file], config.options);
  const host = {
    getCanonicalFileName: (name: string) => name,
    getCurrentDirectory: () => ROOT,
    getNewLine: () => '\n',
  };
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.formatDiagnostic(diagnostic, host).trim());
}

describe('the examples of the README and the docs pages', () => {
  let fences: Fence[] = [];
  let server: ReturnType<typeof runScript> | undefined;
  let dataDir = '';
  let apiUrl = '';

  beforeAll(async () => {
    fences = await fencesOfPages(EXAMPLE_PAGES);
    dataDir = await mkdtemp(join(tmpdir(), 'tm-readme-'));
    // Exactly what `npm start` runs (asserted below), on a free port, with its own DynamoDB Local and s3rver.
    server = runScript('bin/local.ts', [], {
      PORT: '0',
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: '',
      S3_ENDPOINT: '',
      // As the Webhooks section says: deliveries to a receiver on this machine.
      AUTOCONFIGURE_ALLOW_LOOPBACK: '1',
    });
    [, apiUrl = ''] = await waitForOutput(server, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  });

  afterAll(async () => {
    if (server) await stopChild(server.child, server.exited);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('marks every code block as run here, not run (and why), or plain text', async () => {
    const known = new Set(['', 'text', RUN, BANNER, CLIENT_EXAMPLE, RECEIVER_EXAMPLE, ...NOT_RUN]);
    const everyFence = await fencesOfPages(await allPages());

    expect(
      everyFence.filter(({ info }) => !known.has(info)).map(({ page, info }) => `${page}: ${info}`),
    ).toEqual([]);
    // No example goes untested: a page with one that runs here is one of the pages run.
    const runHere = new Set([RUN, BANNER, CLIENT_EXAMPLE, RECEIVER_EXAMPLE]);
    const untested = everyFence.filter(
      ({ page, info }) => runHere.has(info) && !EXAMPLE_PAGES.includes(page),
    );
    expect(untested.map(({ page, info }) => `${page}: ${info}`)).toEqual([]);
    // Each page run holds examples that run here.
    for (const page of EXAMPLE_PAGES) {
      expect(
        fences.filter((fence) => fence.page === page && fence.info === RUN).length,
        page,
      ).toBeGreaterThan(0);
    }
    expect(fences.filter(({ info }) => info === RUN).length).toBeGreaterThanOrEqual(3);
    expect(fences.filter(({ info }) => info === CLIENT_EXAMPLE).length).toBe(1);
    expect(fences.filter(({ info }) => info === RECEIVER_EXAMPLE).length).toBe(1);
  });

  it('shows the start banner npm start prints', async () => {
    const scripts = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).scripts;
    expect(scripts.start).toBe('tsx bin/local.ts');

    const banner = fences.find(({ info }) => info === BANNER)?.body ?? '';
    const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = banner
      .trimEnd()
      .split('\n')
      .map((line) =>
        literal(line)
          .replaceAll('…', '\\S+')
          .replace(/team 1\b/g, 'team \\d+')
          .replaceAll(literal(DOCUMENTED_API_URL), literal(apiUrl)),
      )
      .join('\n');
    expect(banner).toContain('listening on');
    expect(server?.output().stdout).toMatch(new RegExp(`^${pattern}$`, 'm'));
  });

  it('runs every shell example in order against a fresh npm start', async () => {
    const examples = fences.filter(({ info }) => info === RUN).map(({ body }) => body);
    // Fail at the first command that fails, naming it; curl fails on any HTTP error, showing the body.
    const script = [
      'set -euo pipefail',
      `trap 'echo "example failed: $BASH_COMMAND" >&2' ERR`,
      'curl() { command curl --fail-with-body "$@"; }',
      ...examples,
    ].join('\n');
    const result = await runInShell(script, {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      TMPDIR: dataDir,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });

    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    // What the examples say they print.
    expect(result.stdout).toContain('"text"'); // the field types
    expect(result.stdout).toMatch(
      /\{"id":\d+,"team_id":\d+,"name":"First brand",[^}]*"primary_color":"#1a2b3c"/,
    ); // read back
    expect(result.stdout).toContain('Team Messaging API\n<redoc spec-url="/api/v1/openapi.json">'); // the reference
    expect(result.stdout).toContain('{"revoked":true}');
    expect(result.stdout).toContain('{"path":"logos/a.png"}');
    expect(result.stdout).toMatch(/"name":"News","brand_id":null/);
    expect(result.stdout).toMatch(/"tag":"crm_id"/);
    const brand = JSON.parse(result.stdout.slice(result.stdout.lastIndexOf('{"id"')));
    expect(brand).toMatchObject({ name: 'Acme', is_default: true });
    // The uploaded PNG was promoted to the public library and is served there.
    const image = await fetch(brand.logo_square_image);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
  });

  it('shows the typed client example as the file it is, which type-checks and runs after the shell examples', async () => {
    const at = fences.findIndex(({ info }) => info === CLIENT_EXAMPLE);
    // Running it after the shell examples keeps the pages' order only while it comes after them.
    expect(at).toBeGreaterThan(fences.findLastIndex(({ info }) => info === RUN));
    // The page shows the file that lint covers, so what a reader copies is formatted as the suite wants.
    expect(fences[at]?.body).toBe(await readFile(CLIENT_EXAMPLE_FILE, 'utf8'));
    expect(typeErrors(CLIENT_EXAMPLE_FILE)).toEqual([]);

    const run = runScript(CLIENT_EXAMPLE_FILE, [], { DATA_DIR: dataDir });
    try {
      const code = await run.exited;
      const { stdout, stderr } = run.output();
      expect(code, `${stdout}\n${stderr}`).toBe(0);
      const [, id] = stdout.match(/^brand (\d+): 201 Typed Acme #1a2b3c$/m) ?? [];
      expect(id, stdout).toBeDefined();
      expect(stdout).toContain(`retry: Idempotent-Replay true, id ${id}\n`);
      expect(stdout).toMatch(/^person fields: 0 \[\]$/m); // the demo team has none on a fresh start
      expect(stdout).toMatch(/^422 tag: The tag field must start with a lowercase letter/m);
      expect(stdout).toMatch(/^422 options: The options field is required when type is pick_list\.$/m);
    } finally {
      await stopChild(run.child, run.exited);
    }
  });

  it("shows the webhook receiver example as the file it is; it verifies the API's deliveries and refuses a forged one", async () => {
    expect(fences.find(({ info }) => info === RECEIVER_EXAMPLE)?.body).toBe(
      await readFile(RECEIVER_EXAMPLE_FILE, 'utf8'),
    );
    expect(typeErrors(RECEIVER_EXAMPLE_FILE)).toEqual([]);

    const local = JSON.parse(await readFile(join(dataDir, 'local.json'), 'utf8'));
    const call = (path: string, body: unknown) =>
      fetch(apiUrl + path, {
        method: 'POST',
        headers: { Authorization: `Bearer ${local.demo_token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }).then((response) => response.json() as Promise<{ id: number; secret: string }>);
    const port = await freePort();
    const endpoint = await call('/api/v1/webhook-endpoints', {
      url: `http://127.0.0.1:${port}/`,
      event_types: ['brand.created'],
    });
    const run = runScript(RECEIVER_EXAMPLE_FILE, [], { PORT: String(port), WEBHOOK_SECRET: endpoint.secret });
    try {
      await waitForListening(port);
      const brand = await call('/api/v1/brands', { name: 'Hooked Acme' });
      await waitForOutput(run, new RegExp(`^brand\\.created brand:${brand.id} v1$`, 'm'));
      const forged = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: {
          'webhook-id': 'evt_1_1_1_0',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,Zm9yZ2Vk',
        },
        body: '{}',
      });
      expect(forged.status).toBe(400);
    } finally {
      await stopChild(run.child, run.exited);
    }
  });
});

/** Resolves once something accepts connections on the port. */
async function waitForListening(port: number): Promise<void> {
  for (let tries = 0; ; tries++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(true));
      socket.once('error', () => resolve(false));
      socket.once('connect', () => socket.end());
    });
    if (open) return;
    if (tries > 300) throw new Error(`nothing listens on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
