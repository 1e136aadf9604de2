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
 * their declaration. `admin migrate`'s one-off migrations are the admin CLI's, not the data modules'.
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

/** Each cycle of a graph, as the path around it (`a → b → a`). */
function cyclesOf(edges: ReadonlyMap<string, readonly string[]>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, path: string[]) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'open') {
      cycles.push([...path.slice(path.indexOf(node)), node].join(' → '));
      return;
    }
    state.set(node, 'open');
    for (const next of edges.get(node) ?? []) if (edges.has(next)) visit(next, [...path, node]);
    state.set(node, 'done');
  };
  for (const node of edges.keys()) visit(node, []);
  return cycles;
}

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
    expect(cyclesOf(graph)).toEqual([]);
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

  it('exports no name from both shared/ and lib/ (a type and its schema are told apart by name)', () => {
    const exported = (folder: string) =>
      new Set(
        code
          .filter((file) => top(file) === folder)
          .flatMap((file) => [
            ...(source.get(file) ?? '').matchAll(
              /^export (?:const|let|(?:async )?function\*?|interface|type|(?:abstract )?class|enum) (\w+)/gm,
            ),
          ])
          .map(([, name]) => name as string),
      );
    const inLib = exported('lib');
    expect([...exported('shared')].filter((name) => inLib.has(name))).toEqual([]);
  });

  it('only the paging helper follows LastEvaluatedKey and sets ExclusiveStartKey', () => {
    const pagers = code.filter((file) =>
      /\b(LastEvaluatedKey|ExclusiveStartKey)\b/.test(source.get(file) ?? ''),
    );
    expect(pagers).toEqual(['shared/data/items.ts']);
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

/**
 * The inner order of shared/, lowest first: a file imports from its own layer or one below, never above.
 * A layer holds folders (ending in `/`) and files; every file of shared/ is in exactly one.
 */
const SHARED_LAYERS: ReadonlyArray<{ layer: string; holds: readonly string[] }> = [
  // Settings, limits, scopes, rate limits, logs and metrics, the AWS clients' options: read by every layer.
  {
    layer: 'foundation',
    holds: [
      'shared/config.ts',
      'shared/limits.ts',
      'shared/rate-limits.ts',
      'shared/scopes.ts',
      'shared/token-form.ts',
      'shared/telemetry.ts',
      'shared/request-context.ts',
      'shared/aws.ts',
    ],
  },
  // The entities' rules, input validation, event shapes and the neutral errors: nothing of HTTP or storage.
  { layer: 'domain', holds: ['shared/domain/'] },
  // The guarded client of every request to a URL a caller gave (auto-configure's pages, webhooks' receivers).
  { layer: 'outbound', holds: ['shared/outbound/'] },
  // DynamoDB: one module per entity, Idempotency-Key records, the sealing of the secrets it keeps.
  { layer: 'data', holds: ['shared/data/'] },
  // What works on the data: change events, webhook deliveries, files in S3, auto-configure.
  {
    layer: 'services',
    holds: ['shared/events/', 'shared/webhooks/', 'shared/files/', 'shared/autoconfigure/'],
  },
  // HTTP: the route table, CORS, requests, the only mapping of errors to statuses, the API reference page.
  { layer: 'http', holds: ['shared/routes.ts', 'shared/cors.ts', 'shared/http/', 'shared/docs/'] },
];

const holds = (held: string, file: string) => (held.endsWith('/') ? file.startsWith(held) : file === held);
const layersOf = (file: string) =>
  SHARED_LAYERS.filter((layer) => layer.holds.some((held) => holds(held, file)));
/** The index of the file's layer in SHARED_LAYERS: the higher, the further up. */
const rank = (file: string) =>
  SHARED_LAYERS.findIndex((layer) => layer.holds.some((held) => holds(held, file)));
const sharedFiles = files.filter((file) => top(file) === 'shared');
/** A file's folder of shared/ (`shared/data` for `shared/data/webhook-deliveries/state.ts`), or shared/ itself. */
const folderOf = (file: string) =>
  file
    .split('/')
    .slice(0, file.split('/').length > 2 ? 2 : 1)
    .join('/');

describe('the layers of shared/', () => {
  it('place every file of shared/ in exactly one layer', () => {
    const misplaced = sharedFiles
      .map((file) => [file, layersOf(file).map(({ layer }) => layer)] as const)
      .filter(([, layers]) => layers.length !== 1);
    expect(misplaced).toEqual([]);
  });

  it('point one way: no file imports from a layer above its own', () => {
    const upward = sharedFiles.flatMap((file) =>
      (graph.get(file) ?? [])
        .filter((imported) => top(imported) === 'shared' && rank(imported) > rank(file))
        .map(
          (imported) =>
            `${SHARED_LAYERS[rank(file)]?.layer} → ${SHARED_LAYERS[rank(imported)]?.layer}: ${file} → ${imported}`,
        ),
    );
    expect(upward).toEqual([]);
  });

  it('have no cycle between the folders of one layer', () => {
    const folders = new Map<string, Set<string>>();
    for (const file of sharedFiles) {
      const imported = (graph.get(file) ?? []).filter(
        (i) => rank(i) === rank(file) && folderOf(i) !== folderOf(file),
      );
      folders.set(
        folderOf(file),
        new Set([...(folders.get(folderOf(file)) ?? []), ...imported.map(folderOf)]),
      );
    }
    const edges = new Map([...folders].map(([folder, next]) => [folder, [...next]]));
    expect(cyclesOf(edges)).toEqual([]);
  });
});

/** The functions a file declares by name: function declarations and functions bound to a const or let. */
function functionsDeclaredIn(file: string): string[] {
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) && node.name) names.push(node.name.text);
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    ) {
      names.push(node.name.text);
    }
    node.forEachChild(visit);
  };
  visit(ts.createSourceFile(file, source.get(file) ?? '', ts.ScriptTarget.Latest, true));
  return names;
}

/** What `admin migrate` calls (the function `migrate` of the admin CLI's commands), each by the file it is imported from. */
function stepsOfMigrate(): Map<string, string> {
  const file = 'lib/admin/commands.ts';
  const tree = ts.createSourceFile(file, source.get(file) ?? '', ts.ScriptTarget.Latest, true);
  const importedFrom = new Map<string, string>();
  let migrate: ts.FunctionDeclaration | undefined;
  for (const statement of tree.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name?.text === 'migrate') migrate = statement;
    const bindings = ts.isImportDeclaration(statement) && statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const from = relative(ROOT, resolve(ROOT, dirname(file), statement.moduleSpecifier.text));
    for (const element of bindings.elements) importedFrom.set(element.name.text, from);
  }
  const steps = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
      steps.set(node.expression.text, importedFrom.get(node.expression.text) ?? file);
    }
    node.forEachChild(visit);
  };
  if (migrate) visit(migrate);
  return steps;
}

// A one-off migration is an operator's Scan of the whole table, never a request's: the admin CLI's, not a data module's.
describe("admin migrate's one-off migrations", () => {
  it('are imported from lib/admin/, apart from the steps that stay with their data module', () => {
    const steps = stepsOfMigrate();
    const fromShared = [...steps].filter(([, from]) => top(from) === 'shared').map(([name]) => name);
    const elsewhere = [...steps].filter(
      ([, from]) => !from.startsWith('lib/admin/') && top(from) !== 'shared',
    );
    expect(elsewhere).toEqual([]);
    // The usage recount (also an operator's repair of the counts) and the count of tokens still to reissue
    // (a report): not migrations.
    expect(fromShared.sort()).toEqual(['countTokensToReissue', 'recountUsage']);
  });

  it('are not declared under shared/: no function there is named as one (migrate…, move…, stamp…, number…, seal…Plaintext…)', () => {
    const migrationName = /^(migrate|move|stamp|number)[A-Z]|^seal\w*Plaintext/;
    // Parsed only where such a name is written at all.
    const suspects = sharedFiles.filter((file) =>
      /\b((migrate|move|stamp)[A-Z]|seal\w*Plaintext)/.test(source.get(file) ?? ''),
    );
    const declared = suspects.flatMap((file) =>
      functionsDeclaredIn(file)
        .filter((name) => migrationName.test(name))
        .map((name) => `${file}: ${name}`),
    );
    expect(sharedFiles.length).toBeGreaterThan(0);
    expect(declared).toEqual([]);
  });
});
