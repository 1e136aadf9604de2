import { PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '../config.ts';
import { takeUploadQuota } from '../data/quotas.ts';
import { privateObjectKey } from './library.ts';
import { presigner } from './s3.ts';

/**
 * Uploads into a team's private file library: a short-lived presigned PUT URL for one path. The signature
 * covers the Content-Type, so the file is stored with the type that was asked for (brand images are
 * checked against it), the Content-Length, so S3 takes exactly the `size` the request declared (at most
 * LIMITS.uploadFileBytes) and refuses any other length (403 SignatureDoesNotMatch), and `If-None-Match: *`,
 * so S3 writes only while the path holds no file: the URL stores its `size` bytes once, and a second PUT
 * on it (or on any URL for a path already written) is 412 PreconditionFailed. The private bucket keeps
 * every version, so an overwrite would keep both; with one write per URL, what S3 keeps of a team is
 * within what its URLs took of its quotas (quotas.ts: one upload and `size` bytes, taken first). The
 * bucket's policy refuses any PutObject under `teams/` without the header (lib/cdk/team-messaging-stack.ts).
 */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;

/** S3's condition that the key holds no object yet (a conditional write). */
export const WRITE_ONCE = '*';

export interface UploadTarget {
  path: string;
  upload_url: string;
  method: 'PUT';
  headers: { 'Content-Type': string; 'If-None-Match': typeof WRITE_ONCE };
  expires_in: number;
}

export async function createUploadUrl(
  teamId: number,
  path: string,
  contentType: string,
  size: number,
): Promise<UploadTarget> {
  const command = new PutObjectCommand({
    Bucket: config.privateBucket(),
    Key: privateObjectKey(teamId, path),
    ContentType: contentType,
    ContentLength: size,
    IfNoneMatch: WRITE_ONCE,
  });
  // Signed here, without a call to S3: S3 answers the upload to the caller, so the path's rules, checked
  // before (privateObjectKey), are what keeps a caller from an upload URL S3 or a file system would refuse.
  // Signed while the quota's write is in flight; a refused quota throws, and the URL is never handed out.
  const [uploadUrl] = await Promise.all([
    getSignedUrl(presigner(), command, {
      expiresIn: UPLOAD_URL_TTL_SECONDS,
      signableHeaders: new Set(['content-type', 'content-length', 'if-none-match']),
    }),
    takeUploadQuota(teamId, size),
  ]);
  return {
    path,
    upload_url: uploadUrl,
    method: 'PUT',
    headers: { 'Content-Type': contentType, 'If-None-Match': WRITE_ONCE },
    expires_in: UPLOAD_URL_TTL_SECONDS,
  };
}
