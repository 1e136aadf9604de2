/** Defensive readers for JSON that comes from other people's websites (JSON-LD, web manifests). */

import { clipped } from './third-party-text.ts';

export type JsonObject = Record<string, unknown>;

/** Invalid JSON is common in the wild; it simply contributes nothing. */
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
