import { LIMITS } from '../limits.ts';

/**
 * 1,048,576: written out here because every function loads this module, and the first toLocaleString starts Intl,
 * about 12 ms of each cold start.
 */
function digitsGrouped(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+$)/g, ',');
}

/**
 * The fixed `{message}` texts, shared by the handlers, the local gateway and API Gateway's responses. A
 * refusal says what would be accepted: the header a 401 wants, the limit a 413 passed, where the API is.
 */
export const MESSAGES = {
  unauthenticated: 'Unauthenticated. Send a valid API token in the header Authorization: Bearer <token>.',
  forbidden: 'This action is unauthorized.',
  notFound: 'Not Found.',
  /** A path no route has (`GET /`, `GET /brands`): where the routes are. */
  noSuchPath:
    'Not Found: no route has this path. The routes are under /api/v1 (e.g. GET /api/v1/brands), listed at /docs and /api/v1/openapi.json.',
  tooLarge: `The request body is too large: at most ${LIMITS.bodyBytes / 1024 / 1024} MiB (${digitsGrouped(LIMITS.bodyBytes)} bytes).`,
  tooManyRequests: 'Too Many Attempts.',
  serverError: 'Server Error',
  unavailable: 'The service is temporarily unavailable; retry after the time given in Retry-After.',
  timedOut: 'Endpoint request timed out',
  badRequest: 'Bad Request',
  tokenExpired:
    'The token has expired: ask for a new one and send it in the header Authorization: Bearer <token>.',
} as const;

/** What a 401 asks for (RFC 6750): a bearer token. Every 401, the handlers', the gateways', carries it. */
export const BEARER_CHALLENGE = 'Bearer realm="team-messaging-api"';

/**
 * A 401 of the route's own check of the token's expiry (RFC 6750 §3.1 `invalid_token`): the authorizer's
 * answer is cached per token, so a token may expire while its answer is still cached.
 */
export const EXPIRED_TOKEN_CHALLENGE = `${BEARER_CHALLENGE}, error="invalid_token", error_description="The token has expired"`;

/** A 403 of a token without the scope a route needs (RFC 6750 §3.1 `insufficient_scope`), naming it. */
export const insufficientScopeChallenge = (scope: string): string =>
  `${BEARER_CHALLENGE}, error="insufficient_scope", scope="${scope}"`;

/**
 * A 405's message: the method, the resource path (`/api/v1/brands/{id}`) and the methods it has. API Gateway's
 * mock (lib/cdk/method-not-allowed.ts) passes `$context.httpMethod` as the method.
 */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): string {
  return `The ${method} method is not supported for ${path}. Supported methods: ${allowed.join(', ')}.`;
}
