/**
 * Turns fetched HTML bytes into text the way browsers pick the encoding (WHATWG "determine the character
 * encoding", simplified): byte order mark, then the Content-Type charset, then a `<meta>` charset in the first
 * 1024 bytes, else UTF-8. Node's TextDecoder has full ICU, so Shift_JIS, EUC-JP, GBK, windows-125x all work.
 */
export function decodeHtml(body: Uint8Array, contentType: string | null): string {
  const encoding =
    encodingOfBom(body) ??
    supportedEncoding(charsetOfContentType(contentType)) ??
    supportedEncoding(charsetOfMeta(body)) ??
    'utf-8';
  // TextDecoder drops a BOM that matches the encoding it decodes.
  const text = new TextDecoder(encoding).decode(body);
  return encoding === 'windows-1252' ? fixWindows1252(text) : text;
}

// windows-1252 is what iso-8859-1, latin1 and ascii labels mean on the web. Node 20's TextDecoder decodes it as
// ISO-8859-1, so bytes 0x80-0x9F (curly quotes, dashes, €) come out as C1 controls. Mapping them is a no-op where
// the decoder is right: the five bytes windows-1252 leaves undefined map to themselves.
const WINDOWS_1252_0X80_TO_0X9F = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ';

function fixWindows1252(text: string): string {
  return text.replace(/[\u0080-\u009f]/g, (char) =>
    WINDOWS_1252_0X80_TO_0X9F.charAt(char.charCodeAt(0) - 0x80),
  );
}

const BYTE_ORDER_MARKS: ReadonlyArray<[readonly number[], string]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];

function encodingOfBom(body: Uint8Array): string | null {
  const match = BYTE_ORDER_MARKS.find(([bom]) => bom.every((byte, index) => body[index] === byte));
  return match?.[1] ?? null;
}

function charsetOfContentType(contentType: string | null): string | null {
  return /;\s*charset\s*=\s*["']?([^\s;"']+)/i.exec(contentType ?? '')?.[1] ?? null;
}

const PRESCAN_BYTES = 1024;

/** `<meta charset=x>` or `<meta http-equiv=Content-Type content="...; charset=x">`, read as ASCII. */
function charsetOfMeta(body: Uint8Array): string | null {
  const head = new TextDecoder('windows-1252').decode(body.subarray(0, PRESCAN_BYTES));
  const label = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([^\s"'/>;]+)/i.exec(head)?.[1] ?? null;
  // A document cannot declare itself UTF-16 in ASCII-compatible bytes; browsers read that as UTF-8.
  return label !== null && /^utf-?16/i.test(label) ? 'utf-8' : label;
}

/** The label when TextDecoder knows it; an unknown label falls through to the next rule. */
function supportedEncoding(label: string | null): string | null {
  if (label === null) return null;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
}
