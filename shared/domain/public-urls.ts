import { config } from '../config.ts';

/**
 * URLs of the public library, and how a brand refers to its images there. A copy the API made
 * (shared/files/brand-images.ts) is stored on the brand as its key,
 * `brands/<team id>/<version>/<file name>`, never as an absolute URL: the URL is rendered on every read
 * from the configured base (PUBLIC_BASE_URL: the CloudFront distribution's domain in AWS, s3rver's address
 * locally). So the base may change (a replaced distribution, a custom domain, s3rver on another port after
 * a restart) and every stored brand still answers URLs that work; for an unchanged base the rendering is
 * exactly the URL stored before. Kept as given: URLs of other hosts, and absolute URLs stored before brands
 * kept keys (they name the base of their day; nothing rewrites them). A client validates image fields as
 * http(s) URLs, so a stored value of the key's shape can only be a key.
 */

/** The key shape of a brand image copy: the team, the version's hex digits, a URL-safe file name. */
const BRAND_IMAGE_KEY = /^brands\/\d+\/[0-9a-f]+\/[A-Za-z0-9._-]+$/;

/** Whether a stored image is a key of the public library (a copy the API made), not a URL. */
export const isBrandImageKey = (stored: string): boolean => BRAND_IMAGE_KEY.test(stored);

/** Where a team's brand images are copied to in the public library. */
export const brandImagePrefix = (teamId: number): string => `brands/${teamId}/`;

/** The public URL of a public-library key, under the base configured now. */
export const publicUrl = (key: string): string => `${config.publicBaseUrl()}/${key}`;

/**
 * What a brand stores for an image URL: the key, when the URL is one of the team's own copies under the
 * current base (a path form promoted, or a brand's URL sent back as it was read); else the URL as given.
 */
export function storedImage(teamId: number, url: string): string {
  const base = `${config.publicBaseUrl()}/`;
  if (!url.startsWith(base)) return url;
  const key = url.slice(base.length);
  return key.startsWith(brandImagePrefix(teamId)) && BRAND_IMAGE_KEY.test(key) ? key : url;
}

/** The URL a stored image is answered as: a key under the current base, a URL as it was given. */
export function renderedImage(stored: string): string {
  return BRAND_IMAGE_KEY.test(stored) ? publicUrl(stored) : stored;
}

/**
 * The tag of a public copy no brand names any longer (shared/files/orphaned-images.ts): the public
 * bucket's lifecycle rule deletes such copies LIMITS.orphanedImageDays after the tag was set.
 */
export const ORPHANED_TAG = { Key: 'orphaned', Value: 'true' } as const;
