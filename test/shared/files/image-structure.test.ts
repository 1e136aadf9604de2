import { crc32, deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkImageStructure, ImageFault, MAX_IMAGE_PARTS } from '../../../shared/files/image-structure.ts';
import { decode, encode, FORMATS, type Format, type Pixels } from '../../support/image-codecs.ts';
import { GIF, JPEG, PNG, PNG_2X1, pngOfSize, WEBP } from '../../support/images.ts';

/**
 * A brand image is exactly one well-formed image, whole (shared/files/image-structure.ts): real images made
 * by each format's encoder pass, and every one the walk accepts here is read by the format's decoder (the
 * outside judge); the same images with a page appended, cut short, corrupted, or carrying markup in their
 * text metadata fail.
 */
const SEED = 20261207;
const RUNS = { seed: SEED, numRuns: 30 };

const pixels: fc.Arbitrary<Pixels> = fc
  .record({ width: fc.integer({ min: 1, max: 24 }), height: fc.integer({ min: 1, max: 24 }) })
  .chain(({ width, height }) =>
    fc
      .uint8Array({ minLength: width * height * 4, maxLength: width * height * 4 })
      .map((data) => ({ width, height, data })),
  );
/** An image of the format as its encoder writes it (WebP lossy, with or without alpha, or lossless). */
const image = (format: Format) =>
  fc.record({ pixels, lossless: fc.boolean() }).map(({ pixels, lossless }) => ({ format, pixels, lossless }));
const made = ({ format, pixels, lossless }: { format: Format; pixels: Pixels; lossless: boolean }) =>
  encode(format, pixels, { lossless });

/** The fault the walk finds, or undefined when it accepts the file. */
function faultOf(bytes: Uint8Array, format: Format): ImageFault | undefined {
  try {
    checkImageStructure(bytes, format);
    return undefined;
  } catch (error) {
    if (error instanceof ImageFault) return error;
    throw error;
  }
}

/** Accepted by the walk, and read by the decoder with the size it was made with. */
async function expectAccepted(bytes: Uint8Array, format: Format, size?: Pixels) {
  expect(faultOf(bytes, format)).toBeUndefined();
  const decoded = await decode(format, bytes);
  if (size)
    expect({ width: decoded.width, height: decoded.height }).toEqual({
      width: size.width,
      height: size.height,
    });
}

const page = fc
  .string({ maxLength: 200 })
  .map((text) => `<!DOCTYPE html><html><body>${text}<script>alert(document.domain)</script></body></html>`);

/** Markup an HTML parser acts on, with text around it. */
const markup = fc
  .tuple(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      '<script>alert(1)</script>',
      '<html>',
      '<img src=x onerror=alert(1)>',
      '<svg/onload=alert(1)>',
      '</title><script src=//evil.example/x.js>',
      '<!-- -->',
      '<!DOCTYPE html>',
      '<?xml version="1.0"?>',
      '<a href="javascript:alert(1)">',
      '<IFRAME\tsrc=x>',
    ),
    fc.string({ maxLength: 40 }),
  )
  .map((parts) => parts.join('').replaceAll('\0', ' '));
/** Text with no markup: `<` only before a space or a digit ("1 < 2", "<3"). */
const text = fc
  .string({ maxLength: 120 })
  .map((value) => `Made by Acme <3 ${value.replaceAll('<', '< ').replaceAll('\0', ' ')}`);

describe.each(FORMATS)('a %s', (format) => {
  it('made by its encoder is accepted, and its decoder reads it', async () => {
    await fc.assert(
      fc.asyncProperty(image(format), async (made_) => {
        await expectAccepted(await made(made_), format, made_.pixels);
      }),
      RUNS,
    );
  });

  it('with a page appended is refused', async () => {
    await fc.assert(
      fc.asyncProperty(image(format), page, async (made_, html) => {
        const bytes = Buffer.concat([await made(made_), Buffer.from(html)]);
        expect(faultOf(bytes, format)?.kind).toBe('malformed');
      }),
      RUNS,
    );
  });

  it('cut short anywhere is refused', async () => {
    await fc.assert(
      fc.asyncProperty(
        image(format),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        async (made_, at) => {
          const bytes = await made(made_);
          const cut = bytes.subarray(0, Math.floor(at * bytes.length));
          expect(faultOf(cut, format)?.kind).toBe('malformed');
        },
      ),
      RUNS,
    );
  });

  it('with markup in its text metadata is refused; with text, accepted and read', async () => {
    await fc.assert(
      fc.asyncProperty(image(format), markup, text, async (made_, html, plain) => {
        const bytes = await made(made_);
        const fault = faultOf(withText(format, bytes, made_.pixels, html), format);
        expect(fault?.kind).toBe('markup');
        await expectAccepted(withText(format, bytes, made_.pixels, plain), format, made_.pixels);
      }),
      RUNS,
    );
  });
});

describe('a PNG', () => {
  it('with any byte after its signature changed is refused (lengths, types and CRC-32s)', async () => {
    await fc.assert(
      fc.asyncProperty(image('PNG'), fc.nat(), fc.integer({ min: 1, max: 255 }), async (made_, at, xor) => {
        const bytes = Buffer.from(await made(made_));
        const index = 8 + (at % (bytes.length - 8));
        bytes[index] = (bytes[index] as number) ^ xor;
        expect(faultOf(bytes, 'PNG')?.kind).toBe('malformed');
      }),
      RUNS,
    );
  });

  it('made of a real signature and IHDR then a page (the polyglot found) is refused', () => {
    const polyglot = Buffer.concat([
      PNG.subarray(0, 33),
      Buffer.from('<html><script>alert(1)</script></html>'),
    ]);
    expect(faultOf(polyglot, 'PNG')).toMatchObject({ kind: 'malformed' });
    expect(faultOf(Buffer.concat([PNG, Buffer.from('<html>')]), 'PNG')?.reason).toBe(
      'data after the IEND chunk',
    );
  });

  it.each([
    ['a wrong CRC-32', (bytes: Buffer) => withCrc(bytes, 29, 0), 'a wrong CRC-32 in the IHDR chunk'],
    ['no IDAT', (bytes: Buffer) => withoutChunk(bytes, 'IDAT'), 'no IDAT chunk'],
    [
      'IHDR not first',
      (bytes: Buffer) => pngChunksBefore(bytes, 8, [chunk('tEXt', 'a\0b')]),
      'the first chunk is not IHDR',
    ],
    [
      'a zero width',
      (bytes: Buffer) => withIhdr(bytes, 0, 1),
      'IHDR gives 0x1 pixels (each side must be 1 to 16384)',
    ],
    [
      'a width of 100,000',
      (bytes: Buffer) => withIhdr(bytes, 100_000, 1),
      'IHDR gives 100000x1 pixels (each side must be 1 to 16384)',
    ],
    [
      'an unknown critical chunk',
      (bytes: Buffer) => beforeIend(bytes, chunk('XYZW', 'x')),
      'an unknown critical chunk XYZW',
    ],
  ])('with %s is refused, saying so', (_case, change, reason) => {
    expect(faultOf(change(Buffer.from(PNG)), 'PNG')).toMatchObject({ kind: 'malformed', reason });
  });

  it('with more chunks than any image has is refused before its walk costs much', async () => {
    const empty = chunk('zzZz', '');
    const many = (count: number) =>
      pngChunksBefore(Buffer.from(PNG), PNG.length - 12, Array(count).fill(empty));
    // IHDR, IDAT and IEND are three of the parts.
    await expectAccepted(many(MAX_IMAGE_PARTS - 3), 'PNG');
    expect(faultOf(many(MAX_IMAGE_PARTS - 2), 'PNG')).toMatchObject({
      kind: 'malformed',
      reason: 'more than 10000 chunks, segments or blocks',
    });
  });

  it('keeps XMP (namespaced XML in an iTXt chunk) and refuses a page hidden in it', async () => {
    const xmp = (inner: string) =>
      `XML:com.adobe.xmp\0\0\0\0\0<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description>${inner}</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
    await expectAccepted(
      beforeIend(Buffer.from(PNG), chunk('iTXt', xmp('<dc:title>Acme</dc:title>'))),
      'PNG',
    );
    expect(
      faultOf(beforeIend(Buffer.from(PNG), chunk('iTXt', xmp('<script>alert(1)</script>'))), 'PNG'),
    ).toMatchObject({
      kind: 'markup',
      reason: 'markup in a text chunk (iTXt)',
    });
  });
});

describe('a JPEG', () => {
  it.each([
    [
      'data after EOI',
      (bytes: Buffer) => Buffer.concat([bytes, Buffer.from([0])]),
      'data after the EOI marker',
    ],
    ['no EOI', (bytes: Buffer) => bytes.subarray(0, -2), 'the file ends inside scan data'],
    [
      'a segment length past the end',
      (bytes: Buffer) => withJpegLength(bytes, 0xdb, 0xffff),
      'the file ends inside a segment',
    ],
    [
      'a second SOI',
      (bytes: Buffer) => Buffer.concat([bytes.subarray(0, 2), bytes]),
      'an unexpected marker 0xFFD8',
    ],
    ['no frame header', (bytes: Buffer) => withoutJpegSegment(bytes, 0xc0), 'a scan before the frame header'],
  ])('with %s is refused, saying so', (_case, change, reason) => {
    expect(faultOf(change(Buffer.from(JPEG)), 'JPEG')).toMatchObject({ kind: 'malformed', reason });
  });
});

describe('a GIF', () => {
  it('whose trailer is any other byte is refused', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 255 }).filter((byte) => byte !== 0x3b),
        (byte) => {
          const bytes = Buffer.from(GIF);
          bytes[bytes.length - 1] = byte;
          expect(faultOf(bytes, 'GIF')?.kind).toBe('malformed');
        },
      ),
      RUNS,
    );
    expect(faultOf(Buffer.concat([GIF, Buffer.from('<html>')]), 'GIF')?.reason).toBe(
      'data after the trailer',
    );
  });
});

describe('a WebP', () => {
  it('whose RIFF size is not its file size is refused, and so is a page added as a chunk with the size fixed', async () => {
    await fc.assert(
      fc.asyncProperty(
        image('WebP'),
        fc.integer({ min: -8, max: 8 }).filter((d) => d !== 0),
        page,
        async (made_, delta, html) => {
          const bytes = Buffer.from(await made(made_));
          const resized = Buffer.from(bytes);
          resized.writeUInt32LE(bytes.readUInt32LE(4) + delta, 4);
          expect(faultOf(resized, 'WebP')?.kind).toBe('malformed');
          const simple = Buffer.from(await encode('WebP', made_.pixels, { lossless: true }));
          expect(faultOf(webpWithChunk(simple, 'HTML', Buffer.from(html)), 'WebP')?.kind).toBe('malformed');
        },
      ),
      RUNS,
    );
  });
});

describe('the images the API tests upload', () => {
  it('are accepted, and read by their decoders', async () => {
    await expectAccepted(WEBP, 'WebP');
    await expectAccepted(JPEG, 'JPEG');
    await expectAccepted(GIF, 'GIF');
    await expectAccepted(PNG, 'PNG');
    await expectAccepted(PNG_2X1, 'PNG');
    // The file of a slot's byte limit the API tests publish.
    await expectAccepted(pngOfSize(2 * 1024 * 1024), 'PNG');
  });
});

// Builders of the changed files.

function chunk(type: string, data: string | Uint8Array): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : Buffer.from(data);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), bytes]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(body.length - 4, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), body.length + 4);
  return out;
}

function withCrc(bytes: Buffer, at: number, crc: number): Buffer {
  bytes.writeUInt32BE(crc, at);
  return bytes;
}

function pngChunksBefore(bytes: Buffer, at: number, chunks: Buffer[]): Buffer {
  return Buffer.concat([bytes.subarray(0, at), ...chunks, bytes.subarray(at)]);
}

const beforeIend = (bytes: Buffer, added: Buffer) => pngChunksBefore(bytes, bytes.length - 12, [added]);

function withoutChunk(bytes: Buffer, type: string): Buffer {
  const at = bytes.indexOf(type, 8, 'latin1') - 4;
  return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 12 + bytes.readUInt32BE(at))]);
}

function withIhdr(bytes: Buffer, width: number, height: number): Buffer {
  const data = Buffer.from(bytes.subarray(16, 29));
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  return Buffer.concat([bytes.subarray(0, 8), chunk('IHDR', data), bytes.subarray(33)]);
}

/** The offset of the first segment with the marker (segments before the scan). */
function jpegSegment(bytes: Buffer, marker: number): number {
  for (let at = 2; at < bytes.length; at += 2 + bytes.readUInt16BE(at + 2)) {
    if (bytes[at + 1] === marker) return at;
  }
  throw new Error(`no marker ${marker}`);
}

function withJpegLength(bytes: Buffer, marker: number, length: number): Buffer {
  bytes.writeUInt16BE(length, jpegSegment(bytes, marker) + 2);
  return bytes;
}

function withoutJpegSegment(bytes: Buffer, marker: number): Buffer {
  const at = jpegSegment(bytes, marker);
  return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 2 + bytes.readUInt16BE(at + 2))]);
}

/** The image with text in the metadata its format defines for text. */
function withText(format: Format, bytes: Uint8Array, size: Pixels, text: string): Buffer {
  const file = Buffer.from(bytes);
  const latin1 = Buffer.from(text, 'latin1');
  switch (format) {
    case 'PNG':
      // A comment, the same text stored uncompressed in zTXt (deflate's stored blocks carry it as is), and iTXt.
      return pngChunksBefore(file, file.length - 12, [
        chunk('tEXt', Buffer.concat([Buffer.from('Comment\0'), latin1])),
        chunk('zTXt', Buffer.concat([Buffer.from('Comment\0\0'), deflateSync(latin1, { level: 0 })])),
      ]);
    case 'JPEG': {
      const comment = Buffer.alloc(4 + latin1.length);
      comment.writeUInt16BE(0xfffe, 0);
      comment.writeUInt16BE(2 + latin1.length, 2);
      latin1.copy(comment, 4);
      return Buffer.concat([file.subarray(0, 2), comment, file.subarray(2)]);
    }
    case 'GIF': {
      const blocks = [];
      for (let at = 0; at < latin1.length; at += 255) {
        const part = latin1.subarray(at, at + 255);
        blocks.push(Buffer.from([part.length]), part);
      }
      const extension = Buffer.concat([Buffer.from([0x21, 0xfe]), ...blocks, Buffer.from([0])]);
      return Buffer.concat([file.subarray(0, -1), extension, file.subarray(-1)]);
    }
    case 'WebP':
      return webpWithChunk(file, 'XMP ', Buffer.from(xmpOf(text)), size);
  }
}

/** XMP carrying the text in its description (escaped as XML escapes it, or not, to hide markup). */
const xmpOf = (text: string) =>
  `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description><dc:description xmlns:dc="http://purl.org/dc/elements/1.1/">${text.replace(/<(?=[ 0-9])/g, '&lt;')}</dc:description></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;

/**
 * The WebP with a chunk added after its image, the RIFF size fixed: a simple file becomes an extended one
 * (VP8X, with the XMP flag for an XMP chunk) when its size is given, else the chunk just follows.
 */
function webpWithChunk(bytes: Buffer, fourCC: string, data: Buffer, size?: Pixels): Buffer {
  const padded = data.length % 2 === 1 ? Buffer.concat([data, Buffer.from([0])]) : data;
  const added = Buffer.concat([Buffer.from(fourCC, 'latin1'), u32(data.length), padded]);
  let chunks = bytes.subarray(12);
  if (size && chunks.toString('latin1', 0, 4) !== 'VP8X') {
    const header = Buffer.alloc(10);
    // XMP, and alpha when a lossless image may have it.
    header[0] = 0x04 | (chunks.toString('latin1', 0, 4) === 'VP8L' ? 0x10 : 0);
    header.writeUIntLE(size.width - 1, 4, 3);
    header.writeUIntLE(size.height - 1, 7, 3);
    chunks = Buffer.concat([Buffer.from('VP8X'), u32(10), header, chunks]);
  } else if (size) {
    chunks = Buffer.from(chunks);
    chunks[8] = (chunks[8] as number) | 0x04;
  }
  const body = Buffer.concat([Buffer.from('WEBP'), chunks, added]);
  return Buffer.concat([Buffer.from('RIFF'), u32(body.length), body]);
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value, 0);
  return out;
}
