import { type FileAccess, routes, streamConsumer } from '../../shared/routes.ts';

/**
 * What each function may do with the two buckets' objects, as IAM statements: the route table's `files`
 * (and the stream consumer's) made into actions on one key prefix of one bucket. The stack grants exactly
 * these (grants.ts); test/support/key-observer.ts holds every object each function's code touches in the
 * suite to them (s3rver enforces no IAM).
 */
export interface ObjectStatement {
  actions: readonly string[];
  bucket: 'private' | 'public';
  /** The object keys it covers (a prefix ending in `*`); none: the bucket itself (ListBucket). */
  keys?: string;
}

/** Objects of the private library live under `teams/<team id>/`, public brand images under `brands/`. */
export const PRIVATE_LIBRARY_KEYS = 'teams/*';
export const PUBLIC_BRAND_KEYS = 'brands/*';

const STATEMENTS: Record<FileAccess, ObjectStatement[]> = {
  'private:read': [
    // GetObject also covers HeadObject and the source side of CopyObject.
    { actions: ['s3:GetObject'], bucket: 'private', keys: PRIVATE_LIBRARY_KEYS },
    // Without ListBucket S3 answers a missing key with 403 AccessDenied instead of 404 NoSuchKey, and "no
    // such file in your library" could not be told from a real failure (s3rver always says 404).
    { actions: ['s3:ListBucket'], bucket: 'private' },
  ],
  // Also what presigned upload URLs signed by this function's role are allowed to do.
  'private:write': [{ actions: ['s3:PutObject'], bucket: 'private', keys: PRIVATE_LIBRARY_KEYS }],
  // The destination side of CopyObject (promoting a library image to the public brand images).
  'public:write': [{ actions: ['s3:PutObject'], bucket: 'public', keys: PUBLIC_BRAND_KEYS }],
  // Marking a public image no brand names (shared/files/orphaned-images.ts): HeadObject, a copy onto
  // itself, its tags; ListBucket so that a copy already gone is a 404, not a 403.
  'public:mark': [
    {
      actions: ['s3:GetObject', 's3:PutObject', 's3:PutObjectTagging'],
      bucket: 'public',
      keys: PUBLIC_BRAND_KEYS,
    },
    { actions: ['s3:ListBucket'], bucket: 'public' },
  ],
};

export const objectStatements = (files: readonly FileAccess[] | undefined): ObjectStatement[] =>
  [...new Set(files ?? [])].flatMap((access) => STATEMENTS[access]);

/** Every function's file access, by its handler file (functions without any: none). */
export function fileAccessByHandler(): Map<string, readonly FileAccess[]> {
  return new Map<string, readonly FileAccess[]>([
    ...routes.map((route) => [route.handler, route.files ?? []] as const),
    [streamConsumer.handler, streamConsumer.files],
  ]);
}
