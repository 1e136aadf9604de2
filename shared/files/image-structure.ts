import { crc32 } from 'node:zlib';

/**
 * Whether a file is exactly one well-formed image of the format its first bytes name (image-types.ts):
 * the whole file's structure is walked, not its pixels decoded. A public copy is served from the CDN's
 * origin for a year, so what reaches it must be an image as a decoder sees it: a PNG signature followed by
 * a web page, or a GIF with a page after its trailer, is refused, not published.
 *
 * Each format's walk checks what a decoder relies on: PNG chunks with valid lengths and CRC-32s, IHDR
 * first, IDAT, IEND last; JPEG marker segments with their lengths, a frame header, scan data, EOI last;
 * GIF blocks and sub-blocks up to its trailer; WebP's RIFF size and chunks, and its VP8/VP8L/VP8X header.
 * Nothing may follow the end. Compressed data (IDAT, JPEG scans, LZW, VP8) is not decoded: that is a
 * decoder's work, it costs CPU and memory (a 2 MiB PNG may inflate to gigabytes), and the structure is
 * what keeps a second file out.
 *
 * Text metadata (PNG tEXt/zTXt/iTXt, a JPEG comment or XMP segment, a GIF comment or plain text, WebP's
 * XMP) may hold text, not markup an HTML parser would act on (HTML_MARKUP). Pixel data and binary metadata
 * (EXIF, ICC) are not searched: any byte may appear there by chance, so no rule could tell a page from an
 * image; it is the structure, the type the copy is served with, its extension and `nosniff` that keep the
 * file an image.
 */

/** Why a file is not an image to publish: not well-formed, or carrying markup in its text metadata. */
export class ImageFault extends Error {
  constructor(
    readonly kind: 'malformed' | 'markup',
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'ImageFault';
  }
}

/** The largest width or height accepted (WebP's own limit is 16,383; a brand image is ~1200 wide). */
export const MAX_IMAGE_SIDE = 16_384;

/**
 * The most chunks, marker segments or blocks a file may have. Real images have tens to hundreds (an
 * animation a few thousand); 2 MiB of empty ones would be 175,000, each a step of the walk.
 */
export const MAX_IMAGE_PARTS = 10_000;

/**
 * Markup an HTML tokenizer acts on: a start or end tag with a plain name (`<script`, `<img`, `</p>`), a
 * comment, doctype or CDATA section (`<!`), a processing instruction other than XMP's `<?xpacket` (`<?xml`
 * makes a document XML). XMP's own elements are namespace-prefixed (`<x:xmpmeta`, `<rdf:RDF>`), which no
 * HTML tag is, so XMP passes and a page hidden in metadata does not.
 */
const HTML_MARKUP = /<(?:!|\?(?!xpacket[\s?])|\/?[A-Za-z][A-Za-z0-9-]*(?=[\s/>]|$))/;

/** Walks the whole file as the format named (an ImageType's name); throws ImageFault. */
export function checkImageStructure(bytes: Uint8Array, format: string): void {
  const walk = WALKS[format];
  if (!walk) throw new Error(`no structure walk for ${format}`);
  walk(new Reader(bytes));
}

const WALKS: Record<string, (reader: Reader) => void> = {
  PNG: walkPng,
  JPEG: walkJpeg,
  GIF: walkGif,
  WebP: walkWebp,
};

const malformed = (reason: string) => new ImageFault('malformed', reason);

/** The same bytes as a Buffer, for its readers (no copy). */
const view = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Throws when text metadata carries markup. */
function refuseMarkup(data: Uint8Array, where: string): void {
  // Most text has no `<` at all: no string is made of it.
  if (data.indexOf(0x3c) >= 0 && HTML_MARKUP.test(view(data).toString('latin1'))) {
    throw new ImageFault('markup', `markup in ${where}`);
  }
}

/**
 * A bounds-checked cursor: reading past the end is a truncated file. Reads make no objects but the slices
 * asked for (a hostile file may hold a million tiny chunks).
 */
class Reader {
  offset = 0;
  private parts = 0;
  private readonly data: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get left(): number {
    return this.bytes.length - this.offset;
  }

  /** Moves past `length` bytes and returns where they start. */
  skip(length: number, what: string): number {
    if (length > this.left) throw malformed(`the file ends inside ${what}`);
    this.offset += length;
    return this.offset - length;
  }

  take(length: number, what: string): Uint8Array {
    const start = this.skip(length, what);
    return this.bytes.subarray(start, start + length);
  }

  u8(what: string): number {
    return this.data.getUint8(this.skip(1, what));
  }

  u16be(what: string): number {
    return this.data.getUint16(this.skip(2, what));
  }

  u16le(what: string): number {
    return this.data.getUint16(this.skip(2, what), true);
  }

  u32be(what: string): number {
    return this.data.getUint32(this.skip(4, what));
  }

  u32le(what: string): number {
    return this.data.getUint32(this.skip(4, what), true);
  }

  ascii(length: number, what: string): string {
    return view(this.take(length, what)).toString('latin1');
  }

  /** Counts a chunk, segment or block. */
  part(): void {
    if (++this.parts > MAX_IMAGE_PARTS)
      throw malformed(`more than ${MAX_IMAGE_PARTS} chunks, segments or blocks`);
  }

  /** Nothing may follow the image's end. */
  end(after: string): void {
    if (this.left > 0) throw malformed(`data after ${after}`);
  }
}

function checkSides(width: number, height: number, where: string): void {
  const sane = (side: number) => Number.isInteger(side) && side >= 1 && side <= MAX_IMAGE_SIDE;
  if (!sane(width) || !sane(height)) {
    throw malformed(`${where} gives ${width}x${height} pixels (each side must be 1 to ${MAX_IMAGE_SIDE})`);
  }
}

// PNG (ISO/IEC 15948): signature, then chunks of length, type, data and CRC-32 over type and data.

/** Bit depths allowed for each colour type. */
const PNG_DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};
const PNG_TEXT_CHUNKS = new Set(['tEXt', 'zTXt', 'iTXt']);

function walkPng(reader: Reader): void {
  reader.skip(8, 'the signature');
  const ihdr = pngChunk(reader);
  if (ihdr.type !== 'IHDR') throw malformed('the first chunk is not IHDR');
  const colourType = checkIhdr(ihdr.data);
  const seen = { plte: false, idat: false, idatEnded: false };
  for (;;) {
    const { type, data } = pngChunk(reader);
    if (type === 'IEND') {
      if (!seen.idat) throw malformed('no IDAT chunk');
      if (data.length > 0) throw malformed('an IEND chunk with data');
      reader.end('the IEND chunk');
      return;
    }
    pngOrder(type, seen, colourType);
    if (PNG_TEXT_CHUNKS.has(type)) refuseMarkup(data, `a text chunk (${type})`);
  }
}

const isLetter = (byte: number) => (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);

function pngChunk(reader: Reader): { type: string; data: Uint8Array } {
  reader.part();
  const length = reader.u32be('a chunk length');
  if (length > 0x7fffffff) throw malformed('a chunk length over 2^31-1');
  const typeAndData = reader.take(4 + length, 'a chunk');
  const letters = typeAndData.subarray(0, 4);
  if (!letters.every(isLetter)) throw malformed('a chunk type that is not four letters');
  const type = String.fromCharCode(...letters);
  if (reader.u32be('a chunk CRC') !== crc32(typeAndData)) {
    throw malformed(`a wrong CRC-32 in the ${type} chunk`);
  }
  return { type, data: typeAndData.subarray(4) };
}

function checkIhdr(data: Uint8Array): number {
  if (data.length !== 13) throw malformed('an IHDR chunk that is not 13 bytes');
  checkSides(view(data).readUInt32BE(0), view(data).readUInt32BE(4), 'IHDR');
  const [depth = 0, colourType = 0, compression, filter, interlace] = data.subarray(8);
  if (!PNG_DEPTHS[colourType]?.includes(depth)) {
    throw malformed(`colour type ${colourType} with bit depth ${depth}`);
  }
  if (compression !== 0 || filter !== 0 || (interlace !== 0 && interlace !== 1)) {
    throw malformed('an unknown compression, filter or interlace method in IHDR');
  }
  return colourType;
}

/** The critical chunks' order (IHDR once, PLTE before IDAT, IDAT chunks in one run), noted in `seen`. */
function pngOrder(
  type: string,
  seen: { plte: boolean; idat: boolean; idatEnded: boolean },
  colourType: number,
): void {
  if (type === 'IHDR') throw malformed('a second IHDR chunk');
  if (type === 'PLTE') {
    if (seen.plte || seen.idat) throw malformed('a PLTE chunk out of place');
    if (colourType === 0 || colourType === 4) throw malformed('a PLTE chunk in a greyscale image');
    seen.plte = true;
  } else if (type === 'IDAT') {
    if (seen.idatEnded) throw malformed('IDAT chunks that are not consecutive');
    if (colourType === 3 && !seen.plte) throw malformed('a palette image with no PLTE chunk');
    seen.idat = true;
  } else if (type.charCodeAt(0) < 0x61) {
    // An unknown critical chunk (upper-case first letter) is one a decoder must refuse.
    throw malformed(`an unknown critical chunk ${type}`);
  } else {
    seen.idatEnded = seen.idat;
  }
}

// JPEG (ITU T.81): SOI, marker segments (0xFF, a marker, a 16-bit length that counts itself), a frame
// header, scans each followed by entropy-coded data, EOI.

const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);
const XMP_SIGNATURES = ['http://ns.adobe.com/xap/1.0/\0', 'http://ns.adobe.com/xmp/extension/\0'];

function walkJpeg(reader: Reader): void {
  reader.take(2, 'SOI');
  let frame = false;
  let scans = 0;
  for (;;) {
    const marker = jpegMarker(reader);
    if (marker === 0xd9) {
      if (!frame || scans === 0) throw malformed('EOI before a frame header and scan data');
      reader.end('the EOI marker');
      return;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker < 0xc0) {
      throw malformed(`an unexpected marker 0xFF${hex(marker)}`);
    }
    const length = reader.u16be('a segment length');
    if (length < 2) throw malformed(`a segment length under 2 (marker 0xFF${hex(marker)})`);
    const data = reader.take(length - 2, 'a segment');
    if (SOF_MARKERS.has(marker)) {
      if (frame) throw malformed('a second frame header');
      checkFrameHeader(data);
      frame = true;
    } else if (marker === 0xda) {
      if (!frame) throw malformed('a scan before the frame header');
      checkScanHeader(data);
      skipEntropyData(reader);
      scans++;
    } else {
      refuseJpegMarkup(marker, data);
    }
  }
}

const hex = (byte: number) => byte.toString(16).toUpperCase().padStart(2, '0');

/** The next marker: 0xFF (fill bytes 0xFF may repeat) and a marker byte. */
function jpegMarker(reader: Reader): number {
  reader.part();
  if (reader.u8('a marker') !== 0xff) throw malformed('a segment not starting with a marker');
  let marker = reader.u8('a marker');
  while (marker === 0xff) marker = reader.u8('a marker');
  return marker;
}

function checkFrameHeader(data: Uint8Array): void {
  if (data.length < 6) throw malformed('a frame header cut short');
  const [precision, components] = [data[0] as number, data[5] as number];
  if (![8, 12, 16].includes(precision)) throw malformed(`a sample precision of ${precision} bits`);
  checkSides(view(data).readUInt16BE(3), view(data).readUInt16BE(1), 'the frame header');
  if (components < 1 || components > 4 || data.length !== 6 + 3 * components) {
    throw malformed('a frame header whose components do not match its length');
  }
}

function checkScanHeader(data: Uint8Array): void {
  const components = data[0] ?? 0;
  if (components < 1 || components > 4 || data.length !== 4 + 2 * components) {
    throw malformed('a scan header whose components do not match its length');
  }
}

/**
 * Entropy-coded data runs up to the next marker: 0xFF is followed by 0x00 (a stuffed byte) or a restart
 * marker inside it; any other marker ends it (left for the walk to read).
 */
function skipEntropyData(reader: Reader): void {
  const bytes = view(reader.bytes);
  let at = reader.offset;
  for (;;) {
    at = bytes.indexOf(0xff, at);
    if (at < 0 || at + 1 >= bytes.length) throw malformed('the file ends inside scan data');
    const next = bytes[at + 1] as number;
    if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) {
      at += 2;
      continue;
    }
    if (at === reader.offset) throw malformed('a scan with no data');
    reader.offset = at;
    return;
  }
}

function refuseJpegMarkup(marker: number, data: Uint8Array): void {
  if (marker === 0xfe) refuseMarkup(data, 'a comment (COM segment)');
  if (marker !== 0xe1) return;
  const head = view(data).toString('latin1', 0, 40);
  if (XMP_SIGNATURES.some((signature) => head.startsWith(signature))) refuseMarkup(data, 'XMP metadata');
}

// GIF (89a): header, logical screen descriptor, global colour table, then images and extensions, each
// made of sub-blocks (a length byte, then that many bytes) up to an empty one, and the trailer 0x3B.

function walkGif(reader: Reader): void {
  reader.take(6, 'the header');
  const width = reader.u16le('the logical screen descriptor');
  checkSides(width, reader.u16le('the logical screen descriptor'), 'the logical screen descriptor');
  const packed = reader.u8('the logical screen descriptor');
  reader.take(2, 'the logical screen descriptor');
  const globalTable = colourTable(reader, packed);
  let images = 0;
  for (;;) {
    reader.part();
    const introducer = reader.u8('a block');
    if (introducer === 0x3b) {
      if (images === 0) throw malformed('no image before the trailer');
      reader.end('the trailer');
      return;
    }
    if (introducer === 0x2c) {
      gifImage(reader, globalTable);
      images++;
    } else if (introducer === 0x21) {
      gifExtension(reader);
    } else {
      throw malformed(`an unknown block 0x${hex(introducer)}`);
    }
  }
}

/** Skips the colour table the packed byte announces; whether there was one. */
function colourTable(reader: Reader, packed: number): boolean {
  if ((packed & 0x80) === 0) return false;
  reader.take(3 * 2 ** ((packed & 0x07) + 1), 'a colour table');
  return true;
}

function gifImage(reader: Reader, globalTable: boolean): void {
  reader.take(4, 'an image descriptor');
  const width = reader.u16le('an image descriptor');
  checkSides(width, reader.u16le('an image descriptor'), 'an image descriptor');
  const localTable = colourTable(reader, reader.u8('an image descriptor'));
  if (!globalTable && !localTable) throw malformed('an image with no colour table');
  const codeSize = reader.u8('the LZW code size');
  if (codeSize < 2 || codeSize > 8) throw malformed(`an LZW code size of ${codeSize}`);
  if (subBlocks(reader).count === 0) throw malformed('an image with no data');
}

/**
 * An extension: its label, then sub-blocks. Comments, plain text and XMP are text metadata, searched as
 * stored (length bytes included): what a reader that took the file for a page would see.
 */
function gifExtension(reader: Reader): void {
  const label = reader.u8('an extension');
  const { raw, count } = subBlocks(reader);
  if (label === 0xf9 && (raw[0] !== 4 || count !== 1))
    throw malformed('a graphic control extension not of 4 bytes');
  if (label === 0xfe) refuseMarkup(raw, 'a comment extension');
  // Its first sub-block (13 bytes with its length) is the text grid's position and colours.
  if (label === 0x01) refuseMarkup(raw.subarray(13), 'a plain text extension');
  if (label === 0xff && view(raw).toString('latin1', 0, 12) === '\x0bXMP DataXMP') {
    refuseMarkup(raw, 'XMP metadata');
  }
}

/** Sub-blocks up to the empty one: their bytes as stored, and how many there were. */
function subBlocks(reader: Reader): { raw: Uint8Array; count: number } {
  const start = reader.offset;
  let count = 0;
  for (let size = reader.u8('a sub-block'); size > 0; size = reader.u8('a sub-block')) {
    reader.skip(size, 'a sub-block');
    count++;
  }
  return { raw: reader.bytes.subarray(start, reader.offset), count };
}

// WebP (RFC 9649): "RIFF", the size of what follows, "WEBP", then chunks (FourCC, size, data, a pad byte
// when the size is odd). A simple file is one VP8 or VP8L chunk; an extended one starts with VP8X.

function walkWebp(reader: Reader): void {
  reader.take(4, 'the RIFF header');
  const riffSize = reader.u32le('the RIFF header');
  if (riffSize + 8 !== reader.bytes.length) {
    throw malformed(`a RIFF size of ${riffSize} in a file of ${reader.bytes.length} bytes`);
  }
  reader.take(4, 'the RIFF header');
  const chunks: Array<{ fourCC: string; data: Uint8Array }> = [];
  while (reader.left > 0) chunks.push(webpChunk(reader));
  const [first, ...rest] = chunks;
  if (first?.fourCC === 'VP8X') checkExtendedWebp(first.data, rest);
  else if (!first || !checkWebpBitstream(first) || rest.length > 0) {
    throw malformed('not one VP8 or VP8L chunk, nor a VP8X chunk first');
  }
}

function webpChunk(reader: Reader): { fourCC: string; data: Uint8Array } {
  reader.part();
  const fourCC = reader.ascii(4, 'a chunk header');
  const size = reader.u32le('a chunk header');
  const data = reader.take(size, `the ${fourCC} chunk`);
  if (size % 2 === 1) reader.take(1, `the ${fourCC} chunk's pad byte`);
  return { fourCC, data };
}

/** A VP8 or VP8L chunk's header checked; false for another chunk. */
function checkWebpBitstream({ fourCC, data }: { fourCC: string; data: Uint8Array }): boolean {
  if (fourCC === 'VP8 ') checkVp8(data);
  else if (fourCC === 'VP8L') checkVp8l(data);
  else return false;
  return true;
}

/** A key frame: its frame tag, start code 9D 01 2A, 14-bit width and height. */
function checkVp8(data: Uint8Array): void {
  if (data.length < 10) throw malformed('a VP8 chunk cut short');
  const header = view(data);
  const tag = header.readUIntLE(0, 3);
  const keyFrame = (tag & 1) === 0;
  const firstPartition = tag >> 5;
  if (!keyFrame || ((tag >> 1) & 7) > 3 || header.readUIntBE(3, 3) !== 0x9d012a) {
    throw malformed('a VP8 chunk that is not a key frame');
  }
  if (firstPartition > data.length - 10) throw malformed('a VP8 partition larger than its chunk');
  checkSides(header.readUInt16LE(6) & 0x3fff, header.readUInt16LE(8) & 0x3fff, 'the VP8 header');
}

/** Signature 0x2F, 14-bit width and height minus one, version 0. */
function checkVp8l(data: Uint8Array): void {
  if (data.length < 5 || data[0] !== 0x2f) throw malformed('a VP8L chunk without its signature');
  const bits = view(data).readUInt32LE(1);
  if (bits >>> 29 !== 0) throw malformed('a VP8L version other than 0');
  checkSides((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1, 'the VP8L header');
}

/** VP8X: flags and canvas size, then one still image (ALPH + VP8, or VP8L) or an animation's frames. */
function checkExtendedWebp(header: Uint8Array, chunks: Array<{ fourCC: string; data: Uint8Array }>): void {
  if (header.length !== 10) throw malformed('a VP8X chunk that is not 10 bytes');
  checkSides(view(header).readUIntLE(4, 3) + 1, view(header).readUIntLE(7, 3) + 1, 'the VP8X header');
  const animated = ((header[0] as number) & 0x02) !== 0;
  const images = chunks.filter(checkWebpBitstream).length;
  const frames = chunks.filter((chunk) => chunk.fourCC === 'ANMF').length;
  const still = !animated && images === 1 && frames === 0;
  const animation = animated && images === 0 && frames > 0 && chunks.some((c) => c.fourCC === 'ANIM');
  if (!still && !animation) throw malformed('not one image nor one animation after the VP8X chunk');
  if (chunks.some((chunk) => chunk.fourCC === 'VP8X')) throw malformed('a second VP8X chunk');
  for (const chunk of chunks) if (chunk.fourCC === 'XMP ') refuseMarkup(chunk.data, 'XMP metadata');
}
