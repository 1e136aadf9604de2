import { S3Client } from '@aws-sdk/client-s3';
import { sdkClientOptions } from '../aws.ts';
import { config } from '../config.ts';

/** The S3 clients of the process, each made on first use (timeouts and retries: aws.ts). Locally: s3rver. */
const options = () => ({
  ...sdkClientOptions(config.s3Endpoint(), 'S3RVER'),
  forcePathStyle: config.s3Endpoint() !== undefined,
});

let client: S3Client | undefined;
export const s3 = (): S3Client => (client ??= new S3Client(options()));

let presigningClient: S3Client | undefined;
/**
 * For presigned URLs: the shared client's default checksums would sign the CRC32 of an empty body into the
 * URL, and S3 would refuse any real upload; this one adds checksums only when required.
 */
export const presigner = (): S3Client =>
  (presigningClient ??= new S3Client({ ...options(), requestChecksumCalculation: 'WHEN_REQUIRED' }));
