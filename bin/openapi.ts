import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { clientTypes } from '../lib/openapi/client-types.ts';
import { buildDocument } from '../lib/openapi/document.ts';
import { routesPage } from '../lib/openapi/routes-page.ts';

/**
 * `npm run openapi`: writes the OpenAPI document the API serves (shared/openapi/openapi.json) from the
 * route table and the schemas, the typed client's types (client/schema.d.ts) from that document, and the
 * list of routes (docs/routes.md). test/lib/openapi/document.services.test.ts fails when the written document is not what this
 * builds, test/client/typed-client.services.test.ts when the written types are not what it generates,
 * test/route-checklist.test.ts when the written list is not what it builds.
 */
const ROOT = resolve(import.meta.dirname, '..');
const DOCUMENT_PATH = resolve(ROOT, 'shared', 'openapi', 'openapi.json');
const CLIENT_TYPES_PATH = resolve(ROOT, 'client', 'schema.d.ts');
const ROUTES_PAGE_PATH = resolve(ROOT, 'docs', 'routes.md');

const document = `${JSON.stringify(buildDocument(), null, 2)}\n`;
await writeFile(DOCUMENT_PATH, document);
console.log(`written: ${DOCUMENT_PATH}`);
await writeFile(CLIENT_TYPES_PATH, await clientTypes(document));
console.log(`written: ${CLIENT_TYPES_PATH}`);
await writeFile(ROUTES_PAGE_PATH, routesPage());
console.log(`written: ${ROUTES_PAGE_PATH}`);
