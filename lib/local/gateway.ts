import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { config } from '../../shared/config.ts';
import { preflightHeaders } from '../../shared/cors.ts';
import { BEARER_CHALLENGE, MESSAGES, methodNotAllowed } from '../../shared/http/messages.ts';
import { dictionary } from '../../shared/http/request-data.ts';
import { LIMITS, TIMEOUTS } from '../../shared/limits.ts';
import {
  planOfAuthorization,
  type RateLimits,
  rateLimitHeader,
  rateLimitOf,
  rateLimitPolicyHeader,
  sourceRateLimit,
} from '../../shared/rate-limits.ts';
import {
  allowedMethods,
  authorizer,
  functionTimeoutSeconds,
  type Route,
  routes,
} from '../../shared/routes.ts';
import { bearerToken } from '../../shared/token-form.ts';
import { CONCURRENCY_DEFAULTS, type ConcurrencySettings, routeClass } from '../cdk/concurrency.ts';
import { type ApiStage, lambdaContext, methodArn, proxyEvent, tokenEvent } from './lambda-events.ts';
import { RateLimiter } from './rate-limiter.ts';
import { ReservedShares } from './reserved-concurrency.ts';

/**
 * The local stand-in for API Gateway: serves the route table, runs the TOKEN authorizer the way API Gateway
 * does (no Authorization header, one its validation expression refuses, or a thrown `Unauthorized` is a 401,
 * a Deny policy a 403, any other failure a 503), and hands each handler the same v1 proxy event. It keeps
 * API Gateway's bounds: the payload limit, each function's timeout and the 29 s integration timeout (504),
 * the stage's web ACL (each source address's limit, then each token's rate limit plan, counted as WAF counts
 * them: 429, like WAF_FILTERED), and each function's reserved concurrency as Lambda does (a full share is the
 * stack's 503, nothing run). A method the path's resource lacks is a 405
 * naming those it has, before any authorizer runs. Gateway-made errors, malformed HTTP included, carry the
 * same JSON bodies as the deployed stack.
 */
type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type Authorizer = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

const ROOT = resolve(import.meta.dirname, '..', '..');
const LOCAL_API: ApiStage = { region: 'local', apiId: 'local', stage: 'local' };

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

const compiled: CompiledRoute[] = routes.map((route) => {
  const names: string[] = [];
  const source = route.path.replace(/\{(\w+)\}|[^{}]+/g, (part, name?: string) => {
    if (name) {
      names.push(name);
      return '([^/]+)';
    }
    return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return { route, pattern: new RegExp(`^${source}/?$`), names };
});

const modules = new Map<string, Promise<{ handler: unknown }>>();
/** A handler module's `handler`, imported once (the route table's files, and the stream consumer's). */
export function load<T>(file: string): Promise<T> {
  let module = modules.get(file);
  if (!module) {
    module = import(pathToFileURL(resolve(ROOT, file)).href);
    modules.set(file, module);
  }
  return module.then((loaded) => loaded.handler as T);
}

/** What the gateway tells about each answered request (`npm start` prints it on a terminal). */
export interface AnsweredRequest {
  method: string;
  path: string;
  status: number;
  ms: number;
  requestId: string;
}

/**
 * What the gateway holds each request to: the rate limit plans it enforces per token (the configuration's
 * unless given) and their counts, and each function's reserved concurrency.
 */
interface Bounds {
  limits: () => RateLimits;
  limiter: RateLimiter;
  shares: ReservedShares;
}

/** The authorizer's name among the functions whose shares the gateway keeps (one authorizer per stage). */
const AUTHORIZER_FUNCTION = 'local-authorizer';

/**
 * `concurrency`: the shares to enforce, cdk.json's unless given (a test's small ones, or `reserve: false`
 * for none). A plain route (`apiRoute` 0) is unbounded here: the pool it shares in AWS is the account's
 * unreserved concurrency, which this machine does not have.
 */
export function createGateway(
  onAnswered?: (answered: AnsweredRequest) => void,
  rateLimits?: RateLimits,
  concurrency: ConcurrencySettings = CONCURRENCY_DEFAULTS,
): Server {
  const bounds: Bounds = {
    limits: () => rateLimits ?? config.rateLimits(),
    limiter: new RateLimiter(),
    shares: new ReservedShares(concurrency),
  };
  const server = createServer({ maxHeaderSize: LIMITS.headerBytes }, (request, response) => {
    if (onAnswered) {
      const started = performance.now();
      response.once('finish', () =>
        onAnswered({
          method: request.method ?? '',
          path: request.url ?? '',
          status: response.statusCode,
          ms: Math.round(performance.now() - started),
          requestId: String(response.getHeader('x-request-id') ?? '-'),
        }),
      );
    }
    serve(request, response, bounds).catch((error: unknown) => {
      console.error(JSON.stringify({ level: 'error', message: 'gateway failure', error: String(error) }));
      send(response, 502, { message: 'Bad Gateway' });
    });
  });
  // Node answers malformed HTTP with an empty 400/431; answer JSON like every other error, then close.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, reason] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large']
        : [400, MESSAGES.badRequest];
    const body = JSON.stringify({ message: reason });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}

async function serve(request: IncomingMessage, response: ServerResponse, bounds: Bounds): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const method = request.method ?? 'GET';
  if (method === 'OPTIONS' && answerPreflight(request, response, url.pathname)) return;
  const match = matchRoute(method, url.pathname);
  if (match === 'malformed') return send(response, 400, { message: 'The request path is not valid.' });
  if (!match) return send(response, 404, { message: MESSAGES.noSuchPath });
  if ('allowed' in match) return sendMethodNotAllowed(response, method, match.resource, match.allowed);

  const body = await readBody(request);
  if (body === null) return; // the client went away, or its HTTP broke off (answered by clientError)
  if (body === undefined) {
    // The rest of the body is not read: close the connection rather than read it as the next request.
    response.setHeader('Connection', 'close');
    return send(response, 413, { message: MESSAGES.tooLarge });
  }

  const requestId = randomUUID();
  const { route, params } = match;
  // The web ACL counts, and blocks, before API Gateway runs the authorizer: per source address, then per token.
  if (!withinSourceLimit(request.socket.remoteAddress, bounds, response, requestId)) return; // answered: 429
  const rateLimitHeaders = withinRateLimit(request.headers.authorization, bounds, response, requestId);
  if (!rateLimitHeaders) return; // answered: 429
  const policy = route.public
    ? undefined
    : await authorize(request, response, method, url, requestId, bounds.shares);
  if (policy === null) return; // answered: 401 (no token), 403 or 503
  if (policy === 'refused') return sendUnauthenticated(response, requestId);
  const event = proxyEvent(LOCAL_API, {
    method: route.method,
    resource: route.path,
    path: url.pathname,
    pathParameters: params,
    headers: headerPairs(request.rawHeaders),
    query: url.searchParams,
    body,
    requestId,
    sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
    authorizer: policy,
  });
  const handler = await load<ProxyHandler>(route.handler);
  const timeoutMs =
    config.localGatewayWaitMs() ?? Math.min(functionTimeoutSeconds(route) * 1000, TIMEOUTS.gatewayMs);
  const functionName = `local-${route.method}-${route.path}`;
  // The slot is held until the function ends or Lambda would have ended it (its timeout).
  const running = bounds.shares
    .of(functionName, routeClass(route))
    .tryRun(() =>
      withinTimeout(handler(event, lambdaContext({ requestId, functionName, timeoutMs })), timeoutMs),
    );
  // Lambda refused it (the function's share is full): the stack's 503, and the handler never ran.
  if (!running) return sendUnavailable(response, requestId);
  const result = await running;
  // A function that runs out of time is an integration failure; API Gateway answers 504 either way.
  if (result === TIMED_OUT) return send(response, 504, { message: MESSAGES.timedOut }, requestId);
  writeHead(response, result.statusCode, {
    ...(result.headers as Record<string, string>),
    // What the gateway counted by: the same plans as the handler's RateLimit-Policy, or a test's own.
    ...rateLimitHeaders,
    'Content-Length': Buffer.byteLength(result.body),
  });
  response.end(result.body);
}

/**
 * The TOKEN authorizer, as API Gateway runs it: its policy, `refused` for a token it refused (401, once the
 * request is counted), or null once the request has been answered (no token: 401; a policy that does not
 * cover the method: 403; a failure or a timeout: 503).
 */
async function authorize(
  request: IncomingMessage,
  response: ServerResponse,
  method: string,
  url: URL,
  requestId: string,
  shares: ReservedShares,
): Promise<APIGatewayAuthorizerResult | 'refused' | null> {
  // Header names are case-insensitive (node lower-cases them in `request.headers`).
  const authorizationToken = request.headers.authorization;
  // The validation expression: a header that cannot hold a token never reaches the authorizer.
  if (!authorizationToken || bearerToken(authorizationToken) === undefined) {
    sendUnauthenticated(response, requestId);
    return null;
  }
  const arn = methodArn(LOCAL_API, method, url.pathname);
  const authorize = await load<Authorizer>(authorizer.handler);
  // Every request's token is checked here (API Gateway's cache is not kept): all count against the share.
  const checking = shares
    .of(AUTHORIZER_FUNCTION, 'authorizer')
    .tryRun(() =>
      withinTimeout(
        authorize(tokenEvent(authorizationToken, arn)),
        config.localGatewayWaitMs() ?? TIMEOUTS.authorizerSeconds * 1000,
      ),
    );
  // Only an `Unauthorized` error means 401; any other failure, a timeout or a full share is the stack's 503.
  const policy = await checking?.catch((error: Error) =>
    error.message === 'Unauthorized' ? undefined : error,
  );
  if (checking === undefined || policy instanceof Error || policy === TIMED_OUT) {
    sendUnavailable(response, requestId);
    return null;
  }
  if (!policy) return 'refused';
  if (!allows(policy, arn)) {
    send(response, 403, { message: MESSAGES.forbidden }, requestId);
    return null;
  }
  return policy;
}

/**
 * Counts the request under its source address as the web ACL's first rule does (lib/cdk/rate-limits.ts,
 * WAF's `IP` key), whatever it carries: false once it has answered 429 with the seconds until the address
 * is under its limit again. Before the plans, so a request it refuses is not counted by them, as in WAF.
 */
function withinSourceLimit(
  address: string | undefined,
  bounds: Bounds,
  response: ServerResponse,
  requestId: string,
): boolean {
  const admission = bounds.limiter.admit(`source ${address ?? ''}`, sourceRateLimit(bounds.limits()));
  if (admission.allowed) return true;
  response.setHeader('Retry-After', String(admission.resetSeconds));
  send(response, 429, { message: MESSAGES.tooManyRequests }, requestId);
  return false;
}

/**
 * Counts the request under its token's plan as the stage's web ACL does (lib/cdk/rate-limits.ts: one
 * rate-based rule per plan, keyed on the Authorization header): null once it has answered 429, else the
 * RateLimit header fields of the count. The plan is the one the header's first characters name, by WAF's
 * own rule (planOfAuthorization), before any authorizer runs and with no read: a token the authorizer
 * will refuse is counted too, under the plan it names, and a public route's request with a token as well.
 * A request without the header is not counted, as WAF counts none without its key.
 */
function withinRateLimit(
  authorization: string | undefined,
  plans: Bounds,
  response: ServerResponse,
  requestId: string,
): Record<string, string> | null {
  if (!authorization) return {};
  const limits = plans.limits();
  const limit = rateLimitOf(planOfAuthorization(authorization, limits), limits);
  // Lower-cased, as the web ACL's key is: `Bearer` and `bearer` are one token.
  const admission = plans.limiter.admit(`${limit.plan} ${authorization.toLowerCase()}`, limit);
  const headers = {
    'RateLimit-Policy': rateLimitPolicyHeader(limit),
    RateLimit: rateLimitHeader(limit.plan, admission.remaining, admission.resetSeconds),
  };
  if (admission.allowed) return headers;
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  response.setHeader('Retry-After', String(admission.resetSeconds));
  send(response, 429, { message: MESSAGES.tooManyRequests }, requestId);
  return null;
}

const TIMED_OUT = Symbol('timed out');

/** The promise's value, or TIMED_OUT once the time is up (the work itself cannot be stopped in-process). */
function withinTimeout<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A browser's preflight, as the deployed stack answers it (lib/cdk/cors.ts) when the deployment allows
 * browser origins: 204, naming the origin only if it is allowed. With none allowed there is no preflight,
 * and an OPTIONS request is a method the resource lacks (405) like any other, as is an OPTIONS that is not
 * a preflight (no Origin or no Access-Control-Request-Method).
 */
function answerPreflight(request: IncomingMessage, response: ServerResponse, path: string): boolean {
  const origins = config.corsOrigins();
  const { origin, 'access-control-request-method': requested } = request.headers;
  const resource = resourceOf(path);
  if (!origins.length || !resource || !origin || !requested) return false;
  writeHead(response, 204, preflightHeaders(origin, origins, allowedMethods(resource.path)));
  response.end();
  return true;
}

/** Like API Gateway: the path picks the resource, a literal segment beating a `{param}`. */
function resourceOf(path: string) {
  const candidates = compiled
    .map(({ route, pattern, names }) => ({ path: route.path, names, found: pattern.exec(path) }))
    .filter(
      (candidate): candidate is typeof candidate & { found: RegExpExecArray } => candidate.found !== null,
    )
    .sort((a, b) => a.names.length - b.names.length);
  return candidates[0];
}

/**
 * The route of the method on the path's resource with its path parameters; `allowed` when the resource
 * lacks the method (405); undefined when no resource matches (404).
 */
function matchRoute(
  method: string,
  path: string,
):
  | { route: Route; params: Record<string, string> }
  | { resource: string; allowed: Route['method'][] }
  | 'malformed'
  | undefined {
  const resource = resourceOf(path);
  if (!resource) return undefined;
  const route = routes.find((candidate) => candidate.path === resource.path && candidate.method === method);
  if (!route) return { resource: resource.path, allowed: allowedMethods(resource.path) };
  try {
    return {
      route,
      params: dictionary(
        resource.names.map((name, i) => [name, decodeURIComponent(resource.found[i + 1] ?? '')]),
      ),
    };
  } catch {
    return 'malformed'; // not valid percent-encoded UTF-8
  }
}

function allows(policy: APIGatewayAuthorizerResult, methodArn: string): boolean {
  const statements = policy.policyDocument.Statement as Array<{
    Effect: string;
    Resource?: string | string[];
  }>;
  const matches = (pattern: string) =>
    new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    ).test(methodArn);
  const covers = (effect: string) =>
    statements.some((s) => s.Effect === effect && [s.Resource ?? []].flat().some(matches));
  return covers('Allow') && !covers('Deny');
}

/** Node's raw header list (`[name, value, name, value, ...]`) as pairs, in the order sent. */
function headerPairs(raw: string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i] as string, raw[i + 1] as string]);
  return pairs;
}

/**
 * The request body as text, undefined as soon as it exceeds API Gateway's payload limit (the rest is then
 * read and dropped, not left in the socket to be parsed as the next request), null if it never completes.
 */
function readBody(request: IncomingMessage): Promise<string | undefined | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > LIMITS.gatewayPayloadBytes) resolve(undefined);
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', () => resolve(null));
  });
}

/** No token, or not a valid one: 401, saying what to send (RFC 6750), as the deployed stack answers. */
function sendUnauthenticated(response: ServerResponse, requestId: string): void {
  response.setHeader('WWW-Authenticate', BEARER_CHALLENGE);
  send(response, 401, { message: MESSAGES.unauthenticated }, requestId);
}

/**
 * A method the resource lacks: 405 with `Allow`, as API Gateway's mock answers it (lib/cdk/method-not-allowed.ts).
 * Node sends no body to a HEAD.
 */
function sendMethodNotAllowed(
  response: ServerResponse,
  method: string,
  resource: string,
  allowed: readonly string[],
): void {
  response.setHeader('Allow', allowed.join(', '));
  send(response, 405, { message: methodNotAllowed(method, resource, allowed) });
}

/**
 * A dependency (the table) could not answer, or Lambda refused the function (its share full): 503 with
 * Retry-After, as the deployed stack answers both.
 */
function sendUnavailable(response: ServerResponse, requestId: string): void {
  response.setHeader('Retry-After', String(TIMEOUTS.retryAfterSeconds));
  send(response, 503, { message: MESSAGES.unavailable }, requestId);
}

function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  requestId: string = randomUUID(),
): void {
  // Failed mid-answer: the client sees a cut, not a mix of two answers.
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const text = JSON.stringify(body);
  writeHead(response, status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'X-Request-Id': requestId,
  });
  response.end(text);
}

/** Sets the headers one by one, so that what was answered can be read back (the terminal line's request id). */
function writeHead(response: ServerResponse, status: number, headers: Record<string, string | number>): void {
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  response.writeHead(status);
}
