/**
 * An item's size as DynamoDB counts it against its 400 KB (Item sizes and formats, DynamoDB Developer
 * Guide): each attribute name's UTF-8 bytes plus its value's; a string its UTF-8 bytes, a number up to 21
 * bytes (counted at that: an upper bound), a boolean or null 1 byte, a list or map 3 bytes plus 1 per
 * element with each element's size (a map's keys counted as names). Used to bound what a write stores
 * before DynamoDB would refuse it.
 */
export function itemSize(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value !== undefined) bytes += Buffer.byteLength(name) + valueSize(value);
  }
  return bytes;
}

const NUMBER_BYTES = 21;

function valueSize(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return NUMBER_BYTES;
  if (value === null || typeof value === 'boolean' || value === undefined) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) return value.reduce((sum: number, element) => sum + 1 + valueSize(element), 3);
  if (typeof value === 'object') {
    return Object.entries(value).reduce(
      (sum, [name, element]) => sum + 1 + Buffer.byteLength(name) + valueSize(element),
      3,
    );
  }
  return 0;
}
