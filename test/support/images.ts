import { crc32 } from 'node:zlib';
import { expect } from 'vitest';
import type { ApiClient } from './api.ts';

/** A 1x1 transparent PNG: the image the tests upload. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** What a public URL serves: its status, Content-Type and bytes. */
export async function fetchBytes(url: string) {
  const response = await fetch(url);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

/** A 1x1 GIF (GIF89a). */
export const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** An SVG that would run script wherever it is shown as a document. */
export const SVG_WITH_SCRIPT = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.domain)"><script>alert(1)</script></svg>',
);

/** A 2x1 PNG (a red and a half-transparent blue pixel): another real image, for a new file version. */
export const PNG_2X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR4AWP4z8Dwn4HhfwMAD3oDfrhbv4IAAAAASUVORK5CYII=',
  'base64',
);

/** An 8x8 grey JPEG (baseline, JFIF), as jpeg-js encodes it. */
export const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wCEAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSgBBwcHCggKEwoKEygaFhooKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKP/AABEIAAgACAMBEQACEQEDEQH/xAGiAAABBQEBAQEBAQAAAAAAAAAAAQIDBAUGBwgJCgsQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+gEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoLEQACAQIEBAMEBwUEBAABAncAAQIDEQQFITEGEkFRB2FxEyIygQgUQpGhscEJIzNS8BVictEKFiQ04SXxFxgZGiYnKCkqNTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqCg4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2dri4+Tl5ufo6ery8/T19vf4+fr/2gAMAwEAAhEDEQA/APYKAP8A/9k=',
  'base64',
);

/** A 4x2 lossless WebP (VP8L). */
export const WEBP = Buffer.from(
  'UklGRjAAAABXRUJQVlA4TCQAAAAvA0AAAD+gkG0EyF9zIvdCjMeQzX/K5CEQIGMLWrRoEdH/wAY=',
  'base64',
);

/**
 * A real PNG of exactly `size` bytes: the 1x1 PNG with a tEXt comment of plain text filling the rest (a
 * file at a slot's byte limit that is an image as a decoder sees it).
 */
export function pngOfSize(size: number): Buffer {
  const textLength = size - PNG.length - 12;
  if (textLength < 8) throw new Error(`no PNG of ${size} bytes`);
  const data = Buffer.concat([Buffer.from('Comment\0'), Buffer.alloc(textLength - 8, 'x')]);
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  // Before IEND, its last 12 bytes.
  return Buffer.concat([PNG.subarray(0, -12), chunk, PNG.subarray(-12)]);
}

/** Uploads as a client does: POST /files, then a PUT of the bytes to the presigned URL with its headers. */
export async function uploadFile(
  client: ApiClient,
  path: string,
  bytes: Buffer,
  type: string,
): Promise<void> {
  const answer = await client.post('/api/v1/files', { path, content_type: type, size: bytes.length });
  expect(answer.status).toBe(200);
  const put = await fetch(answer.body.upload_url, {
    method: 'PUT',
    headers: answer.body.headers,
    body: bytes,
  });
  expect(put.status).toBe(200);
}
