import type { Scope } from '../scopes.ts';
import {
  BEARER_CHALLENGE,
  EXPIRED_TOKEN_CHALLENGE,
  insufficientScopeChallenge,
  MESSAGES,
} from './messages.ts';

/** Typed errors thrown anywhere below a handler; the error middleware renders them (see handler.ts). */
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

export class ForbiddenError extends HttpError {
  constructor(message: string = MESSAGES.forbidden) {
    super(403, message);
  }
}

export class NotFoundError extends HttpError {
  constructor(model?: string, id?: string | number) {
    super(
      404,
      model === undefined ? 'Not Found.' : `No query results for model [${model}] ${id ?? ''}`.trimEnd(),
    );
  }
}

/** Every `error_code` a 409 or 412 answers with (the OpenAPI document lists them). */
export const CONFLICT_ERROR_CODES = [
  'idempotency_key_conflict',
  'concurrent_modification',
  'precondition_failed',
] as const;
/** Every `error_code` a 403 answers with: a token without the scope the route needs. */
export const FORBIDDEN_ERROR_CODES = ['insufficient_scope'] as const;
/** Every `error_code` the API answers with, whatever the status. */
export const ERROR_CODES = [...FORBIDDEN_ERROR_CODES, ...CONFLICT_ERROR_CODES] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The token's scopes do not include the one the route needs (a write scope includes its read): refused
 * before the request is read, `WWW-Authenticate` naming the scope as RFC 6750 §3.1 asks. Also what a route
 * answers when its request needs scopes beyond the route's own (an event type's family: shared/events/
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

export class ConflictError extends HttpError {
  constructor(
    message: string,
    errorCode: Exclude<(typeof CONFLICT_ERROR_CODES)[number], 'precondition_failed'>,
    headers: Record<string, string> = {},
  ) {
    super(409, message, { error_code: errorCode }, headers);
  }
}

/** If-Match named another version than the resource's current one: the write changed nothing. */
export class PreconditionFailedError extends HttpError {
  constructor() {
    const errorCode: ErrorCode = 'precondition_failed';
    super(412, 'The resource has changed since you read it: read it again.', { error_code: errorCode });
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

/**
 * The caller's team already runs its share of a pool every team shares (auto-configure's): refused before
 * it took any of the pool's time, to be retried once one of the team's own calls has ended.
 */
export class TeamShareFullError extends HttpError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, {}, { 'Retry-After': String(retryAfterSeconds) });
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

/** Laravel-style 422: `message` names the first failed rule, `errors` maps each field to its messages. */
export class ValidationError extends HttpError {
  constructor(readonly errors: Record<string, string[]>) {
    super(422, summarise(errors), { errors });
  }

  static single(field: string, message: string): ValidationError {
    const errors: Record<string, string[]> = Object.create(null);
    errors[field] = [message];
    return new ValidationError(errors);
  }
}

function summarise(errors: Record<string, string[]>): string {
  const all = Object.values(errors).flat();
  const first = all[0] ?? 'The given data was invalid.';
  const more = all.length - 1;
  return more > 0 ? `${first} (and ${more} more error${more > 1 ? 's' : ''})` : first;
}
