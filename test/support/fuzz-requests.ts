import { request as httpRequest } from 'node:http';
import { isIP } from 'node:net';
import fc from 'fast-check';
import { buildDocument } from '../../lib/openapi/document.ts';
import { OPERATIONS } from '../../lib/openapi/operations.ts';
import { CONTACT_FIELD_TYPE_VALUES } from '../../shared/domain/contact-field-types.ts';
import { INVALID_CURSOR } from '../../shared/http/cursors.ts';
import { COMMON_STATUSES, type Route, routeKey, routes } from '../../shared/routes.ts';

/**
 * Generators of malformed and adversarial requests for the routes of the route table, a sender that puts
 * them on the wire unchanged, and the oracle every response must satisfy (see test/functions/fuzz.services.test.ts).
 */

/** One request as sent: the path is already percent-encoded (query included), the body is raw text. */
export interface FuzzRequest {
  method: Route['method'];
  path: string;
  /** Extra headers, in order; a name may repeat. Authorization and Accept are added by the sender. */
  headers: Array<[string, string]>;
  body?: string;
}

export interface FuzzResponse {
  status: number;
  text: string;
  headers: Headers;
}

/** Where the request parts come from: one dimension is random, the others are sane. */
export type Dimension = 'body' | 'headers' | 'query' | 'id' | 'all';

/** Ids of resources that exist: the caller's own (200 or 404 after a delete) and another team's (403). */
export interface KnownIds {
  brands: number[];
  contactFields: number[];
  events: string[];
}

/** Object keys that name Object.prototype members: a plain `{}` lookup finds something for each. */
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'] as const;

const MAX_BODY_BYTES = 200_000;

// ----------------------------------------------------------------------------------------------------------
// Strings and values

const fromCode = (code: number) => String.fromCodePoint(code);

/** One code unit or code point: mostly ASCII, with controls, CJK, emoji, other planes and lone surrogates. */
const unit = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map(fromCode) },
  { weight: 1, arbitrary: fc.integer({ min: 0x00, max: 0x1f }).map(fromCode) },
  { weight: 2, arbitrary: fc.integer({ min: 0x4e00, max: 0x9fff }).map(fromCode) },
  { weight: 1, arbitrary: fc.integer({ min: 0x1f300, max: 0x1faff }).map(fromCode) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 0x80, max: 0x10ffff })
      .filter((code) => code < 0xd800 || code > 0xdfff)
      .map(fromCode),
  },
);

export const anyString = (maxLength = 24, minLength = 0) => fc.string({ unit, minLength, maxLength });

/** Strings at and around the length limits: 255 and 1,024 characters, in 1-, 2-, 3- and 4-byte characters. */
const longString = fc
  .tuple(
    fc.constantFrom('a', 'é', '漢', '😀', '\ud800', ' '),
    fc.constantFrom(64, 127, 128, 254, 255, 256, 341, 342, 511, 512, 1023, 1024, 1025, 2048, 20_000),
  )
  .map(([char, count]) => char.repeat(count));

const specialString = fc.constantFrom(
  '',
  ' ',
  '\t\n',
  '\u0000',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\udc00\ud800',
  '\ufeff',
  '\u202e',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  '1e999',
  'NaN',
  '{}',
  '[]',
  '__proto__',
  'constructor',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00',
  '$' + '{jndi:ldap://x}', // a log4j lookup, written in two parts
);

const number = fc.oneof(
  fc.constantFrom(
    0,
    -1,
    1,
    2,
    255,
    256,
    1024,
    1025,
    2 ** 31,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    1e308,
    -1e308,
    1e-7,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  number,
  { weight: 3, arbitrary: anyString() },
  longString,
  specialString,
);

/** An object whose keys are taken as given (`__proto__` included) rather than set through the prototype. */
export function objectFrom(entries: Array<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(out, key, { value, enumerable: true, configurable: true, writable: true });
  }
  return out;
}

const objectKey = fc.oneof(
  { weight: 3, arbitrary: anyString(12) },
  fc.constantFrom(...PROTOTYPE_NAMES, 'prototype', '__defineGetter__', 'then', 'length', ''),
);

/** Values that nest `depth` containers deep (arrays, objects, or both alternately). */
function nested(depth: number, kind: 'array' | 'object' | 'mixed', key: string, leaf: unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) {
    const asArray = kind === 'array' || (kind === 'mixed' && level % 2 === 0);
    value = asArray ? [value] : objectFrom([[key, value]]);
  }
  return value;
}

const deepValue = fc
  .tuple(
    fc.integer({ min: 1, max: 200 }),
    fc.constantFrom('array', 'object', 'mixed'),
    fc.constantFrom('a', ...PROTOTYPE_NAMES),
    scalar,
  )
  .map(([depth, kind, key, leaf]) => nested(depth, kind as 'array' | 'object' | 'mixed', key, leaf));

const { value: jsonish } = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>(
  (tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.array(fc.tuple(objectKey, tie('value')), { maxLength: 4 }).map(objectFrom),
  }),
);

const prototypeObject = fc
  .subarray([...PROTOTYPE_NAMES], { minLength: 1 })
  .chain((keys) => fc.tuple(...keys.map((key) => fc.tuple(fc.constant(key), scalar))))
  .map((entries) => objectFrom(entries));

/** Any adversarial JSON value: wrong types, long strings, deep nesting, prototype keys. */
export const adversarialValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 2, arbitrary: jsonish },
  { weight: 1, arbitrary: deepValue },
  { weight: 1, arbitrary: prototypeObject },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 1100 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

// ----------------------------------------------------------------------------------------------------------
// Route fields: plausible values, so that some requests get past validation into the handlers

const imageUrl = fc.constantFrom(
  'https://cdn.example/logo.png',
  'http://cdn.example/a.png',
  `https://cdn.example/${'a'.repeat(240)}`,
  'javascript:alert(1)',
  'ftp://cdn.example/a.png',
  'http://',
  'https://漢字.example/a.png',
  'https://cdn.example/😀.png',
);
const libraryPathValue = fc.oneof(
  fc.constantFrom(
    'logos/a.png',
    'a.png',
    '../a.png',
    '/a.png',
    'teams/1/a.png',
    'a//b.png',
    'a\\b.png',
    './a.png',
    'a/./b.png',
    'logos/漢字.png',
    'logos/😀.png',
    'logos/\ud800.png',
    '\udfff',
    '漢'.repeat(255),
    '😀'.repeat(100),
    `${'a/'.repeat(300)}x`,
  ),
  fc.stringMatching(/^[a-z0-9_-]{1,12}(\/[a-z0-9_.-]{1,12}){0,3}$/),
  fc
    .tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.constantFrom('\ud800', '\udfff', '\udbff\udbff', '漢', '😀'))
    .map(([folder, name]) => `${folder}/${name}.png`),
  anyString(30, 1),
);
const color = fc.oneof(
  fc.constantFrom('#1a2b3c', '#FFFFFF', '#fff', 'red', '#1a2b3cff', '1a2b3c', '#gggggg', '#'),
  fc.stringMatching(/^#[0-9a-fA-F]{6}$/),
);
const identityId = fc.oneof(
  fc.constantFrom(1, 0, -1, 2 ** 53, 1.5, '1'),
  fc.integer({ min: 1, max: 10_000 }),
);
const shortText = fc.oneof(
  fc.constantFrom('Acme', 'x', '  padded  ', 'Ünïcödé', '漢字', '😀', 'a\ud800'),
  anyString(40, 1),
);
const tag = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9_]{0,30}$/),
  fc.constantFrom('Bad-Tag', '1tag', '', 'tag with space', 'tag_\ud800', 'é'),
);
const options = fc.oneof(
  fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9 ]{1,20}$/), { maxLength: 20 }),
  fc.array(shortText, { maxLength: 10 }),
  fc.constantFrom([], [''], ['a', 'a'], ['  a', 'a  ']),
);
/** URLs auto-configure refuses before any DNS lookup or connection: the suite must never reach the web. */
const refusedUrl = fc.constantFrom(
  'http://127.0.0.1/',
  'http://localhost/',
  'http://app.localhost/',
  'http://10.0.0.1/',
  'http://[::1]/',
  'http://169.254.169.254/latest/meta-data/',
  'http://0x7f000001/',
  'ftp://example.com/',
  'http://user:pw@example.com/',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'not a url',
  '',
);

const FIELD_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  // brands
  name: shortText,
  short_description: shortText,
  website_url: imageUrl,
  primary_color: color,
  secondary_color: color,
  is_default: fc.constantFrom(true, false, null, 'true', 1),
  logo_image: imageUrl,
  logo_square_image: imageUrl,
  header_image: imageUrl,
  footer_image: imageUrl,
  social_share_image: imageUrl,
  logo_image_path: libraryPathValue,
  logo_square_image_path: libraryPathValue,
  header_image_path: libraryPathValue,
  footer_image_path: libraryPathValue,
  social_share_image_path: libraryPathValue,
  email_address_id: identityId,
  phone_id: identityId,
  social_links: fc.constantFrom(
    ['https://twitter.com/acme', 'https://www.facebook.com/acme'],
    ['https://twitter.com/a', 'https://x.com/b'],
    { x: 'https://x.com/acme', blog: 'https://blog.example/' },
    { 'bad name!': 'https://x.com/acme' },
    objectFrom([['__proto__', 'https://x.com/acme']]),
    objectFrom([['constructor', 'https://x.com/acme']]),
    [],
    {},
    ['not a url'],
  ),
  tags: fc.oneof(fc.array(shortText, { maxLength: 5 }), fc.constantFrom([''], ['a', 'a'], null)),
  // contact fields
  tag,
  type: fc.constantFrom(...CONTACT_FIELD_TYPE_VALUES, 'Text', 'unknown', 'pick_list '),
  contact_type: fc.constantFrom('person', 'organization', 'Person', 'company'),
  max_length: fc.constantFrom(0, 1, 255, 256, -1, 1.5, 2 ** 31, 2 ** 53, null, '255'),
  options,
  allow_multiple: fc.constantFrom(true, false, null, 'false'),
  // files
  path: libraryPathValue,
  content_type: fc.constantFrom(
    'image/png',
    'text/plain; charset=utf-8',
    'a/b; c="d"',
    'image',
    'image/png\r\nX-Injected: 1',
    '',
    `image/${'x'.repeat(300)}`,
  ),
  size: fc.constantFrom(0, 68, 25 * 1024 * 1024 + 1, 2 ** 53, -1, 1.5, '68', null),
  // auto-configure
  url: refusedUrl,
  // read-only fields echoed back from a GET body
  id: identityId,
  team_id: identityId,
  integration_id: identityId,
  created_at: fc.constantFrom('2020-01-01T00:00:00.000000Z', 'yesterday', 0),
};

/**
 * The API's description of itself, built from the route table and the request schemas: what each route's
 * body and query hold, so that a field added to a schema is fuzzed without being named here.
 */
// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON.
type JsonSchema = Record<string, any>;
const DOCUMENT: JsonSchema = buildDocument();

const operationOf = (route: Route): JsonSchema | undefined =>
  DOCUMENT.paths[route.path]?.[route.method.toLowerCase()];

/** A schema with its `$ref` (to a component) followed. */
function resolved(schema: JsonSchema): JsonSchema {
  const ref: unknown = schema.$ref;
  if (typeof ref !== 'string') return schema;
  return resolved(
    ref
      .split('/')
      .slice(1)
      .reduce((node, part) => node[part], DOCUMENT),
  );
}

/** The properties of the route's JSON body, as its request schema declares them. */
function bodyProperties(route: Route): Record<string, JsonSchema> {
  const schema = operationOf(route)?.requestBody?.content?.['application/json']?.schema;
  return schema ? (resolved(schema).properties ?? {}) : {};
}

/** Read-only fields of a brand's or a contact field's GET body, which a client may send back on a write. */
const ECHOED_FIELDS: Array<[RegExp, string[]]> = [
  [/^\/api\/v1\/brands(\/\{id\})?$/, ['id', 'team_id', 'created_at']],
  [/^\/api\/v1\/contact-fields(\/\{id\})?$/, ['id', 'integration_id']],
];

/** The body fields each route reads (none on GET and DELETE, which ignore a body), then echoed ones. */
export function bodyFields(route: Route): string[] {
  if (route.method === 'GET' || route.method === 'DELETE') return [];
  const echoed = ECHOED_FIELDS.find(([path]) => path.test(route.path))?.[1] ?? [];
  return [...Object.keys(bodyProperties(route)), ...echoed];
}

/** A field's value: plausible for the field most of the time, anything adversarial otherwise. */
function fieldValue(field: string): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: FIELD_VALUES[field] ?? anyString() },
    { weight: 2, arbitrary: adversarialValue },
  );
}

/** An object with some of the route's fields plus extra keys (prototype names among them). */
function fieldObject(fields: string[]): fc.Arbitrary<Record<string, unknown>> {
  const model = Object.fromEntries(fields.map((field) => [field, fieldValue(field)]));
  return fc
    .tuple(
      fc.record(model, { requiredKeys: [] }),
      fc.array(fc.tuple(objectKey, adversarialValue), { maxLength: 3 }),
    )
    .map(([known, extra]) => objectFrom([...Object.entries(known), ...extra]));
}

/** A valid body per route, which mutated bodies start from (so that they reach the handlers' logic). */
function baseBody(route: Route): fc.Arbitrary<Record<string, unknown>> {
  if (route.method === 'PUT') return fc.constant({});
  if (route.path === '/api/v1/brands') return fc.constant({ name: 'Fuzz brand' });
  if (route.path === '/api/v1/contact-fields') {
    return fc
      .record({
        name: fc.constant('Fuzz field'),
        tag: fc.stringMatching(/^fz_[a-z0-9]{8}$/),
        type: fc.constantFrom('text', 'pick_list'),
        contact_type: fc.constantFrom('person', 'organization'),
        options: fc.constant(['a', 'b']),
      })
      .map(({ type, options, ...rest }) =>
        type === 'pick_list' ? { ...rest, type, options } : { ...rest, type },
      );
  }
  if (route.path === '/api/v1/files')
    return fc.constant({ path: 'fuzz/a.png', content_type: 'image/png', size: 68 });
  if (route.fetchesWeb) return fc.constant({ url: 'http://127.0.0.1/' });
  return fc.constant({});
}

/** A valid body with up to `maxChanges` of the route's fields set to values from `valueOf`. */
function mutatedBody(
  route: Route,
  valueFor: (field: string) => fc.Arbitrary<unknown>,
  minChanges: number,
  maxChanges: number,
): fc.Arbitrary<Record<string, unknown>> {
  const fields = bodyFields(route);
  return fc
    .tuple(
      baseBody(route),
      fc
        .uniqueArray(fc.constantFrom(...fields), { minLength: minChanges, maxLength: maxChanges })
        .chain((chosen) =>
          fc.tuple(...chosen.map((field) => valueFor(field).map((value) => [field, value] as const))),
        ),
    )
    .map(([base, changes]) => objectFrom([...Object.entries({ ...base, ...Object.fromEntries(changes) })]));
}

/** A body the route would plausibly accept (used when another dimension is the random one). */
function saneBody(route: Route): fc.Arbitrary<string | undefined> {
  if (bodyFields(route).length === 0) return fc.constant(undefined);
  const plausible = (field: string) => FIELD_VALUES[field] ?? shortText;
  return mutatedBody(route, plausible, 0, 2).map((body) => JSON.stringify(body));
}

const RAW_TEXTS = [
  '{',
  '}',
  '[',
  '{"name":',
  '{"name":"x",}',
  '[1,]',
  "{'name':'x'}",
  '{"name":"x"}{"name":"y"}',
  '{"name":"x"} trailing',
  '\ufeff{"name":"x"}',
  '{"name":"\\ud800"}',
  '{"name":"\\udfff","tag":"t\\udc00"}',
  '{"name":"\\u0000"}',
  '{"name":"\\x41"}',
  'NaN',
  'Infinity',
  'undefined',
  'null',
  'true',
  '0',
  '-0',
  '1e400',
  '""',
  '"\\ud800"',
  '{"__proto__":{"name":"x"}}',
  '{"constructor":{"prototype":{"name":"x"}}}',
  '{"name":"a","name":"b"}',
  'name=x&tag=y',
  '<xml/>',
  ' ',
  '\n',
  '\u0000',
];

/** Raw bodies: random JSON documents, non-JSON text, deep nesting written as text. */
const rawBody = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...RAW_TEXTS) },
  { weight: 2, arbitrary: anyString(60) },
  { weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 300 }), fc.constantFrom('[', '{"a":', '{"__proto__":'), fc.boolean())
      .map(([depth, open, closed]) => {
        const close = open === '[' ? ']' : '}';
        return `${open.repeat(depth)}${open === '[' ? '' : '1'}${closed ? close.repeat(depth) : ''}`;
      }),
  },
);

/** Any body for the route: field objects, random values, raw text; at most ~200 KB. */
export function bodyArbitrary(route: Route): fc.Arbitrary<string | undefined> {
  const fields = bodyFields(route);
  const withFields = fields.length > 0;
  const jsonBody = fc.oneof(
    {
      weight: withFields ? 5 : 0,
      arbitrary: withFields ? mutatedBody(route, fieldValue, 1, 3) : fc.constant({}),
    },
    { weight: withFields ? 3 : 0, arbitrary: fieldObject(fields) },
    { weight: 2, arbitrary: adversarialValue },
  );
  return fc
    .oneof(
      { weight: 7, arbitrary: jsonBody.map((value) => JSON.stringify(value) as string | undefined) },
      { weight: 3, arbitrary: rawBody },
      { weight: 1, arbitrary: fc.constant(undefined) },
    )
    .filter((body) => body === undefined || Buffer.byteLength(body) <= MAX_BODY_BYTES);
}

// ----------------------------------------------------------------------------------------------------------
// Headers, query strings, path ids

const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map(fromCode), maxLength: 60 }),
  fc.constantFrom('', '1', 'null', '{}', '__proto__', 'constructor', 'a'.repeat(2000)),
);

const idempotencyKey = fc.oneof(
  fc.uuid(),
  fc.constantFrom('k', '~'.repeat(255), 'a b', 'fuzz-key'),
  // invalid: too long, non-ASCII (sent as latin1), only spaces (sent empty)
  fc.constantFrom('~'.repeat(256), 'é', ' ', 'a\u00ffb'),
);

const contentType = fc.constantFrom(
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----fuzz',
  'application/json; charset=latin1',
  'application/json; charset=utf-16le',
  'application/xml',
  '*/*',
  '',
  'application/json, text/plain',
);

const headerName = fc.oneof(
  fc.constantFrom(
    ...PROTOTYPE_NAMES,
    'prototype',
    'Constructor',
    'X-Forwarded-For',
    'X-Request-Id',
    'Origin',
    'Cookie',
    'Accept-Language',
    'X-Amzn-Trace-Id',
  ),
  fc.stringMatching(/^x-[a-z0-9_-]{1,30}$/),
);

/** Extra headers: random names and values, prototype names, Idempotency-Key, odd Content-Types. */
export const headersArbitrary: fc.Arbitrary<Array<[string, string]>> = fc
  .tuple(
    fc.array(fc.tuple(headerName, headerValue), { maxLength: 4 }),
    fc.option(idempotencyKey, { nil: undefined }),
    fc.option(contentType, { nil: undefined }),
  )
  .map(([extra, key, type]) => {
    const headers: Array<[string, string]> = [...extra];
    if (key !== undefined) headers.push(['Idempotency-Key', key]);
    if (type !== undefined) headers.push(['Content-Type', type]);
    return headers;
  });

const queryName = fc.oneof(
  fc.constantFrom(
    ...PROTOTYPE_NAMES,
    'site_id',
    'site_id[]',
    'site_id[0]',
    'contact_type',
    'contact_type[]',
    'type',
    'type[]',
    'resource',
    'page',
    'limit',
    'cursor',
    '',
  ),
  anyString(12, 1),
);
const queryValue = fc.oneof(
  fc.constantFrom(
    '',
    '1',
    '3',
    '-1',
    '0',
    '99999999999999999999',
    '1e3',
    '0x10',
    'person',
    'organization',
    'Person',
    ' person',
    'brand.created',
    'contact_field.deleted',
    'brand:1',
    'contact_field:99999999999999999999',
  ),
  anyString(24),
  fc.constant('a'.repeat(2000)),
);

/** `[name, value]` pairs for the query string (encoded when the request is built). */
export const queryArbitrary: fc.Arbitrary<Array<[string, string]>> = fc.array(
  fc.tuple(queryName, queryValue),
  {
    maxLength: 6,
  },
);

/**
 * Percent-encodes every character but the unreserved ones. A lone surrogate has no UTF-8 form: it is
 * written as the three bytes its code unit would take (WTF-8), which a URL decoder reads as U+FFFD.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (/^[A-Za-z0-9\-._~]$/.test(char)) out += char;
    else if (code >= 0xd800 && code <= 0xdfff) {
      const bytes = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
      out += bytes.map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

const isWellFormed = (text: string) =>
  !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

/**
 * A path id: zero, negatives, huge numbers, numeric look-alikes, prototype names, random text, and the
 * ids of resources that exist. `.` and `..` are left out: URL parsing would remove them as dot segments
 * and the request would reach another resource.
 */
export function idArbitrary(known: Array<number | string>): fc.Arbitrary<string> {
  const arbitraries: Array<fc.Arbitrary<string>> = [
    fc.constantFrom(
      '0',
      '-1',
      '1',
      '2',
      '00',
      '01',
      '1.0',
      '1e3',
      '0x10',
      ' 1',
      '1 ',
      '+1',
      '123456789012345',
      '999999999999999',
      '1234567890123456',
      '9007199254740993',
      '99999999999999999999999999',
      '9'.repeat(1000),
      'NaN',
      'Infinity',
      'null',
      'undefined',
      'types',
      'a'.repeat(2000),
      ...PROTOTYPE_NAMES,
    ),
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 }).map(String),
    fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
    anyString(30, 1).filter((id) => isWellFormed(id) && id !== '.' && id !== '..'),
  ];
  if (known.length > 0) arbitraries.push(fc.constantFrom(...known.map(String)));
  return fc.oneof(...arbitraries);
}

// ----------------------------------------------------------------------------------------------------------
// Requests

/** Compact and bounded, for fast-check's counterexample and for failure messages. */
export function describeRequest(request: FuzzRequest): string {
  const headers = request.headers.map(([name, value]) => `${name}: ${excerpt(value, 80)}`).join('; ');
  const body =
    request.body === undefined
      ? '(none)'
      : `(${Buffer.byteLength(request.body)} bytes) ${excerpt(JSON.stringify(request.body), 400)}`;
  return `${request.method} ${excerpt(request.path, 300)}\n  headers: ${headers || '(none)'}\n  body: ${body}`;
}

export function excerpt(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more chars]`;
}

function withDescription(request: FuzzRequest): FuzzRequest {
  Object.defineProperty(request, fc.toStringMethod, {
    value: () => describeRequest(request),
    enumerable: false,
  });
  return request;
}

/** Replaces `{id}` and appends the query; the id and each query name and value are percent-encoded. */
export function buildPath(route: Route, id: string | undefined, query: Array<[string, string]>): string {
  const path = route.path.replace(/\{\w+\}/g, () => percentEncode(id ?? '1'));
  const search = query.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&');
  return search ? `${path}?${search}` : path;
}

/** Requests for one route with the given dimension random and the others sane. */
export function requestArbitrary(
  route: Route,
  dimension: Dimension,
  known: KnownIds,
): fc.Arbitrary<FuzzRequest> {
  const random = (part: Dimension) => dimension === part || dimension === 'all';
  const knownIds = route.path.startsWith('/api/v1/brands')
    ? known.brands
    : route.path.startsWith('/api/v1/events')
      ? known.events
      : known.contactFields;
  const hasId = route.path.includes('{');
  return fc
    .record({
      id: hasId
        ? random('id')
          ? idArbitrary(knownIds)
          : fc.constantFrom(...knownIds.map(String), '1')
        : fc.constant(undefined),
      query: random('query') ? queryArbitrary : fc.constant<Array<[string, string]>>([]),
      headers: random('headers') ? headersArbitrary : fc.constant<Array<[string, string]>>([]),
      body: random('body') ? bodyArbitrary(route) : saneBody(route),
    })
    .filter(({ body }) => !route.fetchesWeb || !reachesTheWeb(body))
    .map(({ id, query, headers, body }) =>
      withDescription({ method: route.method, path: buildPath(route, id, query), headers, body }),
    )
    .filter((request) => headBytes(request) <= MAX_HEAD_BYTES);
}

// ----------------------------------------------------------------------------------------------------------
// Every string a route reads

/** Where a route reads a caller's string, and how the string is put there. */
export interface StringSlot {
  in: 'body' | 'query';
  /** The body field or query parameter (in each of its spellings: `site_id` and `site_id[]`). */
  name: string;
  /** The field itself, an item of its array, a value or a key of its object. */
  as: 'value' | 'item' | 'map value' | 'map key';
}

/** The forms in which a schema takes strings (through anyOf, oneOf, type lists and $refs). */
function stringForms(schema: JsonSchema): Set<StringSlot['as']> {
  const forms = new Set<StringSlot['as']>();
  const visit = (node: JsonSchema) => {
    const current = resolved(node);
    for (const branch of [...(current.anyOf ?? []), ...(current.oneOf ?? [])]) visit(branch);
    const types: unknown[] = [current.type ?? []].flat();
    const takesString = (child: JsonSchema | undefined) => child !== undefined && accepts(child);
    if (types.includes('string') || current.enum?.some((v: unknown) => typeof v === 'string'))
      forms.add('value');
    if (types.includes('array') && takesString(current.items)) forms.add('item');
    if (types.includes('object') && takesString(current.additionalProperties)) forms.add('map value');
    if (types.includes('object') && takesString(current.propertyNames)) forms.add('map key');
  };
  const accepts = (node: JsonSchema) => stringForms(node).has('value');
  visit(schema);
  return forms;
}

/**
 * Every place the route reads a string: each body field that takes one (as itself, in an array or in an
 * object) and each query parameter (a query value is always a string). From the document, so a new field
 * or parameter is covered once its schema has it.
 */
export function stringSlots(route: Route): StringSlot[] {
  const body = Object.entries(bodyProperties(route)).flatMap(([name, schema]) =>
    [...stringForms(schema)].map((as): StringSlot => ({ in: 'body', name, as })),
  );
  const query = ((operationOf(route)?.parameters ?? []) as JsonSchema[])
    .filter((parameter) => parameter.in === 'query')
    .map((parameter): StringSlot => ({ in: 'query', name: parameter.name, as: 'value' }));
  return [...body, ...query];
}

/** A name of `bytes` UTF-8 bytes (near what a file system holds: 255) in one character, ASCII-padded. */
const nameOfBytes = (char: string, bytes: number) => {
  const count = Math.floor(bytes / Buffer.byteLength(char));
  return char.repeat(count) + 'a'.repeat(bytes - count * Buffer.byteLength(char));
};

const wideChar = fc.constantFrom('a', 'é', '漢', '😀');

/**
 * A name of 200 to 400 bytes, or of a byte count at an edge: the library's 255, and 233 to 241, where a
 * store that adds its own suffix to a file name (s3rver: up to 22 bytes) meets the file system's 255.
 */
const longName = fc.oneof(
  fc.tuple(wideChar, fc.integer({ min: 200, max: 400 })).map(([char, bytes]) => nameOfBytes(char, bytes)),
  fc
    .tuple(wideChar, fc.constantFrom(233, 234, 240, 241, 251, 254, 255, 256))
    .map(([char, bytes]) => nameOfBytes(char, bytes)),
);

/**
 * Path-like strings ending in a long name: half of them directly in the library's root or in a folder
 * that exists (where a store's file system reads the name rather than stopping at a missing folder).
 */
const longNamedPath = fc
  .tuple(
    fc.constantFrom('', 'fuzz/', 'logos/'),
    fc.oneof(
      fc.constant([]),
      fc.array(fc.oneof(longName, fc.stringMatching(/^[a-z0-9]{1,8}$/)), { minLength: 1, maxLength: 2 }),
    ),
    longName,
    fc.oneof(
      { weight: 3, arbitrary: fc.constant('') },
      { weight: 2, arbitrary: fc.constantFrom('.png', '/') },
    ),
  )
  .map(([start, folders, name, end]) => start + [...folders, name].join('/') + end);

/** Control characters, alone and amid text: C0, DEL, C1, line and paragraph separators. */
const withControls = fc
  .tuple(
    fc.string({ maxLength: 8 }),
    fc.array(
      fc.oneof(
        fc.integer({ min: 0x00, max: 0x1f }),
        fc.constantFrom(0x7f, 0x85, 0x9f, 0x2028, 0x2029, 0x200b, 0xfeff, 0x202e),
      ),
      { minLength: 1, maxLength: 4 },
    ),
    fc.string({ maxLength: 8 }),
  )
  .map(([before, codes, after]) => before + codes.map(fromCode).join('') + after);

/** Lone surrogates, alone, amid text, in a path and at the end of a long name. */
const withLoneSurrogate = fc
  .tuple(
    fc.constantFrom('', 'a', 'fuzz/', 'logos/😀', nameOfBytes('漢', 250)),
    fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
    fc.constantFrom('', 'b', '.png', '\ud800'),
  )
  .map(([before, surrogate, after]) => before + surrogate + after);

/** Strings of thousands of characters, up to ~400 KB of UTF-8: well within the body's 1 MiB. */
const veryLong = fc
  .tuple(wideChar, fc.constantFrom(1_000, 4_096, 10_000, 100_000))
  .map(([char, count]) => char.repeat(count));

/** Any string a caller may send: the shapes that have broken string handling, and random text. */
export function adversarialString(options: { veryLong: boolean }): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: longNamedPath },
    { weight: 2, arbitrary: withControls },
    { weight: 2, arbitrary: withLoneSurrogate },
    { weight: 2, arbitrary: anyString(40) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 1, arbitrary: specialString },
    { weight: options.veryLong ? 1 : 0, arbitrary: veryLong },
  );
}

/** The string placed in its slot of an object, as the slot reads it. */
function placed(slot: StringSlot, value: string): unknown {
  switch (slot.as) {
    case 'value':
      return value;
    case 'item':
      return [value];
    case 'map value':
      return { x: value };
    case 'map key':
      return objectFrom([[value, 'https://x.com/acme']]);
  }
}

/**
 * Requests that put one adversarial string in one slot of the route, everything else valid (the route's
 * base body; `id` for a route with one). The string comes with the request for the oracle.
 */
export function stringSlotRequest(
  route: Route,
  slot: StringSlot,
  id: string,
): fc.Arbitrary<{ request: FuzzRequest; value: string }> {
  const hasBody = bodyFields(route).length > 0;
  return fc
    .record({
      value: adversarialString({ veryLong: slot.in === 'body' }),
      base: hasBody ? baseBody(route) : fc.constant(undefined),
    })
    .map(({ value, base }) => {
      const body =
        base === undefined
          ? undefined
          : JSON.stringify(
              slot.in === 'body'
                ? objectFrom([...Object.entries(base), [slot.name, placed(slot, value)]])
                : base,
            );
      const query: Array<[string, string]> = slot.in === 'query' ? [[slot.name, value]] : [];
      const request = withDescription({
        method: route.method,
        path: buildPath(route, id, query),
        headers: [],
        body,
      });
      return { request, value };
    })
    .filter(({ request }) => headBytes(request) <= MAX_HEAD_BYTES)
    .filter(({ request }) => !route.fetchesWeb || !reachesTheWeb(request.body));
}

/**
 * The request line and headers stay well under what the gateway's HTTP parser reads (16 KB; API Gateway
 * takes 10 KB of headers): past it, the answer is about the size of the head, not about its content.
 */
const MAX_HEAD_BYTES = 8_000;

function headBytes(request: FuzzRequest): number {
  const headers = request.headers.reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
  return request.path.length + headers;
}

/**
 * Whether auto-configure could try to reach the network with this body's URL. Only URLs it refuses before
 * any lookup or connection are generated: credentials, a non-default port, `localhost`, or a loopback,
 * private or link-local IP literal. Anything else (a public address or a name to resolve) would make the
 * outcome depend on the outside world, so such a request is never sent.
 */
function reachesTheWeb(body: string | undefined): boolean {
  if (body === undefined) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return false;
  const url = Object.getOwnPropertyDescriptor(parsed, 'url')?.value;
  if (typeof url !== 'string') return false;
  return [url, url.trim()].some((candidate) => {
    if (!URL.canParse(candidate)) return false;
    const target = new URL(candidate);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return false;
    if (target.username !== '' || target.password !== '') return false;
    if (!['', '80', '443'].includes(target.port)) return false;
    const host = target.hostname
      .replace(/^\[|\]$/g, '')
      .replace(/\.+$/, '')
      .toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost')) return false;
    return !(isIP(host) !== 0 && PRIVATE_ADDRESS.test(host));
  });
}

const PRIVATE_ADDRESS =
  /^(127\.|10\.|0\.|169\.254\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1$|::$|f[cd]|fe80:)/;

// ----------------------------------------------------------------------------------------------------------
// Sending

/**
 * Sends the request over HTTP. fetch is used unless it cannot send the request as generated: it refuses a
 * body on GET and silently drops a header named `__proto__`; those go through node:http with raw headers.
 */
export async function send(baseUrl: string, token: string, request: FuzzRequest): Promise<FuzzResponse> {
  const headers: Array<[string, string]> = [
    ['Authorization', `Bearer ${token}`],
    ['Accept', 'application/json'],
  ];
  const hasContentType = request.headers.some(([name]) => name.toLowerCase() === 'content-type');
  if (request.body !== undefined && !hasContentType) headers.push(['Content-Type', 'application/json']);
  headers.push(...request.headers);
  const needsRaw =
    (request.method === 'GET' && request.body !== undefined) ||
    headers.some(([name]) => name === '__proto__');
  if (needsRaw) return sendRaw(baseUrl, request.method, request.path, headers, request.body);
  const response = await fetch(baseUrl + request.path, {
    method: request.method,
    headers,
    body: request.body,
    signal: AbortSignal.timeout(20_000),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** node:http with the headers exactly as given (Host and Content-Length added) and the path unparsed. */
export function sendRaw(
  baseUrl: string,
  method: string,
  path: string,
  headers: Array<[string, string]>,
  body?: string,
): Promise<FuzzResponse> {
  const url = new URL(baseUrl);
  const raw: string[] = ['Host', url.host];
  for (const [name, value] of headers) raw.push(name, value);
  if (body !== undefined) raw.push('Content-Length', String(Buffer.byteLength(body)));
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: url.hostname, port: url.port, method, path, headers: raw, agent: false, timeout: 20_000 },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            headers,
          });
        });
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('request timed out')));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

// ----------------------------------------------------------------------------------------------------------
// The oracle

/** The statuses a route may answer: its own and the common ones (5xx are refused separately). */
export function allowedStatuses(route: Route): number[] {
  return [...new Set([...route.statuses, ...COMMON_STATUSES])];
}

/**
 * What is wrong with a response, or an empty list: no 5xx (no faults are injected, so 503/504 are bugs
 * too), a JSON body (but the text a route's success declares, e.g. the reference page's HTML), an object
 * with a non-empty `message` on an error, a status the route documents, and on GET and DELETE (whose body
 * is ignored) no 400 caused by the body.
 */
export function problemsWith(route: Route, request: FuzzRequest, response: FuzzResponse): string[] {
  const problems: string[] = [];
  const { status, text } = response;
  const statuses = [...allowedStatuses(route), ...(reachesResourceWithout(route, request) ? [405] : [])];
  if (status >= 500) problems.push(`status ${status} is a server error`);
  else if (!statuses.includes(status)) {
    problems.push(`status ${status} is not one of ${statuses.join(', ')}`);
  }
  let body: unknown;
  const textSuccess = status < 300 && OPERATIONS[routeKey(route)]?.successMediaType !== undefined;
  if (!textSuccess) {
    try {
      body = JSON.parse(text);
    } catch {
      problems.push('the body is not JSON');
    }
  }
  if (status >= 400 && body !== undefined) {
    const message = (body as { message?: unknown } | null)?.message;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      problems.push('the error body is not an object');
    else if (typeof message !== 'string' || message.trim() === '') {
      problems.push('the error body has no non-empty string `message`');
    }
  }
  // A list's `cursor` is in the query: its 400 is not the body's.
  const badCursor = (body as { message?: unknown } | undefined)?.message === INVALID_CURSOR;
  if (
    status === 400 &&
    !badCursor &&
    request.body !== undefined &&
    (route.method === 'GET' || route.method === 'DELETE')
  ) {
    problems.push(`400 on ${route.method}: the body of a ${route.method} must be ignored`);
  }
  return problems;
}

/**
 * An id that is a literal resource's name beside `{id}` (`/contact-fields/types`) reaches that resource, as
 * in API Gateway: where it lacks the route's method, the answer is its 405.
 */
function reachesResourceWithout(route: Route, request: FuzzRequest): boolean {
  const { pathname } = new URL(request.path, 'http://localhost');
  const sibling = routes.filter((candidate) => candidate.path === pathname && pathname !== route.path);
  return sibling.length > 0 && !sibling.some((candidate) => candidate.method === route.method);
}

/** Throws an error naming the request and the response when the response breaks the oracle. */
export function assertResponse(route: Route, request: FuzzRequest, response: FuzzResponse): void {
  const problems = problemsWith(route, request, response);
  if (problems.length === 0) return;
  throw new Error(
    [
      `${route.method} ${route.path}: ${problems.join('; ')}`,
      `request: ${describeRequest(request)}`,
      `response: ${response.status} ${excerpt(response.text, 600)}`,
    ].join('\n'),
  );
}
