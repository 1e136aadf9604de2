/**
 * The API's CORS policy. It is called server to server with a bearer token, so by default no browser origin
 * is allowed: no response carries Access-Control-Allow-Origin and a preflight is not answered. A deployment
 * that serves a browser app lists its origins (cdk.json `corsOrigins`, `CORS_ORIGINS` for the functions):
 * API Gateway (lib/cdk/cors.ts) and the local gateway answer their preflights, the handlers their requests.
 */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
];
/** What a browser script may read of a response, beyond the CORS-safelisted headers. */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'Link',
  'Retry-After',
  'X-Request-Id',
  'Idempotent-Replay',
  'RateLimit-Policy',
  'RateLimit',
];
/** How long a browser may keep a preflight's answer. */
export const CORS_MAX_AGE_SECONDS = 600;

/** `https://app.example.com`: a scheme and a host (and port), nothing else, as a browser sends Origin. */
export const ORIGIN_SHAPE = /^https?:\/\/[a-z0-9.-]+(?::[0-9]{1,5})?$/;

/** The headers that let the request's origin read an answer: none unless the origin is allowed. */
export function corsHeaders(origin: string | undefined, allowed: readonly string[]): Record<string, string> {
  if (!origin || !allowed.includes(origin)) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
    Vary: 'Origin',
  };
}

/** A preflight's answer for a resource with these methods: the CORS headers only for an allowed origin. */
export function preflightHeaders(
  origin: string | undefined,
  allowed: readonly string[],
  methods: readonly string[],
): Record<string, string> {
  const headers = corsHeaders(origin, allowed);
  if (!headers['Access-Control-Allow-Origin']) return { Vary: 'Origin' };
  return {
    ...headers,
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
    'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
  };
}
