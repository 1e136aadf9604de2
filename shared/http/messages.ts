/** The fixed `{message}` texts, shared by the handlers, the local gateway and API Gateway's responses. */
export const MESSAGES = {
  unauthenticated: 'Unauthenticated.',
  forbidden: 'This action is unauthorized.',
  notFound: 'Not Found.',
  tooLarge: 'The request body is too large.',
  tooManyRequests: 'Too Many Attempts.',
  serverError: 'Server Error',
  unavailable: 'The service is temporarily unavailable; retry after the time given in Retry-After.',
  timedOut: 'Endpoint request timed out',
  badRequest: 'Bad Request',
} as const;

/** What a 401 asks for (RFC 6750): a bearer token. Every 401, the handlers', the gateways', carries it. */
export const BEARER_CHALLENGE = 'Bearer realm="team-messaging-api"';

/**
 * A 405's message: the method, the resource path (`/api/v1/brands/{id}`) and the methods it has. API Gateway's
 * mock (lib/cdk/method-not-allowed.ts) passes `$context.httpMethod` as the method.
 */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): string {
  return `The ${method} method is not supported for ${path}. Supported methods: ${allowed.join(', ')}.`;
}
