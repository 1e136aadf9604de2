import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { config } from '../config.ts';
import { LIMITS } from '../limits.ts';
import { BadRequestError } from './errors.ts';

/**
 * List cursors: `<payload>.<tag>`, both base64url; the payload is a small JSON object naming the list, the
 * team, a hash of the filters and the position of the last item returned, and the tag its HMAC-SHA256.
 * A cursor is checked before use: anything but one this API issued for the same list, team and filters is
 * a 400 that says nothing about what was wrong or what the cursor holds.
 *
 * The tag is tamper-evidence, not secrecy: the payload is readable by whoever holds the cursor, and holds
 * only the caller's own sort key, team and list. The key is `CURSOR_SECRET` when set; otherwise one is
 * derived from the table name, stable across functions and deployments of the table, so cursors survive
 * cold starts and every function of a stack agrees on it.
 */
export const INVALID_CURSOR = 'The cursor is not valid.';

/** The form of every cursor issued, `<payload>.<tag>` in base64url (the OpenAPI document says it too). */
export const CURSOR_FORM = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const VERSION = 1;
const KEY_LABEL = 'team-messaging-api list cursor key v1';

interface Payload {
  v: number;
  /** The list, e.g. `brands`. */
  l: string;
  /** The team. */
  t: number;
  /** The filters' hash. */
  f: string;
  /** The position of the last item returned. */
  p: unknown;
}

/** What a cursor is bound to: the same list, team and filters must present it again. */
export interface CursorScope {
  list: string;
  teamId: number;
  /** The filters in a canonical form (names and values as the Link URL carries them); undefined: not given. */
  filters: Filters;
}

export type Filters = Readonly<Record<string, readonly string[] | undefined>>;

/** The filters given, by name. */
export const givenFilters = (filters: Filters): Array<[string, readonly string[]]> =>
  Object.keys(filters)
    .sort()
    .flatMap((name) => {
      const values = filters[name];
      return values === undefined ? [] : [[name, values] as [string, readonly string[]]];
    });

function key(): Buffer {
  const secret = config.cursorSecret();
  if (secret) return Buffer.from(secret, 'utf8');
  return createHmac('sha256', KEY_LABEL).update(config.tableName()).digest();
}

const tagOf = (encodedPayload: string): Buffer => createHmac('sha256', key()).update(encodedPayload).digest();

function filtersHash(filters: Filters): string {
  return createHash('sha256')
    .update(JSON.stringify(givenFilters(filters)))
    .digest('base64url')
    .slice(0, 16);
}

export function encodeCursor(scope: CursorScope, position: unknown): string {
  const payload: Payload = {
    v: VERSION,
    l: scope.list,
    t: scope.teamId,
    f: filtersHash(scope.filters),
    p: position,
  };
  const encoded = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${encoded}.${tagOf(encoded).toString('base64url')}`;
}

/**
 * The position a cursor carries, once its tag, list, team and filters check out; otherwise a 400.
 * `isPosition` checks its shape (a cursor signed by an older shape of the list is no valid cursor).
 */
export function decodeCursor<K>(
  cursor: string,
  scope: CursorScope,
  isPosition: (position: unknown) => position is K,
): K {
  // Longer than any cursor issued, or of another form: refused before anything is hashed or decoded.
  if (cursor.length > LIMITS.cursorLength || !CURSOR_FORM.test(cursor))
    throw new BadRequestError(INVALID_CURSOR);
  const [encoded = '', tag = ''] = cursor.split('.');
  const given = Buffer.from(tag, 'base64url');
  const expected = tagOf(encoded);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new BadRequestError(INVALID_CURSOR);
  }
  let payload: Partial<Payload>;
  try {
    payload = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    throw new BadRequestError(INVALID_CURSOR);
  }
  const valid =
    payload?.v === VERSION &&
    payload.l === scope.list &&
    payload.t === scope.teamId &&
    payload.f === filtersHash(scope.filters) &&
    isPosition(payload.p);
  if (!valid) throw new BadRequestError(INVALID_CURSOR);
  return payload.p as K;
}
