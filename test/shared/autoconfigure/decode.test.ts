import { describe, expect, it } from 'vitest';
import { decodeHtml } from '../../../shared/autoconfigure/decode.ts';

const ascii = (text: string): number[] => [...Buffer.from(text, 'ascii')];
const bytes = (...parts: Array<string | number[]>): Uint8Array =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? ascii(part) : part)));

const SHIFT_JIS_NIHON = [0x93, 0xfa, 0x96, 0x7b]; // 日本
const UTF8_NIHON = [...Buffer.from('日本', 'utf8')];

describe('decodeHtml', () => {
  it('lets a UTF-8 BOM win over the Content-Type charset', () => {
    const body = bytes([0xef, 0xbb, 0xbf], '<title>', UTF8_NIHON, '</title>');
    expect(decodeHtml(body, 'text/html; charset=shift_jis')).toBe('<title>日本</title>');
  });

  it('decodes UTF-16 with a BOM (little and big endian)', () => {
    const littleEndian = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<b>é</b>', 'utf16le')]);
    const bigEndian = Buffer.from(littleEndian).swap16();
    expect(decodeHtml(littleEndian, 'text/html; charset=utf-8')).toBe('<b>é</b>');
    expect(decodeHtml(bigEndian, null)).toBe('<b>é</b>');
  });

  it('uses the Content-Type charset, quoted or not, in any case', () => {
    expect(decodeHtml(bytes(SHIFT_JIS_NIHON), 'text/html; charset="Shift_JIS"')).toBe('日本');
    expect(decodeHtml(bytes(SHIFT_JIS_NIHON), 'text/html;charset=SHIFT_JIS')).toBe('日本');
  });

  it('falls back to <meta charset> when the header has none', () => {
    expect(decodeHtml(bytes('<meta charset="shift_jis">', SHIFT_JIS_NIHON), 'text/html')).toBe(
      '<meta charset="shift_jis">日本',
    );
  });

  it('reads only the first 1024 bytes for a meta charset', () => {
    const late = bytes(`<!-- ${'x'.repeat(1100)} --><meta charset="shift_jis">`, UTF8_NIHON);
    expect(decodeHtml(late, null)).toContain('日本');
  });

  it('treats a meta charset of UTF-16 as UTF-8, as browsers do', () => {
    expect(decodeHtml(bytes('<meta charset="utf-16">', UTF8_NIHON), null)).toBe(
      '<meta charset="utf-16">日本',
    );
  });

  it('falls back to UTF-8 for an unknown label or no declaration', () => {
    expect(decodeHtml(bytes(UTF8_NIHON), 'text/html; charset=x-unknown')).toBe('日本');
    expect(decodeHtml(bytes('<meta charset="bogus">', UTF8_NIHON), null)).toBe('<meta charset="bogus">日本');
    expect(decodeHtml(bytes(UTF8_NIHON), null)).toBe('日本');
  });

  it('maps ISO-8859-1 to windows-1252 (the WHATWG label table)', () => {
    expect(decodeHtml(Uint8Array.from([0x80, 0xe9]), 'text/html; charset=iso-8859-1')).toBe('€é');
  });
});
