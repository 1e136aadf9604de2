import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../config.ts';

/** The one S3 client of the process. Locally it talks path-style to s3rver with s3rver's fixed credentials. */
export const s3 = new S3Client({
  region: config.region,
  ...(config.s3Endpoint && {
    endpoint: config.s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  }),
});
