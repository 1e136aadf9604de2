import {
  CONFLICT_ERROR_CODES,
  ConflictError,
  type DomainError,
  ForbiddenError,
  NotFoundError,
  PreconditionFailedError,
  TeamShareFullError,
  ValidationError,
} from '../domain/errors.ts';
import type { Scope } from '../scopes.ts';
import {
  BEARER_CHALLENGE,
  EXPIRED_TOKEN_CHALLENGE,
  insufficientScopeChallenge,
  MESSAGES,
} from './messages.ts';

/**
 * The HTTP layer's own refusals (and what a domain failure becomes: httpErrorOf), each with its status;
 * the error middleware renders them (see handler.ts).
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }

  body(): Record<string, unknown> {
    return { message: this.message, ...this.extra };
  }
}

export class BadRequestError extends HttpError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthenticatedError extends HttpError {
  constructor() {
    super(401, MESSAGES.unauthenticated, {}, { 'WWW-Authenticate': BEARER_CHALLENGE });
  }
}

/**
 * The token expired while the authorizer's answer for it was still cached (the authorizer itself refuses an
 * expired token with the plain challenge): the route's own check of the context's `expiresAt`.
 */
export class TokenExpiredError extends HttpError {
  constructor() {
    super(401, MESSAGES.tokenExpired, {}, { 'WWW-Authenticate': EXPIRED_TOKEN_CHALLENGE });
  }
}

/** Every `error_code` a 403 answers with: a token without the scope the route needs. */
export const FORBIDDEN_ERROR_CODES = ['insufficient_scope'] as const;
/** Every `error_code` the API answers with, whatever the status. */
export const ERROR_CODES = [...FORBIDDEN_ERROR_CODES, ...CONFLICT_ERROR_CODES] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The token's scopes do not include the one the route needs (a write scope includes its read): refused
 * before the request is read, `WWW-Authenticate` naming the scope as RFC 6750 §3.1 asks. Also what a route
 * answers when its request needs scopes beyond the route's own (an event type's family: shared/domain/
 * event-shape.ts), with `purpose` saying for what: the message names every scope lacking, `required_scope`
 * and `WWW-Authenticate` the first (one scope each, as the document types them: a token given the scopes
 * the message names gets past them all).
 */
export class InsufficientScopeError extends HttpError {
  constructor(route: string, scope: Scope | readonly [Scope, ...Scope[]], purpose?: string) {
    const errorCode: ErrorCode = 'insufficient_scope';
    const scopes: readonly Scope[] = typeof scope === 'string' ? [scope] : scope;
    const required = scopes[0] as Scope;
    const named = scopes.map(
      (each) => `${each}${each.endsWith(':read') ? ` (or ${each.replace(/:read$/, ':write')})` : ''}`,
    );
    const lacking =
      named.length === 1
        ? `the scope ${named[0]}`
        : `the scopes ${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`;
    super(
      403,
      `This token lacks ${lacking}, which ${route} needs${purpose ? ` ${purpose}` : ''}.`,
      { error_code: errorCode, required_scope: required },
      { 'WWW-Authenticate': insufficientScopeChallenge(required) },
    );
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor() {
    super(413, MESSAGES.tooLarge);
  }
}

/** A body that is not JSON (by its Content-Type) to a route that reads JSON. */
export class UnsupportedMediaTypeError extends HttpError {
  constructor(contentType: string) {
    const type = contentType.split(';')[0]?.trim().slice(0, 100) ?? '';
    super(
      415,
      `The request body must be JSON, sent with Content-Type: application/json (this one was ${type || 'empty'}).`,
    );
  }
}

/** A dependency is down, timing out or throttling: not the caller's fault, worth retrying after a pause. */
export class ServiceUnavailableError extends HttpError {
  constructor(retryAfterSeconds: number) {
    super(503, MESSAGES.unavailable, {}, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** The function ran out of time: answered as API Gateway answers an integration timeout. */
export class GatewayTimeoutError extends HttpError {
  constructor() {
    super(504, MESSAGES.timedOut);
  }
}

/**
 * The one place a domain failure becomes an answer: its status, body and headers (a 422 is Laravel's:
 * `message` names the first failed rule, `errors` maps each field to its messages). Undefined for a
 * failure this map does not know, which is then a 500 as any unexpected error is.
 */
export function httpErrorOf(error: DomainError): HttpError | undefined {
  if (error instanceof ValidationError) return new HttpError(422, error.message, { errors: error.errors });
  if (error instanceof NotFoundError) return new HttpError(404, error.message);
  if (error instanceof ForbiddenError) return new HttpError(403, error.reason ?? MESSAGES.forbidden);
  if (error instanceof ConflictError) return new HttpError(409, error.message, { error_code: error.code });
  if (error instanceof PreconditionFailedError) {
    return new HttpError(412, error.message, { error_code: error.code });
  }
  if (error instanceof TeamShareFullError) {
    return new HttpError(429, error.message, {}, { 'Retry-After': String(error.retryAfterSeconds) });
  }
  return undefined;
}
