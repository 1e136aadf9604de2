import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DELIVERY_STATES } from '../shared/domain/delivery-states.ts';
import { ROOT } from './support/processes.ts';

/**
 * The house rules of the README's map, read off the source: arrows point down (functions → shared,
 * lib → shared, bin → lib; shared imports nothing above it), the typed client stands alone (client →
 * client and its generated types) and the examples use only it, there is no import cycle, and only shared/config.ts reads the
 * environment among the code a function runs. Some things are written once: DynamoDB's paging is
 * followed only by the paging helper (shared/data/items.ts), the delivery states are spelled only in
 * their declaration.
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

describe('declared once', () => {
  const code = files.filter((file) => ['shared', 'lib', 'functions', 'bin'].includes(top(file)));

  it('only the paging helper follows LastEvaluatedKey and sets ExclusiveStartKey', () => {
    // brands.ts and contact-fields.ts are let off only while they still have loops of their own.
    const ownLoopsYet = ['shared/data/brands.ts', 'shared/data/contact-fields.ts'];
    const pagers = code.filter((file) =>
      /\b(LastEvaluatedKey|ExclusiveStartKey)\b/.test(source.get(file) ?? ''),
    );
    expect(pagers.filter((file) => !ownLoopsYet.includes(file))).toEqual(['shared/data/items.ts']);
  });

  it('spells the four delivery states only where they are declared', () => {
    const declaration = 'shared/domain/delivery-states.ts';
    const spelled = (file: string): string[] => {
      const found: string[] = [];
      const visit = (node: ts.Node): void => {
        if (ts.isStringLiteralLike(node) && (DELIVERY_STATES as readonly string[]).includes(node.text)) {
          found.push(`${file}: '${node.text}'`);
        }
        node.forEachChild(visit);
      };
      visit(ts.createSourceFile(file, source.get(file) ?? '', ts.ScriptTarget.Latest, true));
      return found;
    };
    // Parsed only where a state's name is quoted at all (prose that names one is not spelling it).
    const quoted = new RegExp(`['"\`](${DELIVERY_STATES.join('|')})['"\`]`);
    const suspects = code.filter((file) => file !== declaration && quoted.test(source.get(file) ?? ''));
    expect(spelled(declaration)).toHaveLength(DELIVERY_STATES.length);
    expect(suspects.flatMap(spelled)).toEqual([]);
  });
});
