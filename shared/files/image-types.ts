/**
 * What a brand image is, judged by its first bytes (magic numbers), never by the type it was uploaded
 * with: the raster formats mail clients show. The first bytes only name the format; image-structure.ts
 * then walks the whole file as that format. SVG is not one of them: an SVG is a document that can
 * carry script (`<script>`, `onload`), and a public copy is served from the CDN's origin for a year, so
 * it is refused rather than served under a policy every reader would have to honour.
 */
export interface ImageType {
  /** The type the public copy is served with. */
  type: string;
  /** Its name in messages. */
  name: string;
  /** The declared types that agree with it (the first is `type`). */
  declaredAs: readonly string[];
  /** The extension its public copy's name ends with, whatever the file in the library was named. */
  extension: string;
}

const ascii = (text: string) => Buffer.from(text, 'latin1');

const startsWith = (bytes: Uint8Array, magic: Uint8Array, offset = 0) =>
  bytes.length >= offset + magic.length && magic.every((byte, i) => bytes[offset + i] === byte);

const PNG_MAGIC = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_MAGIC = Uint8Array.from([0xff, 0xd8, 0xff]);

const TYPES: ReadonlyArray<ImageType & { matches: (bytes: Uint8Array) => boolean }> = [
  {
    type: 'image/png',
    name: 'PNG',
    declaredAs: ['image/png'],
    extension: '.png',
    matches: (bytes) => startsWith(bytes, PNG_MAGIC),
  },
  {
    type: 'image/jpeg',
    name: 'JPEG',
    declaredAs: ['image/jpeg', 'image/jpg', 'image/pjpeg'],
    extension: '.jpg',
    matches: (bytes) => startsWith(bytes, JPEG_MAGIC),
  },
  {
    type: 'image/gif',
    name: 'GIF',
    declaredAs: ['image/gif'],
    extension: '.gif',
    matches: (bytes) => startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a')),
  },
  {
    type: 'image/webp',
    name: 'WebP',
    declaredAs: ['image/webp'],
    extension: '.webp',
    matches: (bytes) => startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8),
  },
];

/** The accepted formats, for messages: "PNG, JPEG, GIF or WebP". */
export const IMAGE_TYPE_NAMES = `${TYPES.slice(0, -1)
  .map((type) => type.name)
  .join(', ')} or ${TYPES.at(-1)?.name}`;

/** The format the bytes start with, if one of the accepted. */
export function sniffImageType(bytes: Uint8Array): ImageType | undefined {
  const match = TYPES.find((type) => type.matches(bytes));
  return (
    match && { type: match.type, name: match.name, declaredAs: match.declaredAs, extension: match.extension }
  );
}

/** A declared Content-Type as compared: its media type only, lower case. */
export const mediaType = (contentType: string): string =>
  (contentType.split(';')[0] ?? '').trim().toLowerCase();
