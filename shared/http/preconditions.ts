import type { VersionTag } from '../domain/version-tag.ts';
import { BadRequestError } from './errors.ts';
import type { ApiResponse } from './response.ts';

/**
 * Entity tags of the versioned representations (brands, contact fields, webhook endpoints) and the If-Match they are sent
 * back in. A tag names what the stored item records of the representation: its kind, its `version` (every
 * write bumps it) and, for a brand, whether it is the default (which the default pointer decides, not the
 * brand item). So a data module can turn an If-Match into its write's own condition: no extra read.
 */
export type TaggedKind = 'brand' | 'field' | 'webhook';

/** The letter a version-only tag starts with (a brand's tag also names the default). */
const TAG_LETTER: Record<Exclude<TaggedKind, 'brand'>, string> = { field: 'f', webhook: 'w' };

function entityTag(kind: TaggedKind, tag: VersionTag): string {
  return kind === 'brand'
    ? `"b.${tag.version}.${tag.isDefault ? 1 : 0}"`
    : `"${TAG_LETTER[kind]}.${tag.version}"`;
}

/** The response with the representation's ETag. */
export function tagged(
  response: ApiResponse,
  kind: TaggedKind,
  tag: VersionTag,
): ApiResponse & { headers: { ETag: string } } {
  return { ...response, headers: { ...response.headers, ETag: entityTag(kind, tag) } };
}

/** A version no item has: what a tag of another kind or shape stands for (it can match nothing). */
const NO_VERSION: VersionTag = { version: -1 };

/**
 * What If-Match requires: nothing (absent, or `*`, which any existing resource meets: the route answers 404
 * otherwise), or one version. A weak tag is refused (400): If-Match compares strongly, so it could never
 * match. Several tags in one header are refused: a write can be conditioned on one version.
 */
export function ifMatchOf(
  headers: Record<string, string | undefined>,
  kind: TaggedKind,
): VersionTag | undefined {
  const header = headers['if-match']?.trim();
  if (header === undefined || header === '*') return undefined;
  if (header.includes(',')) throw new BadRequestError('If-Match takes one entity tag, or *.');
  // An unquoted tag is no entity-tag (RFC 9110): refused as malformed, not compared and found stale.
  if (!/^(W\/)?"[^"]*"$/.test(header)) {
    throw new BadRequestError(
      'If-Match takes an entity tag as the ETag header gives it, in quotes: "b.3.1".',
    );
  }
  // A weak tag could never match (If-Match compares strongly), so a 412 "read it again" would not help.
  if (header.startsWith('W/')) {
    throw new BadRequestError(
      'If-Match takes a strong entity tag, as the ETag header gives it ("b.3.1"), not a weak one (W/"…").',
    );
  }
  const match =
    kind === 'brand'
      ? /^"b\.(\d{1,15})\.([01])"$/.exec(header)
      : new RegExp(`^"${TAG_LETTER[kind]}\\.(\\d{1,15})"$`).exec(header);
  if (!match) return NO_VERSION;
  return kind === 'brand'
    ? { version: Number(match[1]), isDefault: match[2] === '1' }
    : { version: Number(match[1]) };
}
