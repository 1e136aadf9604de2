import * as z from 'zod/mini';
import { LIMITS } from '../limits.ts';
import { ValidationError } from './errors.ts';

/**
 * The paths of a team's private file library, relative to the library (shared/files/library.ts). The
 * library's rules are its own, the same in AWS and locally, and checked before S3 is asked (README,
 * "Limits and errors"): a path stays inside the library, each folder and file name has at most
 * LIMITS.libraryNameBytes, and the whole key fits S3's LIMITS.objectKeyBytes with the prefix of any team.
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

/**
 * A zod string that must be a path inside the caller's file library (checkLibraryPath's rules and
 * messages), so a bad path is reported together with the body's other errors. The rules are checked in
 * code; the metadata only says them in the OpenAPI document (JSON Schema cannot count UTF-8 bytes).
 */
export const libraryPath = (field: string) =>
  z
    .string()
    .check(
      z.superRefine((path, ctx) => {
        try {
          checkLibraryPath(path, field);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          for (const message of Object.values(error.errors).flat()) ctx.addIssue({ code: 'custom', message });
        }
      }),
    )
    .register(z.globalRegistry, {
      description: `A path in the team's file library: at most ${MAX_PATH_BYTES} bytes once UTF-8 encoded.`,
      minLength: 1,
      maxLength: LIMITS.libraryPathLength,
      pattern: LIBRARY_PATH.source,
    });
