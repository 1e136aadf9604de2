import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/processes.ts';

/**
 * The house rules of the README's map, read off the source: arrows point down (functions → shared,
 * lib → shared, bin → lib; shared imports nothing above it), the typed client stands alone (client →
 * client and its generated types) and the examples use only it, there is no import cycle, and only shared/config.ts reads the
 * environment among the code a function runs.
 */
const FOLDERS = ['bin', 'bench', 'lib', 'functions', 'shared', 'client', 'examples'];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

const files = FOLDERS.flatMap(sourceFiles);
const source = new Map(files.map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]));

/** The repository files a file imports (static and dynamic imports with a literal relative path). */
function importsOf(file: string): string[] {
  const text = source.get(file) ?? '';
  const specifiers = [...text.matchAll(/(?:\bfrom|\bimport\(?)\s*'(\.{1,2}\/[^']+)'/g)].map(
    (m) => m[1] as string,
  );
  return specifiers.map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)));
}

const graph = new Map(files.map((file) => [file, importsOf(file)]));
const top = (file: string) => file.split('/')[0] ?? '';

describe('the import graph', () => {
  it.each([
    ['shared', ['shared']],
    ['functions', ['functions', 'shared']],
    ['lib', ['lib', 'shared']],
    ['bin', ['bin', 'lib', 'shared']],
    ['bench', ['bench', 'lib', 'shared', 'test']],
    ['client', ['client']],
    // An integrator's code: it has the typed client and nothing of the server's.
    ['examples', ['examples', 'client']],
  ])('%s imports only from %j', (folder, allowed) => {
    const outside = [...graph]
      .filter(([file]) => top(file) === folder)
      .flatMap(([file, imports]) =>
        imports.filter((i) => !allowed.includes(top(i))).map((i) => `${file} → ${i}`),
      );
    expect(outside).toEqual([]);
  });

  it('has no cycle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('reads the environment only in shared/config.ts, among shared/ and functions/', () => {
    const readers = files.filter(
      (file) => ['shared', 'functions'].includes(top(file)) && /process\.env\b/.test(source.get(file) ?? ''),
    );
    expect(readers).toEqual(['shared/config.ts']);
  });
});
