import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { buildDocument } from '../lib/openapi/document.ts';

/**
 * `npm run openapi`: writes the OpenAPI document the API serves (shared/openapi/openapi.json) from the
 * route table and the schemas. test/openapi.test.ts fails when the written file is not what this builds.
 */
export const DOCUMENT_PATH = resolve(import.meta.dirname, '..', 'shared', 'openapi', 'openapi.json');

await writeFile(DOCUMENT_PATH, `${JSON.stringify(buildDocument(), null, 2)}\n`);
console.log(`written: ${DOCUMENT_PATH}`);
