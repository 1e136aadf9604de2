import { PutObjectCommand, S3ServiceException } from '@aws-sdk/client-s3';
import { config } from '../config.ts';
import { ValidationError } from '../domain/errors.ts';
import { LIMITS } from '../limits.ts';
import { s3 } from './s3.ts';
import { callerFileCall } from './s3-errors.ts';

/**
 * A team's private file library: objects under `teams/<team id>/` in the private bucket. Paths are
 * relative to the library. The library's rules are its own, the same in AWS and locally, and checked
 * before S3 is asked (README, "Limits and errors"): a path stays inside the library, each folder and file
 * name has at most LIMITS.libraryNameBytes, and the whole key fits S3's LIMITS.objectKeyBytes with the
 * prefix of any team.
 */
export const MAX_PATH_LENGTH = LIMITS.libraryPathLength;
/** S3 counts a key's UTF-8 bytes, and the key carries the `teams/<team id>/` prefix: 1,002 for any team. */
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
  // Bytes before anything walks the path: a long one is refused in one pass.
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) {
    throw invalid(`must not be greater than ${MAX_PATH_BYTES} bytes once UTF-8 encoded.`);
  }
  // A lone surrogate has no UTF-8 form: S3 would store another key than the one named.
  if (!path.isWellFormed()) throw invalid('must be valid Unicode text.');
  if (!LIBRARY_PATH.test(path)) throw invalid('must be a path inside your file library.');
  if (path.split('/').some((name) => Buffer.byteLength(name) > LIMITS.libraryNameBytes)) {
    throw invalid(
      `must not have a folder or file name greater than ${LIMITS.libraryNameBytes} bytes once UTF-8 encoded.`,
    );
  }
  return path;
}

/** Where the libraries are in the private bucket: `teams/<team id>/<path>`. */
export const LIBRARIES_PREFIX = 'teams/';

export const privateObjectKey = (teamId: number, path: string): string =>
  `${LIBRARIES_PREFIX}${teamId}/${checkLibraryPath(path)}`;

/**
 * A file written once into a team's library (the admin CLI's `file put`). As an upload URL's PUT, it is
 * conditioned on the path holding no file (the private bucket's policy refuses any other write under
 * `teams/`): a path already written is a 422 naming it.
 */
export async function putPrivateFile(
  teamId: number,
  path: string,
  bytes: Uint8Array,
  contentType: string,
): Promise<void> {
  const put = new PutObjectCommand({
    Bucket: config.privateBucket(),
    Key: privateObjectKey(teamId, path),
    Body: bytes,
    ContentType: contentType,
    IfNoneMatch: '*',
  });
  const written = () =>
    s3()
      .send(put)
      .catch((error: unknown) => {
        if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 412) {
          throw ValidationError.single(
            'path',
            'The path field names a file that already exists: a library file is written once; use a new path.',
          );
        }
        throw error;
      });
  await callerFileCall(['path'], written);
}
