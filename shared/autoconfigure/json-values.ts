/** Defensive readers for JSON that comes from other people's websites (JSON-LD, web manifests). */

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

/** A trimmed string, or null for anything else or blank. */
export function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** JSON-LD allows one value or an array wherever a list is meant. */
export function listOf(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}
