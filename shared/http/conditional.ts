import { createHash } from 'node:crypto';
import { type ApiResponse, notModified } from './response.ts';

/** A strong ETag for a representation: a digest of its text. */
export function etagOf(representation: string): string {
  return `"${createHash('sha256').update(representation).digest('base64url').slice(0, 27)}"`;
}

/**
 * The response, or a 304 with the response's headers when the request's If-None-Match names its ETag (the
 * client keeps the representation it has).
 */
export function unlessNotModified(
  req: { headers: Record<string, string | undefined> },
  response: ApiResponse & { headers: { ETag: string } },
): ApiResponse {
  const ifNoneMatch = req.headers['if-none-match'];
  return ifNoneMatch && matches(ifNoneMatch, response.headers.ETag)
    ? notModified(response.headers)
    : response;
}

/** If-None-Match: a list of tags (weak or not) or `*`. */
function matches(header: string, etag: string): boolean {
  return header.split(',').some((tag) => tag.trim() === '*' || tag.trim().replace(/^W\//, '') === etag);
}
