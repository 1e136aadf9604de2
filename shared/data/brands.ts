import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { Brand } from '../domain/brand.ts';
import { IMAGE_FIELDS } from '../domain/brand.ts';
import { PreconditionFailedError } from '../domain/errors.ts';
import {
  byNameThenId,
  compareToNamePosition,
  type NamePosition,
  namePositionOf,
} from '../domain/ordering.ts';
import { type ListPage, type PageOptions, pageOfSorted } from '../domain/pagination.ts';
import type { VersionTag } from '../domain/version-tag.ts';
import { pointedId } from './brand-default.ts';
import { brandImageKeysOf, fromItem } from './brand-items.ts';
import { dynamo, tableName } from './dynamo.ts';
import { queryAll, throwMissing } from './items.ts';
import { BRAND_PREFIX, brandKey, defaultBrandKey, teamPk } from './keys.ts';
import { beforeRetry } from './transactions.ts';

/**
 * Brands: their reads. The data module is split along its seams: the item and the brand it answers
 * (brand-items.ts), the default-brand pointer (brand-default.ts), creates and updates (brand-writes.ts),
 * deletes and the lists they unlink (brand-deletes.ts); `admin migrate`'s one-off migrations are the
 * admin CLI's (lib/admin/migrations/brands.ts). `linked_lists` counts the lists that reference a brand, so
 * a delete can prove that it nulled every one of them. `version` grows with every write of the brand, so a
 * write computed from a read can be conditioned on nothing having changed since.
 */

/**
 * The team's brands ordered by name, ties by id, the pointer read with them; a page of them when `page`
 * says so. One Query either way: the order is by name, which no key holds, so every page reads all the
 * team's brands and keeps those after the cursor's position. The brands quota (500 by default, quotas.ts)
 * keeps that read small; a much larger list would want a name-ordered index instead.
 */
export async function listBrands(
  teamId: number,
  page: PageOptions<NamePosition> = {},
): Promise<ListPage<Brand, NamePosition>> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': teamPk(teamId), ':prefix': BRAND_PREFIX },
    ConsistentRead: true,
  });
  const pointerSk = defaultBrandKey(teamId).sk;
  const defaultId = pointedId(items.find((item) => item.sk === pointerSk));
  const brands = items
    .filter((item) => item.sk !== pointerSk)
    .map((item) => fromItem(item, defaultId))
    .sort(byNameThenId);
  return pageOfSorted(brands, page, namePositionOf, compareToNamePosition);
}

/** The public-library keys the team's brands name (files/orphaned-images.ts). One Query, images only. */
export async function brandImageKeysOfTeam(teamId: number): Promise<Set<string>> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ProjectionExpression: IMAGE_FIELDS.join(', '),
    ExpressionAttributeValues: { ':pk': teamPk(teamId), ':prefix': BRAND_PREFIX },
    ConsistentRead: true,
  });
  return new Set(items.flatMap((item) => brandImageKeysOf(item)));
}

/** A brand and the version of its item (with `is_default`, what its ETag names). */
export interface VersionedBrand {
  brand: Brand;
  version: number;
}

/**
 * An update's result, and its undoing: what a brand image copy that fails after the write runs
 * (files/brand-images.ts). The undoing writes the changed fields and the pointer back as they were, as a
 * new version, only if nothing wrote the brand since.
 */
export interface BrandUpdate extends VersionedBrand {
  undo: () => Promise<void>;
}

/** One of the team's brands; 403 if it is another team's, 404 if nobody's. One BatchGetItem. */
export async function getBrand(teamId: number, brandId: number): Promise<VersionedBrand> {
  const read = await readBrandAndPointer(teamId, brandId);
  if (!read.item) return throwMissing('BRAND', 'Brand', brandId);
  return { brand: fromItem(read.item, read.defaultId), version: read.item.version as number };
}

/** `expected` (an If-Match) names another version, or another `is_default`, than the brand's: 412. */
export function checkExpected(expected: VersionTag | undefined, current: VersionedBrand): void {
  if (!expected) return;
  if (expected.version !== current.version || expected.isDefault !== current.brand.is_default) {
    throw new PreconditionFailedError();
  }
}

/** The brand item and what the pointer names, strongly consistent, in one BatchGetItem. */
export async function readBrandAndPointer(teamId: number, brandId: number) {
  const brand = brandKey(teamId, brandId);
  const pointer = defaultBrandKey(teamId);
  let keys: Array<Record<string, unknown>> = [brand, pointer];
  const items: Array<Record<string, unknown>> = [];
  for (let attempt = 1; ; attempt++) {
    const { Responses, UnprocessedKeys } = await dynamo().send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: keys, ConsistentRead: true } } }),
    );
    items.push(...(Responses?.[tableName()] ?? []));
    keys = UnprocessedKeys?.[tableName()]?.Keys ?? [];
    if (keys.length === 0) break;
    await beforeRetry(attempt, 'brand'); // DynamoDB left keys unread (throttling): ask again for those
  }
  return {
    item: items.find((item) => item.sk === brand.sk),
    defaultId: pointedId(items.find((item) => item.sk === pointer.sk)),
  };
}
