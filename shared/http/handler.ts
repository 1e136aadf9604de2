import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { isDependencyFailure } from '../aws.ts';
import { config } from '../config.ts';
import { corsHeaders } from '../cors.ts';
import { DomainError, ForbiddenError, NotFoundError } from '../domain/errors.ts';
import { TIMEOUTS } from '../limits.ts';
import { rateLimitOf, rateLimitPolicyHeader } from '../rate-limits.ts';
import { withRequest } from '../request-context.ts';
import { findRoute, routeKey } from '../routes.ts';
import { allows, FULL_ACCESS, missingScopes, type Scope } from '../scopes.ts';
import { describeError, logger, MetricsBatch, takeColdStart } from '../telemetry.ts';
import {
  GatewayTimeoutError,
  HttpError,
  httpErrorOf,
  InsufficientScopeError,
  ServiceUnavailableError,
  TokenExpiredError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
} from './errors.ts';
import { MESSAGES } from './messages.ts';
import { type Dictionary, dictionary, parseJsonBody } from './request-data.ts';
import { type ApiResponse, toProxyResult } from './response.ts';

export { type ApiResponse, accepted, created, notModified, ok, okText } from './response.ts';

/** What a handler sees: the caller's team, the parsed body and the request's parameters. */
export interface ApiRequest {
  teamId: number;
  requestId: string;
  method: string;
  /** The route's path template, e.g. `/api/v1/brands/{id}`: a name for the route, never a URL to answer. */
  route: string;
  /** What precedes the route in the URL's path: the stage (`/prod`) on an execute-api URL, else empty. */
  basePath: string;
  /** The path the caller used, after `basePath`: `/api/v1/brands/7`, the template's parameters filled in. */
  path: string;
  /** Only POST and PUT take a body; other methods ignore one. */
  body: unknown;
  /** Header names in lower case. */
  headers: Dictionary<string>;
  pathParams: Dictionary<string>;
  /** Every value of each query parameter; `site_id[]` is read as `site_id`. */
  query: Dictionary<string[]>;
  /**
   * The token's scopes as the authorizer's context carries them (shared/scopes.ts formatScopes: `*` for full
   * access; undefined, an answer cached from before scopes, is full access too): for what a request needs
   * beyond its route's scope (requireScopes).
   */
  scopes: string | undefined;
  /** Milliseconds left before the Lambda times out. */
  remainingTimeMs: () => number;
  /** This request's metrics (per route), published with the request's own when it ends. */
  metrics: MetricsBatch;
}

/** The ids a path takes: up to 15 digits (every such number is exact in JavaScript), no leading zero. */
export const MAX_ID = 999_999_999_999_999;
const ID_FORM = new RegExp(`^[1-9][0-9]{0,${String(MAX_ID).length - 1}}$`);

/** A path parameter that must be a positive integer id; anything else names no resource (404). */
export function pathId(req: ApiRequest, model: string, name = 'id'): number {
  const raw = req.pathParams[name] ?? '';
  if (!ID_FORM.test(raw)) throw new NotFoundError(model, raw);
  return Number(raw);
}

/** `https://<host>/<stage>`: the request's own scheme and host, and what precedes the route in its path. */
export function requestBaseUrl(req: Pick<ApiRequest, 'headers' | 'basePath'>): string {
  const proto = req.headers['x-forwarded-proto'] ?? 'http';
  const host = req.headers.host ?? 'localhost';
  return `${proto}://${host}${req.basePath}`;
}

/**
 * The URL of the request itself without its query (`https://<host>/<stage>/api/v1/webhook-endpoints/42/attempts`):
 * what a link to another page of the same resource is built on. Built from the path the caller used, never
 * from the route's template, whose `{id}` no one can follow. A character a URL's path cannot hold as it
 * is (were a path handed on decoded) is percent-encoded, so the URL stays one a client can follow.
 */
export function requestUrl(req: Pick<ApiRequest, 'headers' | 'basePath' | 'path'>): string {
  return `${requestBaseUrl(req)}${req.path.replace(NOT_IN_PATH, encodeURIComponent)}`;
}

/** Anything but a path segment's characters (RFC 3986 pchar), `/` and an escape's `%`. */
const NOT_IN_PATH = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/g;

/** A middleware between request parsing and the handler sees the ApiRequest as its event. */
export type ApiMiddleware = MiddlewareObj<ApiRequest, ApiResponse>;

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * Wraps a handler: parses the proxy event into an ApiRequest, renders thrown HttpErrors (and anything
 * unexpected, as a logged 500) as JSON, adds the request id header, and writes the request's log line and
 * metrics. Middlewares a route opts into (idempotency) run between parsing and the handler and see the
 * handler's rendered response, errors included.
 */
export function httpHandler(
  handle: (req: ApiRequest) => Promise<ApiResponse>,
  ...middlewares: ApiMiddleware[]
): ProxyHandler {
  return wrap(handle, middlewares, parseRequest(true));
}

/** What a public route's handler sees: no team (the route has no authorizer). */
export type PublicRequest = Omit<ApiRequest, 'teamId'>;

/** A route answered without a token (`public` in the route table): everything as httpHandler but the team. */
export function publicHttpHandler(handle: (req: PublicRequest) => Promise<ApiResponse>): ProxyHandler {
  return wrap(handle as (req: ApiRequest) => Promise<ApiResponse>, [], parseRequest(false));
}

function wrap(
  handle: (req: ApiRequest) => Promise<ApiResponse>,
  middlewares: ApiMiddleware[],
  parse: MiddlewareObj<APIGatewayProxyEvent | ApiRequest>,
): ProxyHandler {
  // biome-ignore lint/suspicious/noExplicitAny: the event changes type from proxy event to ApiRequest in parseRequest.
  return middy<any, ApiResponse>({ timeoutEarlyInMillis: ANSWER_MARGIN_MS, timeoutEarlyResponse: outOfTime })
    .use(respond)
    .use(parse)
    .use(middlewares as MiddlewareObj[])
    .handler((req: ApiRequest) =>
      withRequest(req.requestId, () => handle(req)).catch((error: unknown) =>
        renderError(error, req.requestId),
      ),
    ) as unknown as ProxyHandler;
}

/** Time kept back from the Lambda timeout to answer a handler that has not finished (504, not a crash). */
const ANSWER_MARGIN_MS = 250;

function outOfTime(): never {
  throw new GatewayTimeoutError();
}

/** What is known of an invocation from its start: for its log line and metrics. */
interface Invocation {
  startedAt: number;
  coldStart: boolean;
  fields: Record<string, unknown>;
  metrics: MetricsBatch;
  /** Headers every answer to this request carries, whatever the handler answers. */
  headers: Record<string, string>;
}

// Keyed by the invocation's context object: invocations of one process may overlap (the local server).
const invocations = new WeakMap<Context, Invocation>();

function startInvocation(event: APIGatewayProxyEvent, context: Context): void {
  invocations.set(context, {
    startedAt: performance.now(),
    coldStart: takeColdStart(),
    fields: {
      request_id: gatewayRequestId(event, context),
      function_request_id: context.awsRequestId,
      team_id: Number(event.requestContext?.authorizer?.teamId) || null,
      method: event.httpMethod,
      route: event.resource,
      path: event.path,
    },
    metrics: new MetricsBatch({ route: `${event.httpMethod} ${event.resource}` }),
    headers: { ...rateLimitPolicy(event), ...corsHeaders(originOf(event), config.corsOrigins()) },
  });
}

/** The Origin header a browser sent, in whatever case the client spelled its name. */
const originOf = (event: APIGatewayProxyEvent): string | undefined => headerOf(event, 'origin');

/** A header of the event, named in lower case, in whatever case the client spelled its name. */
function headerOf(event: APIGatewayProxyEvent, lowerCaseName: string): string | undefined {
  const name = Object.keys(event.headers ?? {}).find((header) => header.toLowerCase() === lowerCaseName);
  return name ? (event.headers[name] ?? undefined) : undefined;
}

/**
 * The caller's rate limit policy (IETF RateLimit-Policy), from the plan its authorizer answer names: on
 * every answer to an authenticated request, none on a public route's (no caller is counted there).
 */
function rateLimitPolicy(event: APIGatewayProxyEvent): Record<string, string> {
  const authorizer = event.requestContext?.authorizer;
  if (!authorizer?.teamId) return {};
  const limit = rateLimitOf(authorizer.rateLimitPlan, config.rateLimits());
  return { 'RateLimit-Policy': rateLimitPolicyHeader(limit) };
}

/**
 * One info line per request (ids, team, route, status, latency, cold start, replay) and its metrics. Only
 * the fields named here are written: never a header, a body or a URL's query.
 */
function finishInvocation(context: Context, response: ApiResponse): void {
  const invocation = invocations.get(context);
  if (!invocation) return;
  const { status } = response;
  const latency = Math.round(performance.now() - invocation.startedAt);
  const replay = response.headers?.['Idempotent-Replay'] === 'true';
  if (status === 504) logger().warn('handler ran out of time', { request_id: invocation.fields.request_id });
  logger().info('request', {
    ...invocation.fields,
    status,
    latency_ms: latency,
    cold_start: invocation.coldStart,
    idempotent_replay: replay,
  });
  const { metrics } = invocation;
  metrics.count('Requests');
  metrics.milliseconds('Latency', latency);
  metrics.count('ClientErrors', status >= 400 && status < 500 ? 1 : 0);
  metrics.count('ServerErrors', status >= 500 ? 1 : 0);
  metrics.count('DependencyUnavailable', status === 503 ? 1 : 0);
  if (replay) metrics.count('IdempotentReplays');
  const errorCode = (response.body as { error_code?: unknown } | undefined)?.error_code;
  if (errorCode === 'idempotency_key_conflict') metrics.count('IdempotencyKeyConflicts');
  metrics.publish();
}

const parseRequest = (teamRequired: boolean): MiddlewareObj<APIGatewayProxyEvent | ApiRequest> => ({
  before: (request) => {
    const event = request.event as APIGatewayProxyEvent;
    const context = request.context;
    const requestId = gatewayRequestId(event, context);
    const teamId = Number(event.requestContext?.authorizer?.teamId);
    // The authorizer guarantees a team; this only guards a misconfigured deployment.
    if (teamRequired && (!Number.isSafeInteger(teamId) || teamId <= 0)) throw new UnauthenticatedError();
    if (teamRequired) checkToken(event);
    const scopes = event.requestContext?.authorizer?.scopes;
    request.event = {
      teamId,
      requestId,
      scopes: typeof scopes === 'string' ? scopes : undefined,
      method: event.httpMethod,
      route: event.resource,
      basePath: basePathOf(event),
      path: event.path,
      body: parseBody(event),
      headers: lowerCaseKeys(event.headers ?? {}),
      pathParams: dictionary(Object.entries(event.pathParameters ?? {}) as Array<[string, string]>),
      query: parseQuery(event),
      remainingTimeMs: () => context.getRemainingTimeInMillis?.() ?? 30_000,
      metrics: invocations.get(context)?.metrics ?? new MetricsBatch(),
    } satisfies ApiRequest;
  },
});

/**
 * What the token may do here, from the authorizer's context, before anything of the request is read: its
 * expiry (the authorizer's answer is cached per token, so a token may expire while its answer is cached:
 * 401) and its scopes against the scope the route needs (403 insufficient_scope). A context without
 * `scopes` (an answer cached from before scopes existed) is full access; `expiresAt` 0 or none, no expiry.
 */
function checkToken(event: APIGatewayProxyEvent): void {
  const { scopes, expiresAt } = event.requestContext?.authorizer ?? {};
  const expiry = Number(expiresAt ?? 0);
  if (expiry > 0 && expiry * 1000 <= Date.now()) throw new TokenExpiredError();
  const route = findRoute(event.httpMethod, event.resource);
  // A resource the table lacks is a misconfigured deployment: a token of limited scopes gets nothing there.
  if (!route) {
    if (scopes !== undefined && scopes !== FULL_ACCESS) throw new ForbiddenError();
    return;
  }
  if (route.scope && !allows(scopes, route.scope))
    throw new InsufficientScopeError(routeKey(route), route.scope);
}

/**
 * What a request needs beyond its route's scope, from what it names: an endpoint's event types, an event's
 * type (each needs its family's read scope: shared/domain/event-shape.ts). A token without one of `scopes`
 * is refused as the route's own check refuses it (403 `insufficient_scope`, `WWW-Authenticate` naming the
 * scope), the message saying what for (`purpose`, after the route: `to subscribe to brand.updated`).
 * Nothing to read: the scopes are the authorizer's context.
 */
export function requireScopes(req: ApiRequest, scopes: readonly Scope[], purpose: string): void {
  const [first, ...more] = missingScopes(req.scopes, scopes);
  if (first) throw new InsufficientScopeError(`${req.method} ${req.route}`, [first, ...more], purpose);
}

const respond: MiddlewareObj<APIGatewayProxyEvent | ApiRequest, ApiResponse | APIGatewayProxyResult> = {
  before: (request) => startInvocation(request.event as APIGatewayProxyEvent, request.context),
  after: (request) => answer(request, request.response as ApiResponse),
  onError: (request) => answer(request, renderError(request.error, requestIdOf(request))),
};

function answer(
  request: { event: APIGatewayProxyEvent | ApiRequest; context: Context; response: unknown },
  response: ApiResponse,
): void {
  finishInvocation(request.context, response);
  const headers = { ...invocations.get(request.context)?.headers, ...response.headers };
  request.response = toProxyResult({ ...response, headers }, requestIdOf(request));
}

function requestIdOf(request: { event: APIGatewayProxyEvent | ApiRequest; context: Context }): string {
  const event = request.event;
  return 'requestId' in event ? event.requestId : gatewayRequestId(event, request.context);
}

/** API Gateway's id of the request (X-Request-Id), or Lambda's when invoked without one. */
const gatewayRequestId = (event: APIGatewayProxyEvent, context: Context): string =>
  event.requestContext?.requestId ?? context.awsRequestId;

export function renderError(error: unknown, requestId: string): ApiResponse {
  if (isDependencyFailure(error)) {
    logger().warn('dependency unavailable', { request_id: requestId, ...describeError(error) });
    error = new ServiceUnavailableError(TIMEOUTS.retryAfterSeconds);
  }
  if (error instanceof DomainError) error = httpErrorOf(error) ?? error;
  if (error instanceof HttpError) return { status: error.status, body: error.body(), headers: error.headers };
  logger().error('unhandled error', { request_id: requestId, ...describeError(error) });
  return { status: 500, body: { message: MESSAGES.serverError } };
}

function basePathOf(event: APIGatewayProxyEvent): string {
  const full = event.requestContext?.path ?? event.path;
  return full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : '';
}

/** `application/json` or a `+json` type, with any parameters (`; charset=utf-8`). */
const JSON_MEDIA_TYPE = /^application\/([a-z0-9.!#$&^_-]+\+)?json\s*(;|$)/i;

/**
 * A POST's or PUT's JSON body. A body of another type (`text/plain`, a form: curl's `-d` without `-H`) is
 * refused (415) rather than read as JSON anyway; one without a Content-Type is read as JSON.
 */
function parseBody(event: APIGatewayProxyEvent): unknown {
  if (event.httpMethod !== 'POST' && event.httpMethod !== 'PUT') return undefined;
  if (event.body === null || event.body === undefined || event.body === '') return undefined;
  const contentType = headerOf(event, 'content-type');
  if (contentType !== undefined && !JSON_MEDIA_TYPE.test(contentType)) {
    throw new UnsupportedMediaTypeError(contentType);
  }
  return parseJsonBody(
    event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body,
  );
}

function parseQuery(event: APIGatewayProxyEvent): Dictionary<string[]> {
  const query = dictionary<string[]>();
  const multi = event.multiValueQueryStringParameters ?? {};
  const single = event.queryStringParameters ?? {};
  for (const name of new Set([...Object.keys(multi), ...Object.keys(single)])) {
    const values = multi[name] ?? (single[name] === undefined ? [] : [single[name] as string]);
    (query[name.replace(/\[\]$/, '')] ??= []).push(...values);
  }
  return query;
}

function lowerCaseKeys(headers: Record<string, string | undefined>): Dictionary<string> {
  const out = dictionary<string>();
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}
