import { PutObjectCommand } from '@aws-sdk/client-s3';
import { config } from '../config.ts';
import { ValidationError } from '../http/errors.ts';
import { LIMITS } from '../limits.ts';
import { s3 } from './s3.ts';

/**
 * A team's private file library: objects under `teams/<team id>/` in the private bucket. Paths are
 * relative to the library; anything that could leave it is refused before S3 is asked.
 */
export const MAX_PATH_LENGTH = LIMITS.libraryPathLength;
/** S3 counts a key's UTF-8 bytes, and the key carries the `teams/<team id>/` prefix. */
export const MAX_PATH_BYTES = LIMITS.objectKeyBytes - LIMITS.libraryPrefixBytes;

/** One segment: not empty, `.` or `..`, and no `/`, backslash, control character or DEL. */
const SEGMENT = String.raw`(?!\.{1,2}(?:/|$))[^/\\\u0000-\u001f\u007f]+`;
/**
 * A path inside the library: segments joined by `/`, not under `teams/` (another library's prefix). The
 * check below and the OpenAPI document (its `pattern`) both use it.
 */
export const LIBRARY_PATH = new RegExp(`^(?!teams/)${SEGMENT}(?:/${SEGMENT})*$`, 'u');

export function checkLibraryPath(path: string, field = 'path'): string {
  const invalid = (reason: string) =>
    ValidationError.single(field, `The ${field.replaceAll('_', ' ')} ${reason}`);
  if (path.length === 0) throw invalid('field is required.');
  if (path.length > MAX_PATH_LENGTH) throw invalid(`must not be greater than ${MAX_PATH_LENGTH} characters.`);
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) {
    throw invalid(`must not be greater than ${MAX_PATH_BYTES} bytes once UTF-8 encoded.`);
  }
  if (!LIBRARY_PATH.test(path)) throw invalid('must be a path inside your file library.');
  return path;
}

export const privateObjectKey = (teamId: number, path: string): string =>
  `teams/${teamId}/${checkLibraryPath(path)}`;

export async function putPrivateFile(
  teamId: number,
  path: string,
  bytes: Uint8Array,
  contentType: string,
): Promise<void> {
  await s3().send(
    new PutObjectCommand({
      Bucket: config.privateBucket(),
      Key: privateObjectKey(teamId, path),
      Body: bytes,
      ContentType: contentType,
    }),
  );
}
