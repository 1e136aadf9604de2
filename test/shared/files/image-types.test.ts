import { describe, expect, it } from 'vitest';
import { IMAGE_TYPE_NAMES, mediaType, sniffImageType } from '../../../shared/files/image-types.ts';
import { GIF, PNG, SVG_WITH_SCRIPT } from '../../support/images.ts';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))),
  );

/** A brand image's type is its first bytes' (shared/files/image-types.ts); docs/tenant-isolation.md "Public images". */
describe('brand image types, by their bytes', () => {
  it.each([
    ['PNG', PNG, 'image/png'],
    ['JPEG', bytes([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
    ['GIF89a', GIF, 'image/gif'],
    ['GIF87a', bytes('GIF87a', [1, 0, 1, 0]), 'image/gif'],
    ['WebP', bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
  ])('knows a %s', (_name, file, type) => {
    expect(sniffImageType(file)?.type).toBe(type);
  });

  it.each([
    ['an SVG, script and all', SVG_WITH_SCRIPT],
    ['zeros', Buffer.alloc(32)],
    ['text', bytes('just some text')],
    ['a RIFF that is no WebP (a WAV)', bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt ')],
    ['a PNG signature cut short', PNG.subarray(0, 7)],
    ['nothing', Buffer.alloc(0)],
    ['an ICO (not accepted)', bytes([0, 0, 1, 0, 1, 0])],
  ])('knows no type in %s', (_name, file) => {
    expect(sniffImageType(file)).toBeUndefined();
  });

  it('compares declared types by their media type, in lower case', () => {
    expect(mediaType('Image/PNG; charset=binary')).toBe('image/png');
    expect(sniffImageType(bytes([0xff, 0xd8, 0xff]))?.declaredAs).toEqual([
      'image/jpeg',
      'image/jpg',
      'image/pjpeg',
    ]);
    expect(IMAGE_TYPE_NAMES).toBe('PNG, JPEG, GIF or WebP');
  });
});
