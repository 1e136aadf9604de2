import { ValidationError } from '../domain/errors.ts';

/** Why a site could not be read: a metric dimension, so a dashboard can tell the classes apart. */
export type RefusalReason =
  | 'invalid_url'
  | 'private_address'
  | 'port_not_allowed'
  | 'unresolvable'
  | 'unreachable'
  | 'timeout'
  | 'http_error'
  | 'not_html'
  | 'not_json'
  | 'too_large'
  | 'too_complex'
  | 'too_many_redirects';

/**
 * A 422 whose message names the failure for the caller (and, in `errors.url`, the field it is about, as every
 * 422 does), and whose reason classifies it for operators.
 */
export class FetchRefusal extends ValidationError {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super({ url: [message] });
  }
}
