import { PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '../config.ts';
import { takeUploadQuota } from '../data/quotas.ts';
import { privateObjectKey } from './library.ts';
import { presigner } from './s3.ts';

/**
 * Uploads into a team's private file library: a short-lived presigned PUT URL for one path. The signature
 * covers the Content-Type, so the file is stored with the type that was asked for (brand images are
 * checked against it), and the Content-Length, so S3 takes exactly the `size` the request declared (at
 * most LIMITS.uploadFileBytes) and refuses any other length (403 SignatureDoesNotMatch). The team's
 * upload quotas are taken first (quotas.ts): one upload and `size` bytes.
 */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;

export interface UploadTarget {
  path: string;
  upload_url: string;
  method: 'PUT';
  headers: { 'Content-Type': string };
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
  });
  // Signed here, without a call to S3: S3 answers the upload to the caller, so the path's rules, checked
  // before (privateObjectKey), are what keeps a caller from an upload URL S3 or a file system would refuse.
  // Signed while the quota's write is in flight; a refused quota throws, and the URL is never handed out.
  const [uploadUrl] = await Promise.all([
    getSignedUrl(presigner(), command, {
      expiresIn: UPLOAD_URL_TTL_SECONDS,
      signableHeaders: new Set(['content-type', 'content-length']),
    }),
    takeUploadQuota(teamId, size),
  ]);
  return {
    path,
    upload_url: uploadUrl,
    method: 'PUT',
    headers: { 'Content-Type': contentType },
    expires_in: UPLOAD_URL_TTL_SECONDS,
  };
}
