import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ROOT } from './processes.ts';

/**
 * The served OpenAPI document as a contract every response of the end-to-end tests is held to: the
 * status must be one the operation lists, the body must match its schema, and the headers the document
 * names must be there when they are required and absent when it does not name them. So a change to what
 * the API answers that the document does not describe fails the test that saw it.
 */
// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON.
type Json = any;

const document: Json = JSON.parse(readFileSync(`${ROOT}/shared/openapi/openapi.json`, 'utf8'));

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
// The whole document as one schema resource, so that `#/components/...` references resolve; it is not a
// JSON Schema itself (parameters have a boolean `required`), so it is not checked as one.
ajv.addSchema(document, 'openapi', undefined, false);

/** A Link's value as the document describes it (a URL to follow as given, `rel="next"`). */
const validLink = ajv.compile({ $ref: 'openapi#/components/headers/Link/schema' });

const templates = Object.keys(document.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`),
}));

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Response headers whose presence the document must account for. */
const DOCUMENTED_HEADERS = [
  'www-authenticate',
  'retry-after',
  'idempotent-replay',
  'etag',
  'link',
  'ratelimit-policy',
  'ratelimit',
  'access-control-allow-origin',
];
const HEADER_COMPONENTS: Record<string, string> = {
  RequestId: 'x-request-id',
  RetryAfter: 'retry-after',
  IdempotentReplay: 'idempotent-replay',
  ETag: 'etag',
  Link: 'link',
  WwwAuthenticate: 'www-authenticate',
  RateLimitPolicy: 'ratelimit-policy',
  RateLimit: 'ratelimit',
  AccessControlAllowOrigin: 'access-control-allow-origin',
};

/** What in a response the document does not describe; empty when it describes all of it. */
export function contractProblems(
  method: string,
  url: string,
  response: { status: number; headers: Headers; text: string },
): string[] {
  if (!URL.canParse(url)) return [];
  const path = new URL(url).pathname;
  const match = templates.find(({ pattern }) => pattern.test(path));
  // Paths the API has no route for are the gateway's 404s, outside any operation.
  if (!match) return [];
  const operation = document.paths[match.template][method.toLowerCase()];
  if (!operation) return methodNotAllowedProblems(method, match.template, response);
  const where = `${method} ${match.template} → ${response.status}`;
  const documented = operation.responses[String(response.status)];
  if (!documented) return [`${where}: status not in the document`];

  const problems: string[] = [];
  const named = new Set(
    Object.values(documented.headers ?? {}).map(
      (h: Json) => HEADER_COMPONENTS[String(h.$ref).split('/').pop() ?? ''],
    ),
  );
  if (!response.headers.get('x-request-id')) problems.push(`${where}: no X-Request-Id`);
  for (const header of DOCUMENTED_HEADERS) {
    if (response.headers.has(header) && !named.has(header)) problems.push(`${where}: undocumented ${header}`);
  }
  if (response.status === 503 && !response.headers.has('retry-after'))
    problems.push(`${where}: no Retry-After`);
  const link = response.headers.get('link');
  if (link !== null && !validLink(link)) {
    problems.push(
      `${where}: Link does not match the document: ${link} (${ajv.errorsText(validLink.errors)})`,
    );
  }

  const media = Object.keys(documented.content ?? {})[0];
  if (!media) {
    if (response.text !== '') problems.push(`${where}: a body where the document has none`);
    return problems;
  }
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim();
  if (type !== media) problems.push(`${where}: Content-Type ${type}, documented ${media}`);
  if (media !== 'application/json') return problems;
  const schemaRef = `openapi#/${pointer('paths', match.template, method.toLowerCase(), 'responses', String(response.status), 'content', media, 'schema')}`;
  const validate = ajv.getSchema(schemaRef) ?? ajv.compile({ $ref: schemaRef });
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return [...problems, `${where}: body is not JSON`];
  }
  if (!validate(body)) {
    problems.push(
      `${where}: body does not match: ${ajv.errorsText(validate.errors)} in ${response.text.slice(0, 300)}`,
    );
  }
  return problems;
}

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * A method the document does not list for the path: the 405 its description promises (info.description,
 * "Methods"), with `Allow` naming the methods it lists for the path, in its order.
 */
function methodNotAllowedProblems(
  method: string,
  template: string,
  response: { status: number; headers: Headers; text: string },
): string[] {
  const where = `${method} ${template} → ${response.status}`;
  // A CORS preflight is the gateway's own (test/shared/cors.services.test.ts), outside the document.
  if (method === 'OPTIONS' && response.status === 204) return [];
  if (response.status !== 405) return [`${where}: a method the document does not list answers 405`];
  const listed = Object.keys(document.paths[template])
    .filter((key) => OPERATION_METHODS.includes(key))
    .map((key) => key.toUpperCase());
  const problems: string[] = [];
  if (response.headers.get('allow') !== listed.join(', '))
    problems.push(
      `${where}: Allow ${response.headers.get('allow')}, the document lists ${listed.join(', ')}`,
    );
  if (!response.headers.get('x-request-id')) problems.push(`${where}: no X-Request-Id`);
  for (const header of DOCUMENTED_HEADERS) {
    if (response.headers.has(header)) problems.push(`${where}: undocumented ${header}`);
  }
  // A HEAD's answer has no body.
  if (method === 'HEAD') return problems;
  if (!response.headers.get('content-type')?.startsWith('application/json'))
    problems.push(`${where}: not JSON`);
  const schemaRef = 'openapi#/components/schemas/Message';
  const validate = ajv.getSchema(schemaRef) ?? ajv.compile({ $ref: schemaRef });
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return [...problems, `${where}: body is not JSON`];
  }
  if (!validate(body)) problems.push(`${where}: body is not {message}: ${response.text.slice(0, 300)}`);
  return problems;
}
