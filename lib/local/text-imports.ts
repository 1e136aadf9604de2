import { readFile } from 'node:fs/promises';
import type { LoadHook } from 'node:module';

/**
 * A Node module hook (bin/local.ts registers it) that loads `import … with { type: 'text' }` as a module
 * whose default export is the file's text, as esbuild does in the Lambda bundles: Node 20 has no such type.
 */
export const load: LoadHook = async (url, context, nextLoad) => {
  if (context.importAttributes.type !== 'text') return nextLoad(url, context);
  const text = await readFile(new URL(url), 'utf8');
  return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
};
