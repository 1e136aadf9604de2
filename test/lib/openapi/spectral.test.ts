import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../support/processes.ts';

/**
 * The OWASP API Security Top 10 (2023) rules and Spectral's OpenAPI rules on the generated document, as
 * `npx spectral lint shared/openapi/openapi.json` runs them with the repository's .spectral.yaml: no error,
 * no warning. Each exception in .spectral.yaml is narrowed to JSON pointers; the second test holds every
 * one of them to a place in the document that the unnarrowed rule does flag, so none outlives its reason.
 */
const DOCUMENT = 'shared/openapi/openapi.json';
const SPECTRAL = join(ROOT, 'node_modules', '.bin', 'spectral');
// Inside the repository, so that the ruleset's `extends` resolves from its node_modules.
const SCRATCH = join(ROOT, '.tmp', `spectral-${process.pid}`);
afterAll(() => rm(SCRATCH, { recursive: true, force: true }));

interface Finding {
  code: string;
  severity: number;
  path: Array<string | number>;
  message: string;
}

const SEVERITIES = ['error', 'warning', 'information', 'hint'];

async function lint(ruleset: string): Promise<Finding[]> {
  const args = ['lint', '--ruleset', ruleset, '--format', 'json', '--quiet', DOCUMENT];
  // Spectral exits 1 when it finds errors: the findings are in its output either way.
  const { stdout, stderr } = await promisify(execFile)(SPECTRAL, args, { cwd: ROOT }).catch(
    (failed: { stdout?: string; stderr?: string }) => ({
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
    }),
  );
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(`spectral printed no JSON:\n${stdout}\n${stderr}`);
  }
}

const describeFinding = (f: Finding) =>
  `${SEVERITIES[f.severity]} ${f.code} at ${f.path.join('.')}: ${f.message}`;

/** The exceptions of .spectral.yaml: each `files` list's pointers into the document, and the rules it turns off. */
function exceptions(ruleset: string): Array<{ pointers: string[][]; rules: string[] }> {
  const blocks: Array<{ pointers: string[][]; rules: string[] }> = [];
  for (const line of ruleset.split('\n')) {
    if (/^\s+- files:$/.test(line)) blocks.push({ pointers: [], rules: [] });
    const pointer = new RegExp(`^\\s+- "${DOCUMENT}#/(.+)"$`).exec(line)?.[1];
    if (pointer) {
      blocks
        .at(-1)
        ?.pointers.push(
          pointer
            .split('/')
            .map((part) => decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~')),
        );
    }
    const rule = /^\s+([\w:.-]+): "off"$/.exec(line)?.[1];
    if (rule) blocks.at(-1)?.rules.push(rule);
  }
  return blocks;
}

describe('the OpenAPI document under the OWASP API Security Top 10 ruleset', () => {
  it('has no error and no warning with the repository’s .spectral.yaml', async () => {
    expect((await lint('.spectral.yaml')).map(describeFinding)).toEqual([]);
  });

  it('narrows each exception to places the unnarrowed rule flags', async () => {
    const ruleset = await readFile(join(ROOT, '.spectral.yaml'), 'utf8');
    const blocks = exceptions(ruleset);
    expect(blocks.length).toBeGreaterThan(0);
    await mkdir(SCRATCH, { recursive: true });
    const base = join(SCRATCH, 'base.spectral.yaml');
    const extended = /^extends:\n(?: {2}- .+\n)+/m.exec(ruleset)?.[0];
    expect(extended, 'the extends list of .spectral.yaml').toBeDefined();
    await writeFile(base, extended as string);
    const findings = await lint(base);
    const unused: string[] = [];
    for (const { pointers, rules } of blocks) {
      expect(pointers.length * rules.length, 'an exception names pointers and rules').toBeGreaterThan(0);
      for (const pointer of pointers) {
        for (const rule of rules) {
          const flagged = findings.some(
            (f) => f.code === rule && pointer.every((part, i) => String(f.path[i]) === part),
          );
          if (!flagged) unused.push(`${rule} at ${pointer.join('.')}`);
        }
      }
    }
    expect(unused).toEqual([]);
  });
});
