/**
 * Configuration, read from the environment once per process. Each function needs only some of it (the
 * authorizer has no buckets), so a missing variable fails where it is first used, naming the variable.
 */
const env = { ...process.env };

function required(name: string): string {
  const value = env[name];
  if (!value) throw new Error(`Missing required environment variable ${name}`);
  return value;
}

export const config = {
  tableName: () => required('TABLE_NAME'),
  privateBucket: () => required('PRIVATE_BUCKET'),
  publicBucket: () => required('PUBLIC_BUCKET'),
  /** Base URL under which public-library objects are served (CloudFront in AWS, s3rver locally). */
  publicBaseUrl: () => required('PUBLIC_BASE_URL').replace(/\/+$/, ''),
  /** Set only locally and in tests: endpoints of DynamoDB Local and s3rver. */
  dynamodbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
  s3Endpoint: env.S3_ENDPOINT || undefined,
  region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
};
