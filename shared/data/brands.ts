import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  type DeleteCommandInput,
  GetCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { PreconditionFailedError, ValidationError } from '../domain/errors.ts';
import {
  byNameThenId,
  compareToNamePosition,
  type NamePosition,
  namePositionOf,
} from '../domain/ordering.ts';
import { type ListPage, type PageOptions, pageOfSorted } from '../domain/pagination.ts';
import { isBrandImageKey, renderedImage, storedImage } from '../domain/public-urls.ts';
import type { VersionTag } from '../domain/version-tag.ts';
import { logger } from '../telemetry.ts';
import { dynamo, nowIso, type TransactItem, tableName } from './dynamo.ts';
import { verifiedIdentityCheck } from './identities.ts';
import { nextId } from './ids.ts';
import {
  deletionStamp,
  queryAll,
  requestStamp,
  requestStampUpdate,
  scanSortKey,
  throwMissing,
} from './items.ts';
import {
  BRAND_PREFIX,
  brandKey,
  defaultBrandKey,
  idIndexKeys,
  LEGACY_DEFAULT_BRAND_SK,
  LIST_PREFIX,
  teamPk,
} from './keys.ts';
import { releaseQuota, takeQuota, throwIfQuotaReached } from './quotas.ts';
import {
  beforeRetry,
  type Cancellation,
  type GuardedItem,
  LabelledTransaction,
  plainItem,
} from './transactions.ts';

/**
 * Brands. The team's default brand is whatever one pointer item per team names (`BRAND#DEFAULT`, in the
 * brands' key range so that listing reads it with the brands): `is_default` is derived on read, so "at
 * most one default" holds by construction and making a brand the default writes two items, the brand and
 * the pointer. A brand the pointer has ever named carries `may_be_default`, so a write that returns a
 * brand without it knows the answer without reading the pointer. Brand ids never return, so a pointer
 * left naming a deleted brand reads as "no default". `linked_lists` counts the lists that reference a
 * brand, so a delete can prove that it nulled every one of them. `version` grows with every write of the
 * brand, so a write computed from a read can be conditioned on nothing having changed since. An image the
 * API copied to the public library is stored as its key and rendered as a URL on every read, so a new
 * public base URL (a replaced CloudFront distribution, s3rver on another port) breaks no brand; other
 * URLs, and absolute ones stored before, are kept as given (files/public-urls.ts).
 */

/** What a client writes (spec 2.1). */
export interface BrandFields {
  name: string;
  short_description: string | null;
  website_url: string | null;
  primary_color: string | null;
  secondary_color: string | null;
  logo_image: string | null;
  logo_square_image: string | null;
  header_image: string | null;
  footer_image: string | null;
  social_share_image: string | null;
  email_address_id: number | null;
  phone_id: number | null;
  social_links: Record<string, string> | null;
  tags: string[];
}

export interface Brand extends BrandFields {
  id: number;
  team_id: number;
  is_default: boolean;
  created_at: string;
  updated_at: string;
}

export type NewBrand = Pick<BrandFields, 'name'> & Partial<BrandFields> & { is_default?: boolean };
export type BrandChanges = Partial<BrandFields> & { is_default?: boolean };

/** The fields a brand item stores; `is_default` is the pointer's, never the brand's. */
const STORED_FIELDS = [
  'name',
  'short_description',
  'website_url',
  'primary_color',
  'secondary_color',
  'logo_image',
  'logo_square_image',
  'header_image',
  'footer_image',
  'social_share_image',
  'email_address_id',
  'phone_id',
  'social_links',
  'tags',
] as const satisfies ReadonlyArray<keyof BrandFields>;

/** The image slots' URL fields: a key of the public library or a URL as stored, a URL as answered. */
const IMAGE_FIELDS = [
  'logo_image',
  'logo_square_image',
  'header_image',
  'footer_image',
  'social_share_image',
] as const satisfies ReadonlyArray<keyof BrandFields>;

const UNLINK_BATCH = 98; // + the brand's link counter + the If-Match pointer check = 100 items, DynamoDB's cap
const LAST_UNLINK_BATCH = 96; // + the brand's delete, the pointer check, the quota's release, the tombstone

/** Set on a pointer `admin migrate` moved from where older tables kept it; the API's writes drop it. */
export const MOVED_POINTER = 'moved_by_migration';
/**
 * On a brand item: whether the brand was the default as of that version. Every write that moves the
 * default writes it on both brands (the one that wins it and the one that loses it, a new version of
 * each), so each brand's own stream record tells its change event the brand's state at the change
 * (change-events.ts). The API's reads go by the pointer, which stays the source of truth. Items written
 * before it existed lack it (`admin migrate` stamps the defaults).
 */
export const DEFAULT_AT_VERSION = 'default_at_version';

/** The brand id a pointer item names, if any: possibly a deleted brand's. */
export const pointedId = (pointer: Record<string, unknown> | undefined): number | undefined =>
  typeof pointer?.brand_id === 'number' ? pointer.brand_id : undefined;

/** The id of the team's default brand, if it has one (strongly consistent; a pointer to a deleted brand is none). */
export async function getDefaultBrandId(teamId: number): Promise<number | undefined> {
  const candidate = await readPointer(teamId);
  if (candidate === undefined) return undefined;
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: brandKey(teamId, candidate), ConsistentRead: true }),
  );
  return Item ? candidate : undefined;
}

/** What the pointer names, possibly a deleted brand (strongly consistent). */
export async function readPointer(teamId: number): Promise<number | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: defaultBrandKey(teamId), ConsistentRead: true }),
  );
  return pointedId(Item);
}

/** The response shape, in the order of spec 2.1; keys and internal counters stay behind. */
function fromItem(item: Record<string, unknown>, defaultId: number | undefined): Brand {
  return withImages(shapeOf(item, defaultId), renderedImage);
}

/** A brand's representation from its stored item, as the API answers it (change events render it so). */
export const brandOfItem = (item: Record<string, unknown>, isDefault: boolean): Brand =>
  fromItem(item, isDefault ? (item.id as number) : undefined);

/** The fields of the response in its order, with their defaults; images as stored. */
function shapeOf(item: Record<string, unknown>, defaultId: number | undefined): Brand {
  const stored = item as Partial<Brand>;
  return {
    id: stored.id as number,
    team_id: stored.team_id as number,
    name: stored.name as string,
    short_description: stored.short_description ?? null,
    website_url: stored.website_url ?? null,
    primary_color: stored.primary_color ?? null,
    secondary_color: stored.secondary_color ?? null,
    is_default: stored.id === defaultId,
    logo_image: stored.logo_image ?? null,
    logo_square_image: stored.logo_square_image ?? null,
    header_image: stored.header_image ?? null,
    footer_image: stored.footer_image ?? null,
    social_share_image: stored.social_share_image ?? null,
    email_address_id: stored.email_address_id ?? null,
    phone_id: stored.phone_id ?? null,
    social_links: stored.social_links ?? null,
    tags: stored.tags ?? [],
    created_at: stored.created_at as string,
    updated_at: stored.updated_at as string,
  };
}

/** The object with each image field that holds a string mapped (keys stay in place, so the JSON's order does). */
function withImages<T>(brand: T, map: (image: string) => string): T {
  if (typeof brand !== 'object' || brand === null || Array.isArray(brand)) return brand;
  const mapped = { ...brand } as Record<string, unknown>;
  for (const field of IMAGE_FIELDS) {
    const image = mapped[field];
    if (typeof image === 'string') mapped[field] = map(image);
  }
  return mapped as T;
}

/**
 * A brand's body as an idempotency record keeps it (its images as the brand stores them) and as a replay
 * answers it (rendered under the base of the replay's time): the same bytes while the base is the same.
 */
export const brandBodyRecord = {
  keep: (body: unknown, teamId: number): unknown => withImages(body, (url) => storedImage(teamId, url)),
  replay: (body: unknown): unknown => withImages(body, renderedImage),
};

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

/** The public-library keys one stored brand item names. */
export const brandImageKeysOf = (item: Record<string, unknown> | undefined): string[] =>
  IMAGE_FIELDS.map((field) => item?.[field]).filter(
    (image): image is string => typeof image === 'string' && isBrandImageKey(image),
  );

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
function checkExpected(expected: VersionTag | undefined, current: VersionedBrand): void {
  if (!expected) return;
  if (expected.version !== current.version || expected.isDefault !== current.brand.is_default) {
    throw new PreconditionFailedError();
  }
}

/**
 * Moves of one team's default made by this process, one at a time. Each move is conditioned on the
 * pointer naming the brand it takes the default from (so that it can write that brand too), so parallel
 * moves of one team go one after another whatever this does; queued, a process's own moves do not spend
 * failed transactions (and write units) on each other. Another process's are settled by the conditions.
 */
const defaultMoves = new Map<number, Promise<unknown>>();
function oneMoveAtATime<T>(teamId: number, move: () => Promise<T>): Promise<T> {
  const previous = defaultMoves.get(teamId) ?? Promise.resolve();
  const result = previous.then(move, move);
  const settled = result.catch(() => {});
  defaultMoves.set(teamId, settled);
  void settled.then(() => {
    if (defaultMoves.get(teamId) === settled) defaultMoves.delete(teamId);
  });
  return result;
}

/**
 * Creates a brand in one transaction with its identity checks and `extraItems` (an idempotency record's
 * completion). As the default it also moves the pointer to it, and writes the brand that loses it.
 */
export async function createBrand(
  teamId: number,
  input: NewBrand,
  extraItems: (brand: Brand) => GuardedItem[] = () => [],
): Promise<Brand> {
  return input.is_default
    ? oneMoveAtATime(teamId, () => writeNewBrand(teamId, input, extraItems))
    : writeNewBrand(teamId, input, extraItems);
}

async function writeNewBrand(
  teamId: number,
  input: NewBrand,
  extraItems: (brand: Brand) => GuardedItem[],
): Promise<Brand> {
  const now = nowIso();
  const id = await nextId('brand');
  const shaped = shapeOf(
    {
      ...withImages(input, (url) => storedImage(teamId, url)),
      id,
      team_id: teamId,
      created_at: now,
      updated_at: now,
    },
    input.is_default ? id : undefined,
  );
  const { is_default, ...stored } = shaped;
  const brand = withImages(shaped, renderedImage);
  // Most teams' first default replaces none: assumed, and corrected by the pointer's failed condition.
  let loser: Loser = { id: undefined, exists: true };
  let overtaken = 0;
  for (let attempt = 1; ; attempt++) {
    const transaction = new LabelledTransaction().add('brand', {
      Put: {
        TableName: tableName(),
        Item: {
          ...brandKey(teamId, id),
          ...idIndexKeys('BRAND', id),
          ...stored,
          ...requestStamp(),
          version: 1,
          ...(is_default && { may_be_default: true, [DEFAULT_AT_VERSION]: true }),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
    if (is_default) addDefaultMove(transaction, teamId, id, loser, now);
    takeQuota(transaction, teamId, 'brands');
    addIdentityChecks(transaction, teamId, brand);
    transaction.guard(extraItems(brand));
    const cancellation = await transaction.commit();
    if (!cancellation) return brand;
    throwIfQuotaReached(cancellation, 'brands');
    throwIfIdentityRefused(cancellation);
    const learned = is_default ? learnedLoser(cancellation, loser) : undefined;
    if (learned) {
      // Retried at once with what it learned: the default the first try assumed none of, one another
      // request moved meanwhile (it made progress: no attempt of ours lost, up to MAX_DEFAULT_MOVES), or
      // a loser that is gone.
      if (learned.exists && ++overtaken <= MAX_DEFAULT_MOVES) attempt--;
      loser = learned;
      await beforeRetry(attempt, 'brand', true);
      continue;
    }
    if (!cancellation.conflicted()) throw cancellation.error;
    await beforeRetry(attempt, 'brand');
  }
}

/**
 * How many times one write may find the default moved by others since it learned where it was: each time
 * another request's move succeeded, so moves make progress; past this many it counts as a conflict.
 */
const MAX_DEFAULT_MOVES = 200;

/**
 * The brand that loses the default to a new one: the pointer's brand, if it names one, and whether it
 * still exists (a pointer to a deleted brand names none that can lose anything).
 */
interface Loser {
  id: number | undefined;
  exists: boolean;
}

/**
 * The default moves to `winnerId` from `loser`: the pointer, on condition that it still names the loser
 * (a create first assumes no default; a failed condition tells it which), and the loser written as no
 * longer the default, as a new version made by this request. So the loser's own stream record carries the
 * change, its request and its state then, which its `brand.updated` event reports (change-events.ts).
 */
function addDefaultMove(
  transaction: LabelledTransaction,
  teamId: number,
  winnerId: number,
  loser: Loser,
  now: string,
): void {
  transaction.add('pointer', {
    Put: {
      TableName: tableName(),
      Item: { ...defaultBrandKey(teamId), brand_id: winnerId },
      ...(loser.id === undefined
        ? { ConditionExpression: 'attribute_not_exists(brand_id)' }
        : { ConditionExpression: 'brand_id = :loser', ExpressionAttributeValues: { ':loser': loser.id } }),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  });
  if (loser.id === undefined || !loser.exists) return;
  const update = brandUpdate({ [DEFAULT_AT_VERSION]: false }, now);
  transaction.add('loser', {
    Update: {
      TableName: tableName(),
      Key: brandKey(teamId, loser.id),
      ...update,
      ConditionExpression: 'attribute_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  });
}

/** What a default move's failed conditions taught: the pointer names another brand, or the loser is gone. */
function learnedLoser(cancellation: Cancellation, loser: Loser): Loser | undefined {
  if (cancellation.conditionFailed('pointer')) {
    return { id: pointedId(cancellation.oldItem('pointer')), exists: true };
  }
  if (cancellation.conditionFailed('loser') && !cancellation.oldItem('loser')) {
    return { id: loser.id, exists: false };
  }
  return undefined;
}

/**
 * Applies the supplied fields. Without a default or identity change: one UpdateItem (and a read of the
 * pointer when the brand may be the default). Otherwise the brand and the pointer are read (one
 * BatchGetItem) and the change is one transaction conditioned on the brand being as read: the brand, the
 * pointer when the default changes, the identity checks. An If-Match (`expected`) joins the write's own
 * condition: the brand's version, and the pointer for its `is_default`.
 */
export async function updateBrand(
  teamId: number,
  brandId: number,
  changes: BrandChanges,
  expected?: VersionTag,
): Promise<BrandUpdate> {
  const fields = storedFields(teamId, changes);
  if (Object.keys(fields).length === 0 && changes.is_default === undefined) {
    const current = await getBrand(teamId, brandId);
    checkExpected(expected, current);
    return { ...current, undo: async () => {} };
  }
  const namesIdentity = typeof fields.email_address_id === 'number' || typeof fields.phone_id === 'number';
  if (changes.is_default === undefined && !namesIdentity && !expected?.isDefault) {
    const updated = await updateInPlace(teamId, brandId, fields, expected);
    if (updated) return updated;
  }
  const write = () => updateInTransaction(teamId, brandId, fields, changes.is_default, expected);
  return changes.is_default === true ? oneMoveAtATime(teamId, write) : write();
}

/**
 * One UpdateItem. With an If-Match that says "not the default", the condition also requires a brand the
 * pointer never named; for one it did, undefined: the pointer must be checked in a transaction.
 */
async function updateInPlace(
  teamId: number,
  brandId: number,
  fields: Partial<BrandFields>,
  expected: VersionTag | undefined,
): Promise<BrandUpdate | undefined> {
  const now = nowIso();
  const update = brandUpdate(fields, now);
  try {
    // The item as it was (for the undoing); the new one is it with the fields written.
    const { Attributes: old = {} } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: brandKey(teamId, brandId),
        ...update,
        ConditionExpression: expected
          ? 'attribute_exists(pk) AND #version = :expected AND attribute_not_exists(may_be_default)'
          : 'attribute_exists(pk)',
        ...(expected && {
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':expected': expected.version },
        }),
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const version = (old.version as number) + 1;
    const defaultId = old.may_be_default ? await readPointer(teamId) : undefined;
    return {
      brand: fromItem({ ...old, ...fields, updated_at: now, version }, defaultId),
      version,
      undo: () => restoreBrand(teamId, brandId, old, Object.keys(fields), version),
    };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    if (!error.Item) return throwMissing('BRAND', 'Brand', brandId);
    if (plainItem(error.Item)?.version !== expected?.version) throw new PreconditionFailedError();
    return undefined;
  }
}

async function updateInTransaction(
  teamId: number,
  brandId: number,
  fields: Partial<BrandFields>,
  makeDefault: boolean | undefined,
  expected: VersionTag | undefined,
): Promise<BrandUpdate> {
  const deletedLosers = new Set<number>();
  let overtaken = 0;
  let read: Awaited<ReturnType<typeof readBrandAndPointer>> | undefined;
  for (let attempt = 1; ; attempt++) {
    // Read again after a back-off: what a failed condition returned is stale by then.
    read ??= await readBrandAndPointer(teamId, brandId);
    if (!read.item) return throwMissing('BRAND', 'Brand', brandId);
    const current = fromItem(read.item, read.defaultId);
    const version = read.item.version as number;
    checkExpected(expected, { brand: current, version });
    const now = nowIso();
    const isDefault = makeDefault ?? current.is_default;
    const update = brandUpdate(
      { ...fields, [DEFAULT_AT_VERSION]: isDefault, ...(isDefault && { may_be_default: true }) },
      now,
    );
    const transaction = new LabelledTransaction().add('brand', {
      Update: {
        TableName: tableName(),
        Key: brandKey(teamId, brandId),
        ...update,
        ConditionExpression: '#version = :version',
        ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':version': version },
      },
    });
    // The pointer's item, when it is written, also holds what was read of it for an If-Match.
    const loser = {
      id: read.defaultId,
      exists: read.defaultId !== undefined && !deletedLosers.has(read.defaultId),
    };
    const moves = isDefault && !current.is_default;
    if (moves) addDefaultMove(transaction, teamId, brandId, loser, now);
    else if (!isDefault && current.is_default) transaction.add('pointer', pointerDelete(teamId, brandId));
    else if (expected) transaction.add('pointer', pointerIs(teamId, brandId, current.is_default));
    addIdentityChecks(transaction, teamId, fields);
    const cancellation = await transaction.commit();
    if (!cancellation) {
      const { item } = read;
      const pointer =
        isDefault === current.is_default
          ? undefined
          : { before: read.defaultId, isDefault, loserWritten: isDefault && loser.exists };
      return {
        brand: withImages({ ...current, ...fields, is_default: isDefault, updated_at: now }, renderedImage),
        version: version + 1,
        undo: () => restoreBrand(teamId, brandId, item, Object.keys(fields), version + 1, pointer),
      };
    }
    throwIfIdentityRefused(cancellation);
    // Only the default's move failed (another request moved it, or its loser is gone): the brand as read
    // still holds, and the failure told what the pointer names now. Anything else: back off, read again.
    const learned =
      moves && !cancellation.conditionFailed('brand') ? learnedLoser(cancellation, loser) : undefined;
    if (learned) {
      if (!learned.exists && learned.id !== undefined) deletedLosers.add(learned.id);
      read = { ...read, defaultId: learned.id };
      // Retried at once with what it learned: another request moved the default (it made progress, so
      // this is no attempt of ours lost, up to MAX_DEFAULT_MOVES), or the loser is gone.
      if (learned.exists && ++overtaken <= MAX_DEFAULT_MOVES) attempt--;
      await beforeRetry(attempt, 'brand', true);
      continue;
    }
    read = undefined;
    await beforeRetry(attempt, 'brand');
  }
}

/**
 * Writes `fields` of the brand back as `previous` held them, and the pointer back to what it named
 * `before` when the write moved it, as one transaction and only if the brand is still at `written` (the
 * undone write's version): a later write is kept. It reads as before but for its version (a new one, so
 * no ETag names both states) and its `updated_at`: the undoing is a write of its own, so its time (and its
 * change event's) comes after the write it undoes, as its version does.
 */
async function restoreBrand(
  teamId: number,
  brandId: number,
  previous: Record<string, unknown>,
  fields: string[],
  written: number,
  pointer?: { before: number | undefined; isDefault: boolean; loserWritten: boolean },
): Promise<void> {
  const restored: Record<string, unknown> = Object.fromEntries(
    fields.map((field) => [field, previous[field] ?? null]),
  );
  if (pointer) restored[DEFAULT_AT_VERSION] = !pointer.isDefault;
  const update = brandUpdate(restored, nowIso());
  const transaction = new LabelledTransaction().add('brand', {
    Update: {
      TableName: tableName(),
      Key: brandKey(teamId, brandId),
      ...update,
      ConditionExpression: '#version = :written',
      ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':written': written },
    },
  });
  if (pointer?.isDefault) {
    // The write named the brand the default: back to what the pointer named before, or to none.
    transaction.add(
      'pointer',
      pointer.before === undefined
        ? pointerDelete(teamId, brandId)
        : pointerPutIfNames(teamId, brandId, pointer.before),
    );
    // The brand that lost the default to the write has it back, as a new version (its own record says so).
    if (pointer.before !== undefined && pointer.loserWritten) {
      const regained = brandUpdate({ [DEFAULT_AT_VERSION]: true }, nowIso());
      transaction.add('loser', {
        Update: {
          TableName: tableName(),
          Key: brandKey(teamId, pointer.before),
          ...regained,
          ConditionExpression: 'attribute_exists(pk)',
        },
      });
    }
  } else if (pointer) {
    transaction.add('pointer', pointerPut(teamId, brandId, true));
  }
  const cancellation = await transaction.commit();
  if (cancellation) logger().warn('brand write not undone: written again since', { brand_id: brandId });
}

/**
 * Deletes a brand just created (`createBrand`), with its quota and `extraItems` (the idempotency record
 * that holds its answer), only if nothing wrote it since. A pointer it set is deleted: the default it
 * replaced is not known any longer (the create's Put overwrote it), so the team is left with no default.
 */
export async function undoCreateBrand(
  teamId: number,
  brand: Pick<Brand, 'id' | 'is_default'>,
  extraItems: TransactItem[] = [],
): Promise<void> {
  const transaction = new LabelledTransaction()
    .add('brand', {
      Delete: {
        TableName: tableName(),
        Key: brandKey(teamId, brand.id),
        ConditionExpression: 'version = :one AND attribute_not_exists(linked_lists)',
        ExpressionAttributeValues: { ':one': 1 },
      },
    })
    .add('quota release', releaseQuota(teamId, 'brands'))
    .add('tombstone', ...deletionStamp(brandKey(teamId, brand.id), teamId))
    .add('record', ...extraItems);
  if (brand.is_default) transaction.add('pointer', pointerDelete(teamId, brand.id));
  const cancellation = await transaction.commit();
  if (cancellation) logger().warn('brand create not undone: written again since', { brand_id: brand.id });
}

/** The pointer names `restored` again, if it still names the brand. */
function pointerPutIfNames(teamId: number, brandId: number, restored: number): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...defaultBrandKey(teamId), brand_id: restored },
      ConditionExpression: 'brand_id = :brand',
      ExpressionAttributeValues: { ':brand': brandId },
    },
  };
}

/** The brand item and what the pointer names, strongly consistent, in one BatchGetItem. */
async function readBrandAndPointer(teamId: number, brandId: number) {
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

/**
 * Deletes a brand for good. Every list that names it keeps existing with `brand_id` null: the lists are
 * found with one Query and unlinked 98 per transaction (each also lowers the brand's link counter); the
 * last transaction unlinks the rest and deletes the brand only if its counter says no other list links it,
 * so a list linked meanwhile sends us back to the Query. A pointer naming the brand is left to read as "no
 * default" (brand ids never return). Two round trips plus one per 98 lists.
 */
export async function deleteBrand(teamId: number, brandId: number, expected?: VersionTag): Promise<void> {
  let lists: Array<Record<string, unknown>> | undefined;
  for (let attempt = 1; ; ) {
    lists ??= await listsLinkedTo(teamId, brandId);
    const now = nowIso();
    const last = lists.length <= LAST_UNLINK_BATCH;
    const batch = last ? lists : lists.slice(0, UNLINK_BATCH);
    // An If-Match is checked by every batch, so a stale one is refused before any list is unlinked.
    const version = expected?.version;
    const transaction = new LabelledTransaction()
      .add(
        'brand',
        last
          ? brandDelete(teamId, brandId, batch.length, version)
          : counterDown(teamId, brandId, batch.length, version),
      )
      .add('list', ...batch.map((key) => unlinkList(key, brandId, now)));
    if (expected) transaction.add('pointer', pointerIs(teamId, brandId, expected.isDefault === true));
    if (last) {
      transaction.add('quota release', releaseQuota(teamId, 'brands'));
      transaction.add('tombstone', ...deletionStamp(brandKey(teamId, brandId), teamId));
    }
    const cancellation = await transaction.commit();
    if (!cancellation) {
      if (last) return;
      lists = lists.slice(batch.length);
      continue;
    }
    const old = cancellation.oldItem('brand');
    if (cancellation.conditionFailed('brand') && !old) return throwMissing('BRAND', 'Brand', brandId);
    if (expected && (cancellation.conditionFailed('pointer') || old?.version !== expected.version)) {
      throw new PreconditionFailedError();
    }
    // Lists changed since the Query (one was linked, or one of ours changed): find them again.
    if (cancellation.conditionFailed('list') || (old && (old.linked_lists ?? 0) !== batch.length)) {
      lists = undefined;
    }
    await beforeRetry(attempt++, 'brand');
  }
}

/**
 * Moves each team's default-brand pointer from where tables made before it moved keep it (with an
 * `is_default` flag on the brand) to `BRAND#DEFAULT`, marking the brand. Safe to run again and while the
 * API serves: a pointer the API already wrote at the new place is newer and wins. Returns how many teams
 * it moved. Reads the whole table once (a Scan), so it is an operator's command, never a request's.
 */
export async function migrateDefaultPointers(): Promise<{ moved: number; dropped: number }> {
  const counts = { moved: 0, dropped: 0 };
  for await (const legacy of scanSortKey(LEGACY_DEFAULT_BRAND_SK)) {
    counts[(await movePointer(legacy)) ? 'moved' : 'dropped']++;
  }
  return counts;
}

/**
 * Marks each team's default brand as the default at its version (DEFAULT_AT_VERSION), where it was made
 * the default before brands said so: its change events then need no read of the pointer. Only a brand
 * without the mark is written, and not as a new version (nothing a caller sees changes, so no event); a
 * default moved meanwhile wrote the mark itself. Safe to run again. Returns how many it marked. A Scan.
 */
export async function stampDefaultBrands(): Promise<number> {
  let stamped = 0;
  for await (const pointer of scanSortKey(defaultBrandKey(0).sk)) {
    const brandId = pointedId(pointer);
    if (brandId === undefined) continue;
    const teamId = Number(String(pointer.pk).slice('TEAM#'.length));
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: brandKey(teamId, brandId),
          UpdateExpression: 'SET #stated = :true',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#stated)',
          ExpressionAttributeNames: { '#stated': DEFAULT_AT_VERSION },
          ExpressionAttributeValues: { ':true': true },
        }),
      );
      stamped++;
    } catch (error) {
      // Marked already, or deleted (the pointer names a deleted brand): nothing to do.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
  return stamped;
}

/** One team's legacy pointer: moved with its brand marked, or only dropped when it is no longer needed. */
async function movePointer(legacy: Record<string, unknown>): Promise<boolean> {
  const teamId = Number(String(legacy.pk).slice('TEAM#'.length));
  const brandId = pointedId(legacy);
  const dropLegacy: TransactItem = {
    Delete: { TableName: tableName(), Key: { pk: legacy.pk, sk: LEGACY_DEFAULT_BRAND_SK } },
  };
  for (let attempt = 1; brandId !== undefined; attempt++) {
    const transaction = new LabelledTransaction()
      .add('legacy', dropLegacy)
      .add('pointer', {
        Put: {
          TableName: tableName(),
          // Marked: the default did not change, its pointer moved, so it is no change event (change-events.ts).
          Item: { ...defaultBrandKey(teamId), brand_id: brandId, [MOVED_POINTER]: true },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      })
      .add('brand', {
        Update: {
          TableName: tableName(),
          Key: brandKey(teamId, brandId),
          UpdateExpression: `SET may_be_default = :true, ${DEFAULT_AT_VERSION} = :true REMOVE is_default`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':true': true },
        },
      });
    const cancellation = await transaction.commit();
    if (!cancellation) return true;
    // The API has set a newer pointer, or the brand was deleted: nothing to move.
    if (cancellation.conditionFailed('pointer') || cancellation.conditionFailed('brand')) break;
    await beforeRetry(attempt, 'default brand');
  }
  await dynamo().send(new DeleteCommand(dropLegacy.Delete as DeleteCommandInput));
  return false;
}

/** The keys of the lists linked to a brand. One Query. */
async function listsLinkedTo(teamId: number, brandId: number) {
  return queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    FilterExpression: 'brand_id = :brand',
    ProjectionExpression: 'pk, sk',
    ExpressionAttributeValues: { ':pk': teamPk(teamId), ':prefix': LIST_PREFIX, ':brand': brandId },
    ConsistentRead: true,
  });
}

function unlinkList(key: Record<string, unknown>, brandId: number, now: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET brand_id = :none, updated_at = :now',
      ConditionExpression: 'brand_id = :brand',
      ExpressionAttributeValues: { ':none': null, ':now': now, ':brand': brandId },
    },
  };
}

/** `version`: the one an If-Match names, then also required of the brand. */
const versionCondition = (version: number | undefined) =>
  version === undefined
    ? { condition: '', values: {} }
    : { condition: ' AND version = :expected', values: { ':expected': version } };

function counterDown(teamId: number, brandId: number, unlinked: number, version?: number): TransactItem {
  const expected = versionCondition(version);
  return {
    Update: {
      TableName: tableName(),
      Key: brandKey(teamId, brandId),
      UpdateExpression: 'ADD linked_lists :minus',
      ConditionExpression: `attribute_exists(pk)${expected.condition}`,
      ExpressionAttributeValues: { ':minus': -unlinked, ...expected.values },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

function brandDelete(teamId: number, brandId: number, unlinked: number, version?: number): TransactItem {
  const expected = versionCondition(version);
  return {
    Delete: {
      TableName: tableName(),
      Key: brandKey(teamId, brandId),
      ConditionExpression:
        'attribute_exists(pk) AND (attribute_not_exists(linked_lists) OR linked_lists = :unlinked)' +
        expected.condition,
      ExpressionAttributeValues: { ':unlinked': unlinked, ...expected.values },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/**
 * Names the brand as the default, whatever the pointer named before: the last writer wins; `ifNotYet`
 * also requires that it did not name the brand already (an If-Match read it so).
 */
function pointerPut(teamId: number, brandId: number, ifNotYet = false): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...defaultBrandKey(teamId), brand_id: brandId },
      ...(ifNotYet && {
        ConditionExpression: 'attribute_not_exists(brand_id) OR brand_id <> :brand',
        ExpressionAttributeValues: { ':brand': brandId },
      }),
    },
  };
}

/** Requires the pointer to name the brand, or not to: its `is_default` as an If-Match read it. */
function pointerIs(teamId: number, brandId: number, isDefault: boolean): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: defaultBrandKey(teamId),
      ConditionExpression: isDefault
        ? 'brand_id = :brand'
        : 'attribute_not_exists(brand_id) OR brand_id <> :brand',
      ExpressionAttributeValues: { ':brand': brandId },
    },
  };
}

/** Leaves no default, if the pointer still names the brand (otherwise the transaction is retried). */
function pointerDelete(teamId: number, brandId: number): TransactItem {
  return {
    Delete: {
      TableName: tableName(),
      Key: defaultBrandKey(teamId),
      ConditionExpression: 'brand_id = :brand',
      ExpressionAttributeValues: { ':brand': brandId },
    },
  };
}

function addIdentityChecks(
  transaction: LabelledTransaction,
  teamId: number,
  fields: Partial<BrandFields>,
): void {
  if (typeof fields.email_address_id === 'number') {
    transaction.add('email_address_id', verifiedIdentityCheck(teamId, 'email', fields.email_address_id));
  }
  if (typeof fields.phone_id === 'number') {
    transaction.add('phone_id', verifiedIdentityCheck(teamId, 'phone', fields.phone_id));
  }
}

function throwIfIdentityRefused(cancellation: Cancellation): void {
  const errors: Record<string, string[]> = {};
  for (const field of ['email_address_id', 'phone_id']) {
    if (cancellation.conditionFailed(field))
      errors[field] = [`The selected ${field.replaceAll('_', ' ')} is invalid.`];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/** SET of the given attributes and `updated_at`, and a version bump. */
function brandUpdate(attributes: Record<string, unknown>, now: string) {
  const stamp = requestStampUpdate();
  const names: Record<string, string> = { '#updated_at': 'updated_at', '#version': 'version' };
  const values: Record<string, unknown> = { ':updated_at': now, ':one': 1, ...stamp.values };
  const sets = ['#updated_at = :updated_at', ...stamp.set];
  for (const [name, value] of Object.entries(attributes)) {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  return {
    UpdateExpression: `SET ${sets.join(', ')} ADD #version :one${stamp.remove}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * The supplied stored fields, nothing else (the body is validated, but a data module trusts no caller),
 * images as a brand stores them.
 */
function storedFields(teamId: number, changes: BrandChanges): Partial<BrandFields> {
  const fields = Object.fromEntries(
    STORED_FIELDS.filter((field) => changes[field] !== undefined).map((field) => [field, changes[field]]),
  );
  return withImages(fields, (url) => storedImage(teamId, url));
}
