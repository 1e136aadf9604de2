import { S3Client } from '@aws-sdk/client-s3';
import { sdkClientOptions } from '../aws.ts';
import { config } from '../config.ts';

/** The one S3 client of the process (timeouts and retries: aws.ts). Locally it talks path-style to s3rver. */
export const s3 = new S3Client({
  ...sdkClientOptions(config.s3Endpoint, 'S3RVER'),
  forcePathStyle: config.s3Endpoint !== undefined,
});
