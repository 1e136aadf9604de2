/**
 * The domain's failures, thrown by any layer below the HTTP one. They carry what went wrong and nothing of
 * HTTP: shared/http/errors.ts alone gives each its status, body and headers.
 */
export abstract class DomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Every `error_code` a conflict (409) or a version mismatch (412) answers with (the OpenAPI document lists them). */
export const CONFLICT_ERROR_CODES = [
  'idempotency_key_conflict',
  'concurrent_modification',
  'precondition_failed',
] as const;
export type ConflictErrorCode = (typeof CONFLICT_ERROR_CODES)[number];

/** Invalid input: `message` names the first failed rule, `errors` maps each field to its messages. */
export class ValidationError extends DomainError {
  constructor(readonly errors: Record<string, string[]>) {
    super(summarise(errors));
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

/** No such resource (of the caller's team), or no such thing at all when no model is named. */
export class NotFoundError extends DomainError {
  constructor(model?: string, id?: string | number) {
    super(model === undefined ? 'Not Found.' : `No query results for model [${model}] ${id ?? ''}`.trimEnd());
  }
}

/** Not the caller's to do (another team's, or a managed resource): the message says why, when it can. */
export class ForbiddenError extends DomainError {
  /** Without a reason the answer is the standard sentence. */
  constructor(readonly reason?: string) {
    super(reason ?? 'Forbidden');
  }
}

/** The write met another one, or an earlier request under the same Idempotency-Key: `code` says which. */
export class ConflictError extends DomainError {
  constructor(
    message: string,
    readonly code: Exclude<ConflictErrorCode, 'precondition_failed'>,
  ) {
    super(message);
  }
}

/** If-Match named another version than the resource's current one: the write changed nothing. */
export class PreconditionFailedError extends DomainError {
  readonly code: ConflictErrorCode = 'precondition_failed';
  constructor() {
    super('The resource has changed since you read it: read it again.');
  }
}

/**
 * The caller's team has used its share of something every team has a share of (a pool every team shares,
 * auto-configure's; its Idempotency-Key records of the day): refused before it took any of it, to be
 * retried after `retryAfterSeconds`.
 */
export class TeamShareFullError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
