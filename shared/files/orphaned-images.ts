import {
  CopyObjectCommand,
  HeadObjectCommand,
  PutObjectTaggingCommand,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { config } from '../config.ts';
import { brandImageKeysOf } from '../data/brand-items.ts';
import { brandImageKeysOfTeam } from '../data/brands.ts';
import { ORPHANED_TAG } from '../domain/public-urls.ts';
import { PUBLIC_CACHE_CONTROL } from './brand-images.ts';
import { s3 } from './s3.ts';

/**
 * Public brand images no brand names any longer are removed, LIMITS.orphanedImageDays after the last
 * brand of their team stopped naming them: mails already sent show them until then. The stream consumer
 * sees each brand write's old and new images. A key the write dropped that no brand of the team names
 * now is marked: copied onto itself (S3 counts a lifecycle rule's days from an object's creation, so the
 * grace period starts now, not when the copy was first made) and tagged ORPHANED_TAG, which the public
 * bucket's lifecycle rule expires (lib/cdk; the tag is public-urls.ts'). A key a write names again loses the tag (a brand may name a
 * copy again by sending its URL back). Copies are per team (`brands/<team id>/`), so only the team's own
 * brands can name one.
 */

/** What a brand item's write did to the public keys it names. */
export interface ImageReferences {
  teamId: number;
  dropped: string[];
  added: string[];
}

/** The keys a brand item change drops and adds (none for other items: they name no images). */
export function imageReferencesOf(
  oldImage: Record<string, unknown> | undefined,
  newImage: Record<string, unknown> | undefined,
): ImageReferences | undefined {
  const before = new Set(brandImageKeysOf(oldImage));
  const after = new Set(brandImageKeysOf(newImage));
  const dropped = [...before].filter((key) => !after.has(key));
  const added = [...after].filter((key) => !before.has(key));
  const teamId = (newImage ?? oldImage)?.team_id;
  if (typeof teamId !== 'number' || (dropped.length === 0 && added.length === 0)) return undefined;
  return { teamId, dropped, added };
}

/**
 * Marks the dropped keys no brand of the team names now, and unmarks the added ones. Safe to repeat (a
 * stream record may come again). Returns the keys marked.
 */
export async function settleImageReferences(references: ImageReferences): Promise<string[]> {
  const { teamId, dropped, added } = references;
  await Promise.all(added.map((key) => ignoringMissing(() => tag(key, []))));
  if (dropped.length === 0) return [];
  const named = await brandImageKeysOfTeam(teamId);
  const orphaned = dropped.filter((key) => !named.has(key));
  await Promise.all(orphaned.map((key) => ignoringMissing(() => markOrphaned(key))));
  return orphaned;
}

/** Copied onto itself (a new creation date, the same bytes, type and caching), then tagged. */
async function markOrphaned(key: string): Promise<void> {
  const bucket = config.publicBucket();
  const head = await s3().send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  await s3().send(
    new CopyObjectCommand({
      Bucket: bucket,
      Key: key,
      CopySource: `${bucket}/${key}`,
      MetadataDirective: 'REPLACE',
      ContentType: head.ContentType,
      CacheControl: head.CacheControl ?? PUBLIC_CACHE_CONTROL,
      Metadata: { 'orphaned-at': new Date().toISOString() },
    }),
  );
  await tag(key, [ORPHANED_TAG]);
}

async function tag(key: string, tags: Array<{ Key: string; Value: string }>): Promise<void> {
  await s3().send(
    new PutObjectTaggingCommand({ Bucket: config.publicBucket(), Key: key, Tagging: { TagSet: tags } }),
  );
}

/** A copy that is not there (its brand's write was undone, or it expired) needs nothing. */
async function ignoringMissing(call: () => Promise<void>): Promise<void> {
  try {
    await call();
  } catch (error) {
    const missing =
      error instanceof S3ServiceException &&
      (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404);
    if (!missing) throw error;
  }
}
