import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { isDependencyFailure } from '../aws.ts';
import { TIMEOUTS } from '../limits.ts';
import {
  GatewayTimeoutError,
  HttpError,
  NotFoundError,
  ServiceUnavailableError,
  UnauthenticatedError,
} from './errors.ts';
import { describeError, log } from './log.ts';
import { MESSAGES } from './messages.ts';
import { type Dictionary, dictionary, parseJsonBody } from './request-data.ts';
import { type ApiResponse, toProxyResult } from './response.ts';

export { type ApiResponse, created, ok } from './response.ts';

/** What a handler sees: the caller's team, the parsed body and the request's parameters. */
export interface ApiRequest {
  teamId: number;
  requestId: string;
  method: string;
  /** The route's path template, e.g. `/api/v1/brands/{id}`. */
  route: string;
  /** Only POST and PUT take a body; other methods ignore one. */
  body: unknown;
  /** Header names in lower case. */
  headers: Dictionary<string>;
  pathParams: Dictionary<string>;
  /** Every value of each query parameter; `site_id[]` is read as `site_id`. */
  query: Dictionary<string[]>;
  /** Milliseconds left before the Lambda times out. */
  remainingTimeMs: () => number;
}

/** A path parameter that must be a positive integer id; anything else names no resource (404). */
export function pathId(req: ApiRequest, model: string, name = 'id'): number {
  const raw = req.pathParams[name] ?? '';
  if (!/^[1-9][0-9]{0,14}$/.test(raw)) throw new NotFoundError(model, raw);
  return Number(raw);
}

/** A middleware between request parsing and the handler sees the ApiRequest as its event. */
export type ApiMiddleware = MiddlewareObj<ApiRequest, ApiResponse>;

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * Wraps a handler: parses the proxy event into an ApiRequest, renders thrown HttpErrors (and anything
 * unexpected, as a logged 500) as JSON, and adds the request id header. Middlewares a route opts into
 * (idempotency) run between parsing and the handler and see the handler's rendered response, errors
 * included.
 */
export function httpHandler(
  handle: (req: ApiRequest) => Promise<ApiResponse>,
  ...middlewares: ApiMiddleware[]
): ProxyHandler {
  // biome-ignore lint/suspicious/noExplicitAny: the event changes type from proxy event to ApiRequest in parseRequest.
  return middy<any, ApiResponse>({ timeoutEarlyInMillis: ANSWER_MARGIN_MS, timeoutEarlyResponse: outOfTime })
    .use(respond)
    .use(parseRequest)
    .use(middlewares as MiddlewareObj[])
    .handler((req: ApiRequest) =>
      handle(req).catch((error: unknown) => renderError(error, req.requestId)),
    ) as unknown as ProxyHandler;
}

/** Time kept back from the Lambda timeout to answer a handler that has not finished (504, not a crash). */
const ANSWER_MARGIN_MS = 250;

function outOfTime(): never {
  log.warn('handler ran out of time');
  throw new GatewayTimeoutError();
}

const parseRequest: MiddlewareObj<APIGatewayProxyEvent | ApiRequest> = {
  before: (request) => {
    const event = request.event as APIGatewayProxyEvent;
    const context = request.context;
    const requestId = event.requestContext?.requestId ?? context.awsRequestId;
    const teamId = Number(event.requestContext?.authorizer?.teamId);
    // The authorizer guarantees a team; this only guards a misconfigured deployment.
    if (!Number.isSafeInteger(teamId) || teamId <= 0) throw new UnauthenticatedError();
    request.event = {
      teamId,
      requestId,
      method: event.httpMethod,
      route: event.resource,
      body: parseBody(event),
      headers: lowerCaseKeys(event.headers ?? {}),
      pathParams: dictionary(Object.entries(event.pathParameters ?? {}) as Array<[string, string]>),
      query: parseQuery(event),
      remainingTimeMs: () => context.getRemainingTimeInMillis?.() ?? 30_000,
    } satisfies ApiRequest;
  },
};

const respond: MiddlewareObj<APIGatewayProxyEvent | ApiRequest, ApiResponse | APIGatewayProxyResult> = {
  after: (request) => {
    request.response = toProxyResult(request.response as ApiResponse, requestIdOf(request));
  },
  onError: (request) => {
    request.response = toProxyResult(renderError(request.error, requestIdOf(request)), requestIdOf(request));
  },
};

function requestIdOf(request: { event: APIGatewayProxyEvent | ApiRequest; context: Context }): string {
  const event = request.event;
  if ('requestId' in event) return event.requestId;
  return event.requestContext?.requestId ?? request.context.awsRequestId;
}

export function renderError(error: unknown, requestId: string): ApiResponse {
  if (isDependencyFailure(error)) {
    log.warn('dependency unavailable', { request_id: requestId, ...describeError(error) });
    error = new ServiceUnavailableError(TIMEOUTS.retryAfterSeconds);
  }
  if (error instanceof HttpError) return { status: error.status, body: error.body(), headers: error.headers };
  log.error('unhandled error', { request_id: requestId, ...describeError(error) });
  return { status: 500, body: { message: MESSAGES.serverError } };
}

function parseBody(event: APIGatewayProxyEvent): unknown {
  if (event.httpMethod !== 'POST' && event.httpMethod !== 'PUT') return undefined;
  if (event.body === null || event.body === undefined || event.body === '') return undefined;
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
