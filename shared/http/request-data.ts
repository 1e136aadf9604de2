import { ValidationError } from '../domain/errors.ts';
import { LIMITS } from '../limits.ts';
import { BadRequestError, PayloadTooLargeError } from './errors.ts';
import { describePosition, syntaxErrorPosition } from './json-position.ts';

/**
 * Caller data as the handlers may trust it. Maps built from it have no prototype (a header or a query
 * parameter may be called `constructor` or `__proto__`); a body is refused before anything walks it when
 * it is too large or nested too deep, and at the edge when a string is not valid Unicode.
 */
export type Dictionary<T> = Record<string, T>;

export function dictionary<T>(entries: Iterable<readonly [string, T]> = []): Dictionary<T> {
  const map: Dictionary<T> = Object.create(null);
  for (const [key, value] of entries) map[key] = value;
  return map;
}

/** A JSON body: at most LIMITS.bodyBytes, nested at most LIMITS.bodyDepth deep, every string well formed. */
export function parseJsonBody(text: string): unknown {
  if (Buffer.byteLength(text) > LIMITS.bodyBytes) throw new PayloadTooLargeError();
  if (nestingDepth(text) > LIMITS.bodyDepth) {
    throw new BadRequestError(
      `The request body must not be nested more than ${LIMITS.bodyDepth} levels deep.`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const position = syntaxErrorPosition(text);
    const where = position >= text.length ? 'ends too soon' : `breaks at ${describePosition(text, position)}`;
    throw new BadRequestError(`The request body is not valid JSON: it ${where}.`);
  }
  const field = illFormedField(body, []);
  if (field !== undefined) {
    const name = field.join('.') || 'body';
    throw ValidationError.single(name, `The ${name.replaceAll('_', ' ')} field must be valid Unicode text.`);
  }
  return body;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/** The deepest nesting of arrays and objects in JSON text, by one scan that skips strings (no recursion). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (OPENERS.has(code)) deepest = Math.max(deepest, ++depth);
    else if (CLOSERS.has(code)) depth--;
  }
  return deepest;
}

/** The path of the first key or string holding a lone surrogate; the depth is already bounded. */
function illFormedField(value: unknown, path: string[]): string[] | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : path;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = illFormedField(item, [...path, String(index)]);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!key.isWellFormed()) return [...path, key.toWellFormed()];
      const found = illFormedField(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}
