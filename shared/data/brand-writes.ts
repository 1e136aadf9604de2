import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type Brand,
  type BrandChanges,
  type BrandFields,
  IDENTITY_FIELDS,
  type NewBrand,
} from '../domain/brand.ts';
import { PreconditionFailedError, ValidationError } from '../domain/errors.ts';
import { renderedImage, storedImage } from '../domain/public-urls.ts';
import type { VersionTag } from '../domain/version-tag.ts';
import {
  addDefaultMove,
  DEFAULT_AT_VERSION,
  type Loser,
  learnedLoser,
  MAX_DEFAULT_MOVES,
  oneMoveAtATime,
  pointerDelete,
  pointerIs,
  readPointer,
} from './brand-default.ts';
import { brandUpdate, fromItem, shapeOf, storedFields, withImages } from './brand-items.ts';
import { restoreBrand } from './brand-undos.ts';
import { type BrandUpdate, checkExpected, getBrand, readBrandAndPointer } from './brands.ts';
import { dynamo, nowIso, tableName } from './dynamo.ts';
import { verifiedIdentityCheck } from './identities.ts';
import { nextId } from './ids.ts';
import { requestStamp, throwMissing } from './items.ts';
import { brandKey, idIndexKeys } from './keys.ts';
import { takeQuota, throwIfQuotaReached } from './quotas.ts';
import {
  beforeRetry,
  type Cancellation,
  type GuardedItem,
  LabelledTransaction,
  plainItem,
} from './transactions.ts';

/**
 * Brands: their creates and updates (each undone by brand-undos.ts when a brand image copy fails after the
 * write, files/brand-images.ts). A write that makes a brand the default also writes the pointer and
 * the brand that loses it (brand-default.ts).
 */

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
  const namesIdentity = IDENTITY_FIELDS.some(({ field }) => typeof fields[field] === 'number');
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

/** Each identity id written is checked: it must name a verified identity of the team. */
function addIdentityChecks(
  transaction: LabelledTransaction,
  teamId: number,
  fields: Partial<BrandFields>,
): void {
  for (const { field, identity } of IDENTITY_FIELDS) {
    const identityId = fields[field];
    if (typeof identityId === 'number')
      transaction.add(field, verifiedIdentityCheck(teamId, identity, identityId));
  }
}

function throwIfIdentityRefused(cancellation: Cancellation): void {
  const errors: Record<string, string[]> = {};
  for (const { field } of IDENTITY_FIELDS) {
    if (cancellation.conditionFailed(field))
      errors[field] = [`The selected ${field.replaceAll('_', ' ')} is invalid.`];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}
