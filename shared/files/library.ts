import { PutObjectCommand, S3ServiceException } from '@aws-sdk/client-s3';
import { config } from '../config.ts';
import { ValidationError } from '../domain/errors.ts';
import { checkLibraryPath } from '../domain/library-path.ts';
import { s3 } from './s3.ts';
import { callerFileCall } from './s3-errors.ts';

/**
 * A team's private file library: objects under `teams/<team id>/` in the private bucket. Paths are
 * relative to the library, checked by the library's rules (shared/domain/library-path.ts) before S3 is asked.
 */

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
