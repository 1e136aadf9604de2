import { LIMITS } from '../../shared/limits.ts';

/**
 * A library path of exactly `total` UTF-8 bytes: names of `char` (ASCII-padded) of at most
 * LIMITS.libraryNameBytes each, so that only the path's length is at stake, never a name's.
 */
export function pathOfBytes(char: string, total: number): string {
  const charBytes = Buffer.byteLength(char);
  const names: string[] = [];
  let left = total;
  while (left > 0) {
    // Every name after the first costs its separator too.
    const room = Math.min(LIMITS.libraryNameBytes, names.length === 0 ? left : left - 1);
    if (room < 1) throw new Error(`no path of names ≤ ${LIMITS.libraryNameBytes} bytes has ${total} bytes`);
    const count = Math.floor(room / charBytes);
    names.push(char.repeat(count) + 'a'.repeat(room - count * charBytes));
    left -= room + (names.length > 1 ? 1 : 0);
  }
  return names.join('/');
}
