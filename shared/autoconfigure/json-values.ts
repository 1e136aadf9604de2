/** Defensive readers for JSON that comes from other people's websites (JSON-LD, web manifests). */

import { LIMITS } from '../limits.ts';
import { clipped } from './third-party-text.ts';

export type JsonObject = Record<string, unknown>;

/** How deep a JSON text nests its arrays and objects, and how many values it holds. */
export interface JsonExtent {
  /** Arrays and objects inside one another: 0 for a scalar, 1 for `[]` or `{}`, 2 for `[[]]`. */
  depth: number;
  /** Each array and object, and each element or member after a comma in them: what JSON.parse builds. */
  values: number;
}

/** What auto-configure parses of one JSON text (and of a page's JSON-LD blocks together). */
export const JSON_BOUNDS: JsonExtent = {
  depth: LIMITS.autoConfigureJsonDepth,
  values: LIMITS.autoConfigureJsonValues,
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * The extent of a JSON text in one pass over it, brackets and commas counted outside strings, or null as soon as it
 * nests deeper than `bound.depth` or holds more values than `bound.values` (the rest is not read). Invalid JSON is
 * measured all the same; JSON.parse judges it after.
 */
export function jsonExtent(text: string, bound: JsonExtent): JsonExtent | null {
  let depth = 0;
  let deepest = 0;
  let values = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = stringEnd(text, index);
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth++;
      values++;
      if (depth > deepest) deepest = depth;
      if (depth > bound.depth || values > bound.values) return null;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth = Math.max(0, depth - 1);
    } else if (code === COMMA) {
      values++;
      if (values > bound.values) return null;
    }
  }
  return { depth: deepest, values };
}

/** The index of the quote that closes the string opened at `start` (the text's length when none does). */
function stringEnd(text: string, start: number): number {
  for (let quote = text.indexOf('"', start + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    // Escaped when an odd number of backslashes stand before it; each run is counted for the one quote after it.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

/** A JSON text within JSON_BOUNDS, parsed; past them it is not parsed and, as invalid JSON, yields null. */
export function parseBoundedJsonOrNull(text: string): unknown {
  return jsonExtent(text, JSON_BOUNDS) === null ? null : parseJsonOrNull(text);
}

/**
 * Invalid JSON is common in the wild; it simply contributes nothing. Only for a text already measured within
 * JSON_BOUNDS (jsonExtent): what JSON.parse costs follows what the text holds.
 */
export function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A trimmed string, clipped first (third-party-text.ts), or null for anything else or blank. */
export function nonEmptyString(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = clipped(value).trim();
  return text === '' ? null : text;
}

/** JSON-LD allows one value or an array wherever a list is meant. */
export function listOf(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}
