import { BRAND_PREFIX, FIELD_PREFIX, type Partition, WEBHOOK_PREFIX } from './data/keys.ts';
import { TIMEOUTS } from './limits.ts';
import type { Scope } from './scopes.ts';

/**
 * The route table: the single source of truth for endpoints. The CDK stack makes one Lambda per row and
 * grants it only what the row declares; the local gateway serves the same rows.
 */
export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** API Gateway resource path; `{name}` marks a path parameter. */
  path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  handler: string;
  /** What it reads and writes of the single table; none when absent. */
  table?: TableAccess;
  /** What it does with the file libraries' objects; nothing when absent. */
  files?: FileAccess[];
  /** Makes outbound web requests (auto-configure): longer timeout. */
  fetchesWeb?: boolean;
  /** Starts webhook deliveries now (invokes webhookDelivery.deliverer asynchronously). */
  deliversWebhooks?: true;
  /**
   * Uses the stack's key of webhook signing secrets (shared/data/secret-envelope.ts): `seal` makes
   * data keys (kms:GenerateDataKey), `open` decrypts them (kms:Decrypt), `both` does both.
   */
  signingSecrets?: 'seal' | 'open' | 'both';
  /**
   * The statuses this route answers besides COMMON_STATUSES (README, "Limits and errors"); a POST or PUT
   * answers 415 to a body that is not JSON.
   */
  statuses: number[];
  /** Answers without a token (no authorizer): the API's description of itself and its reference page. */
  public?: true;
  /**
   * The token scope the route needs (shared/scopes.ts). None on a public route, and none on the one that
   * tells a token its own limits: any valid token may read them.
   */
  scope?: Scope;
}

/**
 * Access to the file libraries: read the private one, write the private one, write the public `brands/`,
 * mark public images no brand names (lib/cdk/object-grants.ts).
 */
export type FileAccess = 'private:read' | 'private:write' | 'public:write' | 'public:mark';

/**
 * What a function may do with the single table, and all the stack grants it there (lib/cdk/grants.ts): read
 * actions on the kinds of partition it reads, write actions on those it writes, each bounded so by
 * `dynamodb:LeadingKeys` (shared/data/keys.ts PARTITION_KINDS), and Query on the indexes it names. No route
 * reaches `tokens`: only the authorizer does, and the admin CLI with the operator's own credentials. The
 * code is held to it: test/support/key-observer.ts records every key each function touches in the suite.
 */
export interface TableAccess {
  reads?: readonly Partition[];
  writes?: readonly Partition[];
  /** `idIndex` tells another team's id from none (403 or 404); `dueIndex` finds due deliveries. */
  indexes?: readonly ('idIndex' | 'dueIndex')[];
}

/**
 * A route's name, `GET /api/v1/brands/{id}`: the key of its OpenAPI operation and the `route` dimension of
 * its metrics (the handler names it so from API Gateway's method and resource).
 */
export const routeKey = (route: Pick<Route, 'method' | 'path'>): string => `${route.method} ${route.path}`;

/** `get /api/v1/brands` -> `GetApiV1Brands`: the words of a text, each capitalized, as a construct id. */
export const pascalCase = (text: string): string =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join('');

/**
 * A route's function's name, `GetApiV1BrandsId`: its construct id in the stack, the name `npm run invoke`
 * takes and docs/routes.md shows.
 */
export const routeFunctionName = (route: { method: string; path: string }): string =>
  pascalCase(`${route.method.toLowerCase()} ${route.path}`);

/**
 * What any route may answer: a malformed request (400), no or a bad token (401), a body over the limit
 * (413), throttling (429), a dependency outage (503), a timeout (504).
 */
export const COMMON_STATUSES = [400, 401, 413, 429, 503, 504];

/**
 * Every status a route may answer (500 aside): its own, the common ones, and 403 `insufficient_scope` on
 * a route that needs a scope (a token without it).
 */
export function routeStatuses(route: Route): number[] {
  return [...new Set([...route.statuses, ...COMMON_STATUSES, ...(route.scope ? [403] : [])])].sort(
    (a, b) => a - b,
  );
}

export const routes: Route[] = [
  // The API's description: public, so that tools and people can read it before they have a token.
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    handler: 'functions/docs/openapi.ts',
    public: true,
    statuses: [200, 304],
  },
  // The API reference: a page on which Redoc renders the document, and Redoc's script, both served from here.
  {
    method: 'GET',
    path: '/docs',
    handler: 'functions/docs/page.ts',
    public: true,
    statuses: [200, 304],
  },
  {
    method: 'GET',
    path: '/docs/{asset}',
    handler: 'functions/docs/asset.ts',
    public: true,
    statuses: [200, 304, 404],
  },
  {
    method: 'POST',
    path: '/api/v1/brands/auto-configure',
    scope: 'brands:write',
    handler: 'functions/brands/auto-configure.ts',
    // The team's share of auto-configure: a slot taken and let go (shared/data/auto-configure-slots.ts).
    table: { writes: ['autoConfigureSlots'] },
    fetchesWeb: true,
    statuses: [200, 415, 422],
  },
  {
    method: 'GET',
    path: '/api/v1/contact-fields/types',
    scope: 'contact_fields:read',
    handler: 'functions/contact-fields/types.ts',
    statuses: [200],
  },
  // Contact fields (a literal segment such as `/types` wins over `{id}`, here as in API Gateway).
  {
    method: 'GET',
    path: '/api/v1/contact-fields',
    scope: 'contact_fields:read',
    handler: 'functions/contact-fields/list.ts',
    table: { reads: ['team'] },
    statuses: [200, 422],
  },
  {
    method: 'POST',
    path: '/api/v1/contact-fields',
    scope: 'contact_fields:write',
    handler: 'functions/contact-fields/create.ts',
    table: { writes: ['team', 'sequence:field'] },
    statuses: [201, 409, 415, 422],
  },
  {
    method: 'GET',
    path: '/api/v1/contact-fields/{id}',
    scope: 'contact_fields:read',
    handler: 'functions/contact-fields/get.ts',
    table: { reads: ['team'], indexes: ['idIndex'] },
    statuses: [200, 304, 403, 404],
  },
  {
    method: 'PUT',
    path: '/api/v1/contact-fields/{id}',
    scope: 'contact_fields:write',
    handler: 'functions/contact-fields/update.ts',
    table: { reads: ['team'], writes: ['team'], indexes: ['idIndex'] },
    statuses: [200, 403, 404, 412, 415, 422],
  },
  {
    method: 'DELETE',
    path: '/api/v1/contact-fields/{id}',
    scope: 'contact_fields:write',
    handler: 'functions/contact-fields/delete.ts',
    table: { reads: ['team'], writes: ['team'], indexes: ['idIndex'] },
    statuses: [200, 403, 404, 412],
  },
  {
    method: 'GET',
    path: '/api/v1/pages',
    scope: 'pages:read',
    handler: 'functions/pages/list.ts',
    table: { reads: ['team'] },
    statuses: [200, 422],
  },
  // Brands.
  {
    method: 'GET',
    path: '/api/v1/brands',
    scope: 'brands:read',
    handler: 'functions/brands/list.ts',
    table: { reads: ['team'] },
    statuses: [200, 422],
  },
  {
    method: 'POST',
    path: '/api/v1/brands',
    scope: 'brands:write',
    handler: 'functions/brands/create.ts',
    table: { reads: ['team'], writes: ['team', 'sequence:brand'] },
    files: ['private:read', 'public:write'],
    statuses: [201, 409, 415, 422],
  },
  {
    method: 'GET',
    path: '/api/v1/brands/{id}',
    scope: 'brands:read',
    handler: 'functions/brands/get.ts',
    table: { reads: ['team'], indexes: ['idIndex'] },
    statuses: [200, 304, 403, 404],
  },
  {
    method: 'PUT',
    path: '/api/v1/brands/{id}',
    scope: 'brands:write',
    handler: 'functions/brands/update.ts',
    table: { reads: ['team'], writes: ['team'], indexes: ['idIndex'] },
    files: ['private:read', 'public:write'],
    statuses: [200, 403, 404, 412, 415, 422],
  },
  {
    method: 'DELETE',
    path: '/api/v1/brands/{id}',
    scope: 'brands:write',
    handler: 'functions/brands/delete.ts',
    table: { reads: ['team'], writes: ['team'], indexes: ['idIndex'] },
    statuses: [200, 403, 404, 412],
  },
  // Change events: the team's log of brand and contact field changes (README, "Change events").
  {
    method: 'GET',
    path: '/api/v1/events',
    scope: 'events:read',
    handler: 'functions/events/list.ts',
    table: { reads: ['events'] },
    statuses: [200, 422],
  },
  {
    method: 'GET',
    path: '/api/v1/events/{id}',
    scope: 'events:read',
    handler: 'functions/events/get.ts',
    table: { reads: ['events'] },
    statuses: [200, 403, 404],
  },
  {
    method: 'GET',
    path: '/api/v1/events/{id}/deliveries',
    scope: 'webhooks:read',
    handler: 'functions/events/deliveries.ts',
    table: { reads: ['events', 'webhooks', 'endpoints'] },
    statuses: [200, 403, 404],
  },
  {
    method: 'POST',
    path: '/api/v1/events/{id}/redeliver',
    scope: 'webhooks:write',
    handler: 'functions/events/redeliver.ts',
    table: { reads: ['events', 'webhooks'], writes: ['endpoints'] },
    deliversWebhooks: true,
    statuses: [202, 403, 404, 415, 422],
  },
  // Webhook endpoints: where the team's events are delivered (README, "Webhooks").
  {
    method: 'GET',
    path: '/api/v1/webhook-endpoints',
    scope: 'webhooks:read',
    handler: 'functions/webhook-endpoints/list.ts',
    table: { reads: ['webhooks'] },
    statuses: [200, 422],
  },
  {
    method: 'POST',
    path: '/api/v1/webhook-endpoints',
    scope: 'webhooks:write',
    handler: 'functions/webhook-endpoints/create.ts',
    table: { reads: ['webhooks'], writes: ['team', 'webhooks', 'sequence:webhook'] },
    // Seals the new secret; opens it again for an Idempotency-Key replay while it is still current.
    signingSecrets: 'both',
    statuses: [201, 409, 415, 422],
  },
  {
    method: 'GET',
    path: '/api/v1/webhook-endpoints/{id}',
    scope: 'webhooks:read',
    handler: 'functions/webhook-endpoints/get.ts',
    table: { reads: ['webhooks'], indexes: ['idIndex'] },
    statuses: [200, 304, 403, 404],
  },
  {
    method: 'PUT',
    path: '/api/v1/webhook-endpoints/{id}',
    scope: 'webhooks:write',
    handler: 'functions/webhook-endpoints/update.ts',
    table: { reads: ['webhooks', 'endpoints'], writes: ['webhooks', 'endpoints'], indexes: ['idIndex'] },
    statuses: [200, 403, 404, 412, 415, 422],
  },
  {
    method: 'DELETE',
    path: '/api/v1/webhook-endpoints/{id}',
    scope: 'webhooks:write',
    handler: 'functions/webhook-endpoints/delete.ts',
    table: { reads: ['webhooks'], writes: ['team', 'webhooks'], indexes: ['idIndex'] },
    statuses: [200, 403, 404, 412],
  },
  {
    method: 'POST',
    path: '/api/v1/webhook-endpoints/{id}/secret/rotate',
    scope: 'webhooks:write',
    handler: 'functions/webhook-endpoints/rotate-secret.ts',
    table: { reads: ['webhooks'], writes: ['webhooks'], indexes: ['idIndex'] },
    signingSecrets: 'seal',
    statuses: [200, 403, 404, 415, 422],
  },
  {
    method: 'GET',
    path: '/api/v1/webhook-endpoints/{id}/attempts',
    scope: 'webhooks:read',
    handler: 'functions/webhook-endpoints/attempts.ts',
    table: { reads: ['webhooks', 'endpoints'], indexes: ['idIndex'] },
    statuses: [200, 403, 404, 422],
  },
  {
    method: 'GET',
    path: '/api/v1/webhook-endpoints/{id}/deliveries',
    scope: 'webhooks:read',
    handler: 'functions/webhook-endpoints/deliveries.ts',
    table: { reads: ['webhooks', 'endpoints'], indexes: ['idIndex'] },
    statuses: [200, 403, 404, 422],
  },
  {
    method: 'POST',
    path: '/api/v1/webhook-endpoints/{id}/recover',
    scope: 'webhooks:write',
    handler: 'functions/webhook-endpoints/recover.ts',
    table: { reads: ['webhooks', 'endpoints'], writes: ['endpoints'], indexes: ['idIndex'] },
    deliversWebhooks: true,
    statuses: [202, 403, 404, 415, 422],
  },
  {
    method: 'GET',
    path: '/api/v1/limits',
    handler: 'functions/limits/get.ts',
    table: { reads: ['team'] },
    statuses: [200],
  },
  {
    method: 'POST',
    path: '/api/v1/files',
    scope: 'files:write',
    handler: 'functions/files/create.ts',
    // The team's upload quotas (one UpdateItem before the URL is signed).
    table: { writes: ['team'] },
    files: ['private:write'],
    statuses: [200, 415, 422],
  },
];

/**
 * The TOKEN authorizer reads tokens, and of a token writes only when it was last used (at most once a day:
 * lib/cdk/partition-boundaries.ts bounds the attribute).
 */
export const authorizer = {
  handler: 'functions/authorizer.ts',
  table: { reads: ['tokens'], writes: ['tokens'] } satisfies TableAccess,
} as const;

/**
 * The Lambda timeout of a route (the local gateway enforces the same): auto-configure fetches a site
 * (~8 s budget) and parses it; everything else is a few round trips, each within SDK_CALL_BUDGET_MS.
 */
export function functionTimeoutSeconds(route: Route): number {
  return route.fetchesWeb ? TIMEOUTS.webFunctionSeconds : TIMEOUTS.functionSeconds;
}

/** Each resource path of the table, once, in the table's order. */
export function resourcePaths(): string[] {
  return [...new Set(routes.map((route) => route.path))];
}

/**
 * The methods a resource path has, in the table's order: what a 405 for any other method names in `Allow`
 * (HEAD and OPTIONS are not among them: README, "Limits and errors").
 */
export function allowedMethods(path: string): Route['method'][] {
  return routes.filter((route) => route.path === path).map((route) => route.method);
}

export function findRoute(method: string, path: string): Route | undefined {
  return routes.find((route) => route.method === method && route.path === path);
}

/**
 * The table stream's consumer (change events): not a route, but built like one in AWS (a Lambda behind an
 * event source mapping) and run by the local stream poller with the same code. Only changes of items under
 * these sort key prefixes invoke it: brands (the default-brand pointer included) and contact fields; the
 * event items it writes itself never do.
 */
export const streamConsumer = {
  handler: 'functions/events/stream-consumer.ts',
  sortKeyPrefixes: [BRAND_PREFIX, FIELD_PREFIX, WEBHOOK_PREFIX],
  /**
   * It reads what a change needs (a tombstone, the default-brand pointer, the team's brand images) and the
   * team's endpoints, writes the event log and leaves deliveries due; nothing else (it reads what teams write).
   */
  table: { reads: ['team', 'webhooks'], writes: ['events', 'endpoints'] } satisfies TableAccess,
  /** It marks public images a change leaves no brand naming (shared/files/orphaned-images.ts). */
  files: ['public:mark'] satisfies FileAccess[],
  /** It fans events out to webhook endpoints and starts their deliveries. */
  deliversWebhooks: true,
} as const;

/**
 * Webhook deliveries (README, "Webhooks"): not routes either. The deliverer sends one endpoint's due
 * deliveries (invoked asynchronously, once per endpoint, by the stream consumer, the sweeper and the
 * redeliver/recover routes; a team's small batches of first tries share one, each endpoint's run beside the
 * others'), so a slow endpoint holds up no other's deliveries. The sweeper runs on a
 * schedule, reads the due index's shards and invokes the deliverer for each endpoint with deliveries due.
 */
export const webhookDelivery = {
  /**
   * It sends to hosts a caller chooses: the team's endpoints and sender leases, the endpoints' deliveries
   * and attempts, the events it sends; never a team's brands, fields, tokens or Idempotency-Key records.
   */
  deliverer: {
    handler: 'functions/webhooks/deliverer.ts',
    table: {
      reads: ['webhooks', 'endpoints', 'events'],
      writes: ['webhooks', 'endpoints'],
    } satisfies TableAccess,
  },
  /**
   * It finds due deliveries in the due index (keys only), and as the deliverer's on-failure destination
   * writes them due (a put only if absent, an update of the due keys); it reads no item.
   */
  sweeper: {
    handler: 'functions/webhooks/sweeper.ts',
    everyMinutes: 1,
    table: { writes: ['endpoints'], indexes: ['dueIndex'] } satisfies TableAccess,
  },
} as const;
