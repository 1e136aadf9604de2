import * as z from 'zod';
import { ROTATION_OVERLAP_MS } from '../../shared/data/webhook-endpoints.ts';
import { REFERENCE_PAGE_CSP } from '../../shared/docs/reference-page.ts';
import { socialLinksForms } from '../../shared/domain/brand-input.ts';
import { CONTACT_TYPES } from '../../shared/domain/contact-field-types.ts';
import { DELIVERY_STATES } from '../../shared/domain/delivery-states.ts';
import { EVENT_ID, EVENT_ID_LENGTH, EVENT_TYPES, type EventType } from '../../shared/domain/event-shape.ts';
import { EVENT_RESOURCE } from '../../shared/domain/requests.ts';
import { CURSOR_FORM } from '../../shared/http/cursors.ts';
import { MAX_ID } from '../../shared/http/handler.ts';
import { IDEMPOTENCY_KEY } from '../../shared/http/idempotency.ts';
import {
  BEARER_CHALLENGE,
  EXPIRED_TOKEN_CHALLENGE,
  insufficientScopeChallenge,
  MESSAGES,
} from '../../shared/http/messages.ts';
import { LIMITS, QUOTA_DEFAULTS, TIMEOUTS } from '../../shared/limits.ts';
import {
  MAX_RATE_LIMIT,
  PLAN_NAME_FORM,
  PLAN_NAME_LENGTH,
  RATE_LIMIT_WINDOWS,
} from '../../shared/rate-limits.ts';
import { type Route, routeKey, routeStatuses, routes } from '../../shared/routes.ts';
import { SCOPES, type Scope } from '../../shared/scopes.ts';
import {
  DELIVERY_TIMEOUT_MS,
  DISABLE_AFTER_MS,
  JITTER,
  MAX_RETRY_AFTER_MS,
  RETRY_DELAYS_MS,
} from '../../shared/webhooks/schedule.ts';
import { EVENT_RESOURCE_LENGTH } from './descriptions.ts';
import { EVENT_FAMILY_SCOPES, OPERATIONS, type Operation, WEBHOOK_EXAMPLES } from './operations.ts';
import * as representations from './representations.ts';

/**
 * The OpenAPI 3.1 document, built from the route table (paths, methods, statuses, public or not), the
 * schemas the handlers validate requests with and the response representations. `npm run openapi` writes
 * it to shared/openapi/openapi.json, which the API serves and the typed client is generated from.
 */
type JsonSchema = Record<string, unknown>;

/**
 * The representations by component name: an export's name without a `Schema` suffix (`BrandSchema` is
 * `Brand`, which names the TypeScript type in shared/), in code-unit order as a module's exports are.
 */
const REPRESENTATIONS = (Object.entries(representations) as Array<[string, z.core.$ZodType]>)
  .map(([name, schema]): [string, z.core.$ZodType] => [name.replace(/Schema$/, ''), schema])
  .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const nameOf = new Map(REPRESENTATIONS.map(([name, schema]) => [schema, name]));

/** The delivery states as the status filter names them: `a`, `b`, `c` or `d`. */
const deliveryStateCodes = DELIVERY_STATES.map((state) => `\`${state}\``);
const spokenStates = `${deliveryStateCodes.slice(0, -1).join(', ')} or ${deliveryStateCodes.at(-1)}`;

/**
 * A `Link` a client can follow as given (it is not a URI template): an absolute http(s) URL whose path, under
 * `/api/v1/` (after a stage), and query hold only characters a URL holds as they are (so no `{id}` of a
 * route's template), a `cursor` of the issued form, and `rel="next"`.
 */
const PATH_CHAR = "[A-Za-z0-9._~!$&'()*+,;=:@%-]";
const QUERY_PAIR = "[A-Za-z0-9._~!$'()*+,;:@%/?-]+=[A-Za-z0-9._~!$'()*+,;:@%/?-]*";
const NEXT_LINK_FORM =
  `^<https?://[A-Za-z0-9.:\\[\\]-]+(?:/${PATH_CHAR}+)*/api/v1(?:/${PATH_CHAR}+)+` +
  `\\?(?:${QUERY_PAIR}&)*cursor=${CURSOR_FORM.source.slice(1, -1)}(?:&${QUERY_PAIR})*>; rel="next"$`;

/** An http or https URL's start, in any case (`HTTPS://` is read as `https:`). */
const HTTP_URL = '^[Hh][Tt][Tt][Pp][Ss]?://';

const INT32 = { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };

/** An integer's `format`, from the bounds it has: int32 when they fit in 32 bits, else int64. */
function integerFormat(schema: JsonSchema): 'int32' | 'int64' {
  const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
  return minimum !== undefined &&
    maximum !== undefined &&
    minimum >= INT32.minimum &&
    maximum <= INT32.maximum
    ? 'int32'
    : 'int64';
}

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect); named representations become $refs. */
function jsonSchema(schema: z.core.$ZodType, io: 'input' | 'output'): JsonSchema {
  const named = nameOf.get(schema);
  if (named) return { $ref: `#/components/schemas/${named}` };
  if (schema instanceof z.core.$ZodArray && nameOf.has(schema._zod.def.element)) {
    // The array's own bounds, its items by reference.
    return { ...converted(schema, io), items: jsonSchema(schema._zod.def.element, io) };
  }
  return converted(schema, io);
}

/** A zod schema as JSON Schema, every integer with its format (zod states the bounds, not the format). */
function converted(schema: z.core.$ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema, ...result } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema: out }) => {
      // A named representation inside another (an event's brand) is referred to, not repeated.
      const named = zodSchema !== schema && nameOf.get(zodSchema as z.core.$ZodType);
      if (named) {
        for (const key of Object.keys(out)) delete out[key];
        out.$ref = `#/components/schemas/${named}`;
        return;
      }
      // social_links is checked to be an object before its forms are: show the forms.
      const def = zodSchema._zod.def as { type: string; in?: unknown; out?: unknown };
      if (def.type === 'pipe' && def.out === socialLinksForms) {
        const { $schema: _, ...forms } = z.toJSONSchema(socialLinksForms, { target: 'draft-2020-12', io });
        for (const key of Object.keys(out)) delete out[key];
        Object.assign(out, forms);
      }
      // An enum read as a string first (so that a missing value is reported as missing): show its values.
      if (def.type === 'pipe' && def.in instanceof z.core.$ZodString && def.out instanceof z.core.$ZodEnum) {
        out.enum = Object.values(def.out._zod.def.entries);
      }
      if (out.type === 'integer' && out.format === undefined) out.format = integerFormat(out);
    },
  }) as JsonSchema;
  return httpUrls(result);
}

/**
 * Every URL the API takes or gives is http(s), which `format: uri` does not say (it allows any scheme): a
 * URL without a pattern of its own gets that of the scheme, as `new URL` reads it (in any case).
 */
function httpUrls(schema: JsonSchema): JsonSchema {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const member = node as JsonSchema;
    if (member.format === 'uri' && member.pattern === undefined) member.pattern = HTTP_URL;
    for (const value of Object.values(member)) visit(value);
  };
  visit(schema);
  return schema;
}

/** A success's description by status: 202 for work that is queued (webhook deliveries). */
const SUCCESS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted: the deliveries are queued; the attempts list tells how they went',
};

const ERROR_BODIES: Record<number, { schema: string; description: string }> = {
  400: { schema: 'Message', description: 'Malformed request: JSON, nesting, encoding, headers' },
  401: { schema: 'Message', description: 'No token, or not a valid one' },
  403: { schema: 'Message', description: "Another team's resource" },
  404: { schema: 'Message', description: 'No such resource' },
  409: { schema: 'Conflict', description: 'A conflict named by `error_code`' },
  412: { schema: 'Conflict', description: 'If-Match names another version: `precondition_failed`' },
  413: { schema: 'Message', description: 'Body over 1 MiB' },
  415: {
    schema: 'Message',
    description:
      'A body that is not JSON by its `Content-Type` (`text/plain`, a form): send it as `application/json` ' +
      '(a body without a Content-Type is read as JSON)',
  },
  422: { schema: 'ValidationError', description: 'Validation failed' },
  429: {
    schema: 'Message',
    description:
      "Over the team's rate limit plan (GET `/api/v1/limits` tells it) or the stage's; retry after `Retry-After`",
  },
  500: { schema: 'Message', description: 'An unexpected failure (a bug): quote X-Request-Id' },
  503: {
    schema: 'Message',
    description:
      "A dependency is unavailable, or the route's share of Lambda concurrency is full; retry after `Retry-After` seconds",
  },
  504: { schema: 'Message', description: 'The request ran out of time' },
};

/**
 * The introduction's "Authentication", a section of its own in the reference page's sidebar (README,
 * "Authentication", "Scopes"): how to send a token and get one (the security scheme's description, which
 * Redoc shows there through its `security-definitions` component as well as under each operation), then
 * "Scopes": each scope with the operations it allows (from the route table), and the 401 and 403 answers.
 */
function authentication(): string {
  const operations = (scope: Scope) =>
    routes
      .filter((route) => route.scope === scope)
      .map((route) => `\`${routeKey(route)}\``)
      .join(', ');
  const rows = SCOPES.map((scope) => {
    const own = operations(scope);
    if (!scope.endsWith(':write')) return `| \`${scope}\` | ${own || 'none yet (no operation reads them)'} |`;
    const read = `those of \`${scope.replace(/:write$/, ':read')}\``;
    return `| \`${scope}\` | ${own ? `${read}, and ${own}` : `${read} (no operation writes them)`} |`;
  });
  const example = insufficientScopeChallenge('brands:write');
  return [
    '# Authentication',
    "Send the team's token on every call but those for this reference: `Authorization: Bearer <token>`. " +
      'To get one locally, run `npm start`: its first run creates a demo team and prints its token (kept ' +
      'in `.data/local.json` as `demo_token`); `npm run -s admin -- team create --name Acme` makes another ' +
      "team and prints its token. In production, a team's tokens come from the platform's dashboard. " +
      'The scheme, with every admin command:',
    // Redoc's component for the security schemes: bearerAuth's description, here and not only behind each
    // operation's "Authorizations".
    '<!-- ReDoc-Inject: <security-definitions> -->',
    '## Scopes',
    'A token holds scopes, a read and a write scope per resource family, or full access. Each operation ' +
      'names the one it needs (its `security`, and a line of its description); a `:write` scope includes ' +
      "the family's `:read`. A token made without `--scopes`, and every token made before scopes existed, " +
      'has full access. `GET /api/v1/limits` needs no scope: any valid token may read its own limits. ' +
      "The operator makes a token of some scopes with the admin CLI (the dashboard's stand-in): `npm run " +
      'admin -- token create --team <team id> [--name <name>] [--scopes brands:read,webhooks:write] ' +
      '[--expires 2027-01-01]`.',
    ['| scope | allows |', '| --- | --- |', ...rows].join('\n'),
    `**Events follow their resources' scopes.** An event carries its resource (a brand, a contact field, a ` +
      "webhook endpoint and its URL), so each event type belongs to its resource's family, whose read " +
      `scope reads its events: ${EVENT_FAMILY_SCOPES} (or the family's \`:write\`). \`GET /api/v1/events\` ` +
      'lists only the events of families the token reads ' +
      '(with `events:read` alone, none: an empty list); `GET /api/v1/events/{id}` of another family is a ' +
      '`403 insufficient_scope` naming its scope. Sending events somewhere needs what reading them needs: ' +
      'subscribing an endpoint to a type (`POST /api/v1/webhook-endpoints`, or a `PUT` that adds it or ' +
      "gives the endpoint another `url`) and `POST /api/v1/events/{id}/redeliver` need the family's read " +
      'scope besides `webhooks:write`.',
    `**403 \`insufficient_scope\`.** A token without the operation's scope is refused before anything of ` +
      'the request is read or done: `403 {"message": "This token lacks the scope brands:write, which POST ' +
      '/api/v1/brands needs.", "error_code": "insufficient_scope", "required_scope": "brands:write"}` with ' +
      `\`WWW-Authenticate: ${example}\` (RFC 6750 §3.1).`,
    `**401.** No token, or a malformed, unknown, revoked or expired one: \`401 {"message": ` +
      `"${MESSAGES.unauthenticated}"}\` with \`WWW-Authenticate: ${BEARER_CHALLENGE}\`. A deployment caches ` +
      "each token's check for its `authorizerCacheSeconds` (5 minutes by default); an expiry is still exact: a token that expires while its check is " +
      `cached is answered \`401 {"message": "${MESSAGES.tokenExpired}"}\` with ` +
      `\`WWW-Authenticate: ${EXPIRED_TOKEN_CHALLENGE}\`. A revoked token may work until its cached check ends.`,
  ].join('\n\n');
}

/** How to get a token and use it, and what refusing it looks like (README, "Authentication"). */
const BEARER_AUTH = [
  'A team API token, sent on every request but those for this reference: `Authorization: Bearer <token>`, ' +
    'spelled so (`Bearer`, one space: another spelling is a 401). ' +
    'A token looks like `tm_<plan>_<team id>_<secret>` (its rate limit plan, its team, letters and digits) ' +
    'and acts for its team only: ' +
    "another team's brand or contact field is a 403. A team holds at most " +
    `${LIMITS.liveTokensPerTeam} live tokens, each held to its rate limit plan.`,
  '**Getting one.** Locally, `npm start` creates a demo team on its first run and prints its token (kept ' +
    'in `.data/local.json` as `demo_token`); the admin CLI makes more: `npm run -s admin -- team create ' +
    "--name Acme` prints a new team's `team_id` and `token`, `npm run -s admin -- token create --team " +
    '<team id> --name CI --scopes brands:read --expires 90d` another token of a team (scopes and expiry ' +
    'are optional: full access and no expiry without them), `npm run -s admin -- token list --team <team id>` ' +
    'lists them (their first characters only), and `npm run -s admin -- token revoke --team <team id> --id ' +
    "<token id>` (or `--all`) revokes them. In production, a team's tokens come from the platform's dashboard (the operator can also run the " +
    'admin CLI against the deployed stack).',
  `**401.** A missing header, another scheme, or a malformed, unknown, revoked or expired token is answered \`401 ` +
    `{"message": "${MESSAGES.unauthenticated}"}\` with \`WWW-Authenticate: ${BEARER_CHALLENGE}\` (RFC 6750). ` +
    "A deployment caches each token's check for its `authorizerCacheSeconds` (5 minutes by default): a " +
    'revoked token may work that long; an expired one stops at its expiry.',
  '**Scopes.** A token may hold only some scopes (the introduction, "Authentication", "Scopes", lists ' +
    'them): an operation outside them is a `403` with `error_code` `insufficient_scope`, `required_scope` ' +
    'and `WWW-Authenticate` naming the scope the operation needs.',
].join('\n\n');

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * Entity tags: the API's are `"b.<version>.<0|1>"` (brands), `"f.<version>"` (contact fields),
 * `"w.<version>"` (webhook endpoints) or a digest's 27 characters in quotes (shared/http/preconditions.ts,
 * conditional.ts), so 29 characters at most; a client may send any tag.
 */
const ETAG_LENGTH = 29;
const STRONG_TAG = '"[A-Za-z0-9._-]+"';
const ENTITY_TAG = '(W/)?"[^"]*"';

/** `"<plan>";q=<limit>;w=<window>` (or `r=`, `t=`) at its longest: the longest plan name, limit and window. */
const RATE_LIMIT_HEADER_LENGTH =
  '"";q=;w='.length +
  PLAN_NAME_LENGTH +
  String(MAX_RATE_LIMIT).length +
  String(Math.max(...RATE_LIMIT_WINDOWS)).length;

/**
 * The route's own statuses, those any route may answer, and 500: no request should cause one, but an
 * unexpected failure is answered so (JSON, with the request id) rather than as a bare gateway error.
 */
function documentedStatuses(route: Route): number[] {
  return [...new Set([...routeStatuses(route), 500])]
    .filter((status) => !(route.public && status === 401))
    .sort((a, b) => a - b);
}

/** `brands:write` for a write; for a read, `brands:read` and the family's write, which includes it. */
function scopesGranting(scope: Scope): Scope[] {
  return scope.endsWith(':read') ? [scope, scope.replace(/:read$/, ':write') as Scope] : [scope];
}

/**
 * The line of an operation's description that names its scope (the reference page shows it), and what it
 * needs beyond it by the event types it touches (Operation.eventScopes).
 */
function scopeLine(route: Route, operation: Operation): string | undefined {
  if (route.public) return undefined;
  if (!route.scope) return 'Any valid token may call it, whatever its scopes.';
  const [needed, alternative] = scopesGranting(route.scope);
  const line = `Requires the \`${needed}\` scope${alternative ? ` (or \`${alternative}\`)` : ''}.`;
  return operation.eventScopes ? `${line} ${operation.eventScopes.needs}` : line;
}

/**
 * A 403 of a route that needs a scope: the token lacks it (insufficient_scope), or, where the route answers
 * 403 of its own (another team's resource), that {message}; and what the operation needs beyond its scope
 * by the event types it touches.
 */
function forbidden(route: Route & { scope: Scope }, operation: Operation, headers: Record<string, unknown>) {
  const own = route.statuses.includes(403);
  const lacking = `the token lacks the \`${route.scope}\` scope (\`insufficient_scope\`)`;
  const scoped = { $ref: '#/components/schemas/InsufficientScope' };
  const base = own ? `${ERROR_BODIES[403]?.description}, or ${lacking}` : `Forbidden: ${lacking}`;
  const family = operation.eventScopes?.refuses ? operation.eventScopes.needs : undefined;
  // For an event type's family, the challenge names the family's read scope (the first one lacking).
  const more = family
    ? ', or the read scope of an event type\'s family it lacks (`scope="brands:read"`, …)'
    : '';
  return {
    description: family ? `${base}. ${family}` : base,
    headers: {
      ...headers,
      'WWW-Authenticate': {
        ...headerRef('WwwAuthenticate'),
        description: `On an \`insufficient_scope\` answer: \`${insufficientScopeChallenge(route.scope)}\`${more}`,
      },
    },
    content: {
      'application/json': {
        schema: own ? { oneOf: [{ $ref: '#/components/schemas/Message' }, scoped] } : scoped,
      },
    },
  };
}

function responses(route: Route, operation: Operation) {
  const statuses = documentedStatuses(route);
  return Object.fromEntries(
    statuses.map((status) => {
      const headers: Record<string, unknown> = {
        'X-Request-Id': headerRef('RequestId'),
        // The CORS policy (info.description): only for an Origin of the deployment's corsOrigins.
        'Access-Control-Allow-Origin': headerRef('AccessControlAllowOrigin'),
      };
      if (status === 503 || status === 429) headers['Retry-After'] = headerRef('RetryAfter');
      if (status === 401) headers['WWW-Authenticate'] = headerRef('WwwAuthenticate');
      if (operation.idempotent && status < 500) headers['Idempotent-Replay'] = headerRef('IdempotentReplay');
      if ((route.public || (operation.versioned && route.method !== 'DELETE')) && status < 400) {
        headers.ETag = headerRef('ETag');
      }
      if (operation.paged && status === 200) headers.Link = headerRef('Link');
      // The reference's files (the page, its script, this document): how long to cache them, and the
      // page's and script's protections.
      if (route.public && status < 400) {
        headers['Cache-Control'] = headerRef('CacheControl');
        if (operation.successMediaType) headers['X-Content-Type-Options'] = headerRef('XContentTypeOptions');
        if (operation.successMediaType === 'text/html')
          headers['Content-Security-Policy'] = headerRef('ContentSecurityPolicy');
      }
      // Every request that carries a token is counted, a public route's too.
      headers['RateLimit-Policy'] = headerRef('RateLimitPolicy');
      headers.RateLimit = headerRef('RateLimit');
      if (status === 304) return [String(status), { description: 'Not modified', headers }];
      if (status === 403 && route.scope)
        return [String(status), forbidden({ ...route, scope: route.scope }, operation, headers)];
      if (status < 300) {
        if (!operation.success && !operation.successMediaType) {
          throw new Error(`${operation.id}: no success body`);
        }
        // A text body (the reference page, its script) is a file of the API's own: its media type says it.
        const content = operation.successMediaType
          ? { [operation.successMediaType]: {} }
          : {
              'application/json': {
                schema: jsonSchema(operation.success as z.ZodType, 'output'),
                ...(operation.example.response !== undefined && { example: operation.example.response }),
              },
            };
        return [String(status), { description: SUCCESS[status] ?? 'OK', headers, content }];
      }
      const error = ERROR_BODIES[status] ?? { schema: 'Message', description: 'Error' };
      return [
        String(status),
        {
          description: error.description,
          headers,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${error.schema}` } } },
        },
      ];
    }),
  );
}

/**
 * A query parameter's value as the handlers' refinements accept it (zod's JSON Schema shows only a list of
 * strings, the form every query value is read in): kept here rather than as schema metadata, which would
 * cost every function at load. One value each; a filter its operation declares `repeatable` is a list of
 * them, at most `maxItems`.
 */
const QUERY_PARAMETERS: Record<string, { description: string; value: JsonSchema; maxItems?: number }> = {
  limit: {
    description: `At most this many items (1 to ${LIMITS.listPageSize}); without it, all of them.`,
    value: { type: 'integer', format: 'int32', minimum: 1, maximum: LIMITS.listPageSize },
  },
  cursor: {
    description:
      'Where the page starts: the `cursor` of the URL in the previous page\'s `Link: <…>; rel="next"` ' +
      'header. Opaque; valid only with the same filters.',
    value: { type: 'string', maxLength: LIMITS.cursorLength, pattern: CURSOR_FORM.source },
  },
  site_id: {
    description:
      `Only pages of these sites: repeat it for several (\`site_id=3&site_id=4\`; \`site_id[]=3\` is read ` +
      `the same), at most ${LIMITS.pageSiteIds} ids in all.`,
    maxItems: LIMITS.pageSiteIds,
    // Up to 15 digits, as pagesQuery reads them; an id that names no site of the team matches nothing.
    value: { type: 'integer', format: 'int64', minimum: -MAX_ID, maximum: MAX_ID },
  },
  contact_type: {
    description: 'Only fields of this contact type (given once).',
    value: { type: 'string', enum: [...CONTACT_TYPES] },
  },
  type: {
    description:
      'Only events of these types (any of them): repeat it for several (`type=brand.created&type=brand.deleted`; ' +
      `\`type[]=\` is read the same), at most ${EVENT_TYPES.length} values in all; an unknown type is a 422 ` +
      'naming `type`.',
    maxItems: EVENT_TYPES.length,
    value: { type: 'string', enum: [...EVENT_TYPES] },
  },
  status: {
    description: `Only the deliveries in this state: ${spokenStates} (anything else is a 422 naming \`status\`).`,
    value: { type: 'string', enum: [...DELIVERY_STATES] },
  },
  resource: {
    description:
      'Only the events of this resource: `brand:<id>`, `contact_field:<id>` or `webhook_endpoint:<id>`, the ' +
      'id a positive integer (anything else is a 422 naming `resource`).',
    value: { type: 'string', maxLength: EVENT_RESOURCE_LENGTH, pattern: EVENT_RESOURCE.source },
  },
};

/** What an `{id}` names, by the operation's tag, where the tag's singular does not say it. */
const ID_OF: Partial<Record<Operation['tag'], string>> = { Webhooks: 'webhook endpoint' };

function parameters(route: Route, operation: Operation): unknown[] {
  const list: unknown[] = [];
  const owner = ID_OF[operation.tag] ?? operation.tag.toLowerCase().replace(/s$/, '');
  for (const [, name = ''] of route.path.matchAll(/\{(\w+)\}/g)) {
    // Ids are positive integers, as pathId reads them (any other is a 404); other names say their own.
    const schema =
      operation.pathParameters?.[name] ??
      (name === 'id' ? { type: 'integer', format: 'int64', minimum: 1, maximum: MAX_ID } : undefined);
    if (!schema) throw new Error(`${operation.id}: no schema for the path parameter ${name}`);
    // A schema's description is the parameter's; an id's says whose it is (a brand's, a contact field's).
    const { description: own, ...shape } = schema;
    const description =
      (own as string | undefined) ?? `The ${owner}'s id (another team's is a 403, an unknown one a 404).`;
    list.push({ name, in: 'path', required: true, description, schema: shape });
  }
  // A paged list's `limit` and `cursor` come after its filters (shared/http/pagination.ts reads them).
  const names = [
    ...Object.keys(operation.query?._zod.def.shape ?? {}),
    ...(operation.paged ? ['limit', 'cursor'] : []),
  ];
  for (const name of names) {
    const parameter = QUERY_PARAMETERS[name];
    if (!parameter) throw new Error(`${operation.id}: no description of the query parameter ${name}`);
    const repeatable = operation.repeatable?.includes(name) ?? false;
    if (repeatable !== (parameter.maxItems !== undefined)) {
      throw new Error(`${operation.id}: ${name} is repeatable in the operation or in QUERY_PARAMETERS only`);
    }
    // A list with a page size of its own says so (the events: never answered whole).
    const description =
      name === 'limit' && operation.defaultLimit !== undefined
        ? `At most this many items (1 to ${LIMITS.listPageSize}); without it, ${operation.defaultLimit}.`
        : parameter.description;
    // A repeatable filter once, as a list (`name=a&name=b`); its `name[]=` spelling is read the same and
    // said in the description, not documented as a second parameter.
    const schema = repeatable
      ? { type: 'array', maxItems: parameter.maxItems, items: parameter.value }
      : parameter.value;
    list.push({
      name,
      in: 'query',
      required: false,
      description,
      schema,
      ...(repeatable && { style: 'form', explode: true }),
    });
  }
  if (operation.idempotent) list.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (operation.versioned && route.method === 'GET')
    list.push({ $ref: '#/components/parameters/IfNoneMatch' });
  if (operation.versioned && (route.method === 'PUT' || route.method === 'DELETE')) {
    list.push({ $ref: '#/components/parameters/IfMatch' });
  }
  return list;
}

function operationObject(route: Route, operation: Operation) {
  const description = [operation.description, scopeLine(route, operation)].filter(Boolean).join('\n\n');
  return {
    operationId: operation.id,
    tags: [operation.tag],
    summary: operation.summary,
    ...(description && { description }),
    ...(route.public && { security: [] }),
    // Alternatives: a read is allowed by the family's read or its write.
    ...(route.scope && { security: scopesGranting(route.scope).map((scope) => ({ bearerAuth: [scope] })) }),
    parameters: parameters(route, operation),
    ...(operation.body && {
      requestBody: {
        required: !operation.bodyOptional,
        content: {
          'application/json': {
            schema: jsonSchema(operation.body, 'input'),
            ...(operation.example.request !== undefined && { example: operation.example.request }),
          },
        },
      },
    }),
    responses: responses(route, operation),
  };
}

/** One signature of `webhook-signature`: `v1,` and a SHA-256 HMAC in base64 (shared/domain/webhook-signing.ts). */
const SIGNATURE = 'v1,[A-Za-z0-9+/]{43}=';
const SIGNATURE_LENGTH = 'v1,'.length + 44;

/** A delay as people write it: `5 s`, `30 min`, `2 h`. */
function spoken(ms: number): string {
  if (ms >= 3_600_000) return `${ms / 3_600_000} h`;
  return ms >= 60_000 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

const [FIRST_DELAY, ...RETRY_DELAYS] = RETRY_DELAYS_MS;
const TIMEOUT = spoken(DELIVERY_TIMEOUT_MS);
const SCHEDULE_MS = RETRY_DELAYS_MS.reduce((sum: number, delay) => sum + delay, 0);

/** How deliveries work (README, "Webhooks"): the Webhooks tag's description. */
const WEBHOOKS = [
  "Endpoints the team's events are POSTed to, and how each delivery goes. Every event of a type an " +
    'endpoint subscribes to is sent to its URL as JSON: the event as `GET /events/{id}` answers it, with ' +
    'the Standard Webhooks headers `webhook-id` (the event id: the same on every retry and redelivery, so ' +
    'deduplicate on it), `webhook-timestamp` and `webhook-signature` (an HMAC-SHA256 under the signing ' +
    'secret). Verify with the `standardwebhooks` npm package (`new Webhook(secret).verify(body, headers)`, ' +
    'the raw body as received) or any Standard Webhooks library.',
  `**Answers.** A 2xx within ${TIMEOUT} is delivered. 410 disables the endpoint (\`disabled_reason\` ` +
    '`gone`, and a `webhook_endpoint.disabled` event). Anything else (another status, a redirect, which ' +
    `is not followed, no answer within ${TIMEOUT}) fails the try. A delivery is tried ` +
    `${FIRST_DELAY === 0 ? 'at once' : `after ${spoken(FIRST_DELAY ?? 0)}`}, then after each failure again ` +
    `after ${RETRY_DELAYS.map(spoken).join(', ')} (each delay ±${JITTER * 100}%): ` +
    `${RETRY_DELAYS_MS.length} tries over about ${Math.round(SCHEDULE_MS / 86_400_000)} days, then it is ` +
    'given up (`POST /webhook-endpoints/{id}/recover` sends it again). After a 429 or 503 the next try also ' +
    `waits for its \`Retry-After\` (seconds or an HTTP date, up to ${spoken(MAX_RETRY_AFTER_MS)}). An ` +
    `endpoint whose deliveries fail for ${DISABLE_AFTER_MS / 86_400_000} days without a success is ` +
    'disabled (`failing`).',
  "**Order.** At least once and in no order: the same event may come twice (deduplicate on `webhook-id`), and a resource's events may come out of order: drop one whose `resource_version` is lower than one applied.",
].join('\n\n');

/** What each event type's delivery tells (the `webhooks` of the document). */
const WEBHOOK_EVENTS: Record<EventType, { summary: string; description: string }> = {
  'brand.created': { summary: 'A brand was created', description: '`data.object` is the new brand.' },
  'brand.updated': {
    summary: 'A brand changed',
    description:
      '`data.object` is the brand after the change, `data.previous_attributes` the former values of the ' +
      'fields that changed. A default-brand change is one of each brand whose `is_default` changed.',
  },
  'brand.deleted': {
    summary: 'A brand was deleted',
    description: '`data.object` is the brand as it was last.',
  },
  'contact_field.created': {
    summary: 'A contact field was created',
    description: '`data.object` is the new contact field.',
  },
  'contact_field.updated': {
    summary: 'A contact field changed',
    description:
      '`data.object` is the contact field after the change, `data.previous_attributes` the former values ' +
      'of the fields that changed.',
  },
  'contact_field.deleted': {
    summary: 'A contact field was deleted',
    description: '`data.object` is the contact field as it was last.',
  },
  'webhook_endpoint.disabled': {
    summary: 'The API disabled a webhook endpoint',
    description:
      `It answered a delivery with 410, or its deliveries failed for ${DISABLE_AFTER_MS / 86_400_000} days: ` +
      '`data.object` is the endpoint, whose `disabled_reason` (`gone`, `failing`) says which. Sent to the ' +
      "team's other endpoints subscribed to it (a disabled one is sent nothing); `PUT` it with " +
      '`disabled: false`, then `recover` what it missed.',
  },
};

/** `brand.created` → `brandCreated`: the operation id of the type's delivery. */
const camelCase = (type: string) => type.replace(/[._]([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * OpenAPI 3.1's `webhooks`: what the API sends, one POST per event type, to the URL of each endpoint that
 * subscribes to it. Its answers decide what happens next (WEBHOOKS).
 */
function webhooks() {
  const retried = {
    description:
      "Retried on the schedule, and no earlier than the answer's `Retry-After` (counted up to " +
      `${spoken(MAX_RETRY_AFTER_MS)})`,
    headers: { 'Retry-After': headerRef('WebhookRetryAfter') },
  };
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${camelCase(type)}Webhook`,
          tags: ['Webhooks'],
          summary: WEBHOOK_EVENTS[type].summary,
          description: `A \`${type}\` event, POSTed to each enabled endpoint subscribed to it. ${WEBHOOK_EVENTS[type].description}`,
          // Sent by the API, not called with a token: the receiver verifies the signature.
          security: [],
          parameters: ['WebhookId', 'WebhookTimestamp', 'WebhookSignature'].map((name) => ({
            $ref: `#/components/parameters/${name}`,
          })),
          requestBody: {
            required: true,
            description: 'The event, as `GET /events/{id}` answers it.',
            content: {
              'application/json': {
                schema: {
                  allOf: [
                    { $ref: '#/components/schemas/Event' },
                    {
                      properties: {
                        type: { const: type, description: `What happened: \`${type}\`.` },
                      },
                    },
                  ],
                },
                // A real event of the type (test/lib/openapi/examples.services.test.ts makes one and compares).
                example: WEBHOOK_EXAMPLES[type],
              },
            },
          },
          responses: {
            '2XX': {
              description: `Delivered, if it came within ${TIMEOUT} (its body is ignored; the attempts list keeps its first KiB)`,
            },
            '410': {
              description:
                'Gone: the endpoint is disabled (`disabled_reason` `gone`) and nothing more is sent to it',
            },
            '429': retried,
            '503': retried,
            default: { description: `Any other answer, or none within ${TIMEOUT}: retried on the schedule` },
          },
        },
      },
    ]),
  );
}

export function buildDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const operation = OPERATIONS[routeKey(route)];
    if (!operation) throw new Error(`no OpenAPI operation for ${routeKey(route)}`);
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = operationObject(
      route,
      operation,
    );
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Team Messaging API',
      version: '1.0.0',
      description:
        "Manage a team's brands, read its CMS pages, define its contact fields and follow their changes " +
        '(events). Every call but this ' +
        "document's needs `Authorization: Bearer <token>` (Authentication, below: how to get one). Errors are JSON: `{message}`, with `errors` by " +
        "field on a 422 and `error_code` on a 409, a 412 and a missing scope's 403.\n\n" +
        "**Unknown keys.** A request body's unknown keys are ignored (a representation sent back as read is " +
        'valid), but a key that is plainly a misspelling of a field (another case or separator, or one or two ' +
        'edits away: `primaryColor`, `primary_colour`) is a 422 keyed by the key as sent, naming the field ' +
        'it probably meant: `Unknown field primaryColor: did you mean primary_color?`.\n\n' +
        '**CORS.** This is a server-to-server API, called with a bearer token: by default no browser origin ' +
        "is allowed. A deployment's `corsOrigins` setting lists the origins that are; a request from one of " +
        'them is answered with `Access-Control-Allow-Origin: <that origin>` and `Vary: Origin`, and the ' +
        'gateway answers its preflight `OPTIONS` (API Gateway, or the local gateway).\n\n' +
        // Not a reusable response: no operation answers it (its method is the one the path lacks), and an
        // unreferenced component is a lint warning.
        '**Methods.** A path answers only the methods listed for it here. Any other, `HEAD` and `OPTIONS` ' +
        'included (but a CORS preflight), is answered by the gateway, without a token, with `405`, an ' +
        '`Allow` header naming the methods the path has (`Allow: GET, PUT, DELETE`), `X-Request-Id` and ' +
        '`{message}`; a path not listed here is a `404`.\n\n' +
        "**Webhooks.** The team's events are also POSTed to its webhook endpoints (`webhooks` of this " +
        'document, one per event type), signed as Standard Webhooks are: verify them with the ' +
        '`standardwebhooks` npm package. At least once and in no order: deduplicate on `webhook-id`, and ' +
        'drop an event whose `resource_version` is older than one applied.\n\n' +
        authentication(),
      // Who runs a deployment is not known to the document: whoever issued the caller's token.
      contact: { name: 'The operator of this deployment, who issued your API token' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      {
        url: '/',
        description:
          'This deployment, the one that served this document (production, a dev stack or a local server): ' +
          'the served document names it by its URL.',
        // For the teams' own integrations: not an internal API.
        'x-internal': false,
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Brands', description: 'Sender identities: names, colours, images, social links' },
      { name: 'Contact fields', description: 'Custom fields of contacts and organizations' },
      { name: 'Pages', description: 'CMS pages of the team sites' },
      {
        name: 'Events',
        description:
          'Changes of the brands and contact fields, and webhook endpoints the API disabled: kept 30 days',
      },
      { name: 'Webhooks', description: WEBHOOKS },
      { name: 'Files', description: 'The team file library' },
      { name: 'Reference', description: 'The API describing itself' },
    ],
    paths,
    webhooks: webhooks(),
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: BEARER_AUTH },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes the create safe to retry: the same key and body within 24 hours answers the first ' +
            'response again (`Idempotent-Replay: true`); another body is a 409 `idempotency_key_conflict`. ' +
            `A team keeps at most ${QUOTA_DEFAULTS.idempotency_records_per_day.toLocaleString('en-US')} new keys a UTC day (by default): past them a keyed ` +
            'create is a 429 with `Retry-After` until the next UTC day.',
          schema: {
            type: 'string',
            minLength: 1,
            maxLength: LIMITS.idempotencyKeyLength,
            pattern: IDEMPOTENCY_KEY.source,
          },
        },
        IfMatch: {
          name: 'If-Match',
          in: 'header',
          required: false,
          description:
            'The ETag the client read, or `*`: the write happens only if the resource is still that version ' +
            '(else 412 `precondition_failed`, nothing changed). One tag; weak tags never match.',
          schema: { type: 'string', maxLength: 'W/'.length + ETAG_LENGTH, pattern: `^(\\*|${ENTITY_TAG})$` },
        },
        WebhookId: {
          name: 'webhook-id',
          in: 'header',
          required: true,
          description:
            "The event's `id`: the same on every retry and redelivery of the event, so a receiver that has " +
            'handled it can skip it (deduplicate on it).',
          schema: { type: 'string', maxLength: EVENT_ID_LENGTH, pattern: EVENT_ID.source },
        },
        WebhookTimestamp: {
          name: 'webhook-timestamp',
          in: 'header',
          required: true,
          description:
            'When this try was sent, in seconds since the epoch: signed with the body, so a receiver can ' +
            'refuse an old one (the `standardwebhooks` package allows 5 minutes either way).',
          schema: { type: 'string', maxLength: 12, pattern: '^[0-9]{1,12}$' },
        },
        WebhookSignature: {
          name: 'webhook-signature',
          in: 'header',
          required: true,
          description:
            'Space-separated signatures `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, ' +
            'the key being the base64-decoded part of the secret after `whsec_`: one per secret in force, ' +
            `newest first, so two for ${ROTATION_OVERLAP_MS / 3_600_000} hours after a rotation. A delivery ` +
            'is genuine when one of them matches under a secret the receiver holds.',
          schema: {
            type: 'string',
            maxLength: 2 * SIGNATURE_LENGTH + 1,
            pattern: `^${SIGNATURE}( ${SIGNATURE})?$`,
          },
        },
        IfNoneMatch: {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: 'An ETag the client holds: 304 without a body while it is still current.',
          // A list of tags, within the request's headers.
          schema: {
            type: 'string',
            maxLength: LIMITS.headerBytes,
            pattern: `^(\\*|${ENTITY_TAG}(\\s*,\\s*${ENTITY_TAG})*)$`,
          },
        },
      },
      headers: {
        WebhookRetryAfter: {
          description:
            `A webhook receiver's: when to try again, in seconds or as an HTTP date; honoured up to ` +
            `${spoken(MAX_RETRY_AFTER_MS)} (never earlier than the schedule)`,
          schema: {
            type: 'string',
            maxLength: 'Sun, 06 Nov 1994 08:49:37 GMT'.length,
            pattern:
              '^([0-9]{1,10}|[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT)$',
          },
        },
        RequestId: {
          description: "The request id, as in the logs (API Gateway's request id)",
          schema: { type: 'string', format: 'uuid', maxLength: 36 },
        },
        AccessControlAllowOrigin: {
          description:
            "The request's `Origin`, present only when it is one of the deployment's `corsOrigins` (with " +
            '`Vary: Origin`); none by default: the API is called server to server',
          // An origin: a scheme, a host (253 characters at most) and a port.
          schema: {
            type: 'string',
            maxLength: 'https://'.length + 253 + ':65535'.length,
            pattern: '^https?://[^/?#\\s]+$',
          },
        },
        RetryAfter: {
          description: `Seconds to wait before retrying (${TIMEOUTS.retryAfterSeconds} for an outage; a rate limit's window at most)`,
          schema: { type: 'integer', format: 'int32', minimum: 1, maximum: Math.max(...RATE_LIMIT_WINDOWS) },
        },
        WwwAuthenticate: {
          description:
            'What a 401 asks for (RFC 6750): a bearer token in `Authorization: Bearer <token>`, with ' +
            '`error="invalid_token"` when the token has expired; on a 403 `insufficient_scope`, the scope ' +
            'the operation needs',
          schema: {
            type: 'string',
            enum: [BEARER_CHALLENGE, EXPIRED_TOKEN_CHALLENGE, ...SCOPES.map(insufficientScopeChallenge)],
          },
        },
        CacheControl: {
          description:
            'How long a reference file may be cached: 5 minutes (`public, max-age=300`), or a year for the ' +
            "page's script asked for with the version the page names (`?v=`): `public, max-age=31536000, immutable`",
          schema: { type: 'string', enum: ['public, max-age=300', 'public, max-age=31536000, immutable'] },
        },
        XContentTypeOptions: {
          description: '`nosniff`: the browser takes the file as its `Content-Type` says',
          schema: { type: 'string', enum: ['nosniff'] },
        },
        ContentSecurityPolicy: {
          description:
            "The reference page's policy: it loads only this deployment's script and document, Redoc's " +
            'inline styles, `data:` images and a `blob:` worker; nothing inline runs, and it is framed nowhere',
          schema: { type: 'string', enum: [REFERENCE_PAGE_CSP] },
        },
        IdempotentReplay: {
          description: '`true` when the response is the replay of an earlier one with the same key',
          schema: { type: 'string', enum: ['true'] },
        },
        ETag: {
          description: "The version of the representation (strong); a brand's also changes with `is_default`",
          schema: { type: 'string', maxLength: ETAG_LENGTH, pattern: `^${STRONG_TAG}$` },
        },
        Link: {
          description:
            'The next page of a paged list, as `<url>; rel="next"`, to follow as given: the URL absolute and ' +
            "the request's own (its scheme, host, stage and path as the caller sent them, e.g. " +
            '`/api/v1/webhook-endpoints/42/attempts`), with the same filters and limit and a new cursor; ' +
            'absent on the last page, and without `limit` but on the events and attempts lists (pages of ' +
            `${LIMITS.listPageSize} without it)`,
          schema: { type: 'string', pattern: NEXT_LINK_FORM },
        },
        RateLimitPolicy: {
          description:
            'The caller\'s rate limit plan (IETF RateLimit header fields): `"<plan>";q=<requests>;w=<seconds>`, ' +
            'counted per token. On every answer to an authenticated request that reaches the API (a 429 of AWS WAF has none)',
          schema: {
            type: 'string',
            maxLength: RATE_LIMIT_HEADER_LENGTH,
            pattern: `^"${PLAN_NAME_FORM}";q=[0-9]{2,10};w=[0-9]{2,3}$`,
            examples: ['"standard";q=1500;w=60'],
          },
        },
        RateLimit: {
          description:
            'What is left of the policy: `"<plan>";r=<remaining>;t=<seconds until it grows>`. Only where the ' +
            "count is known: the local server; a deployed stack's counts are AWS WAF's and it does not tell them",
          schema: {
            type: 'string',
            maxLength: RATE_LIMIT_HEADER_LENGTH,
            pattern: `^"${PLAN_NAME_FORM}";r=[0-9]{1,10};t=[0-9]{1,3}$`,
            examples: ['"standard";r=1499;t=60'],
          },
        },
      },
      schemas: Object.fromEntries(
        REPRESENTATIONS.map(([name, schema]) => [name, converted(schema, 'output')]),
      ),
    },
  };
}
