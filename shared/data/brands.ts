import { type AttributeValue, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { byNameThenId } from '../domain/ordering.ts';
import { ValidationError } from '../http/errors.ts';
import { dynamo, nowIso, type TransactItem, tableName } from './dynamo.ts';
import { verifiedIdentityCheck } from './identities.ts';
import { nextId } from './ids.ts';
import { queryAll, throwMissing } from './items.ts';
import { BRAND_PREFIX, brandKey, defaultBrandKey, idIndexKeys, LIST_PREFIX, teamPk } from './keys.ts';
import { beforeRetry, type Cancellation, type GuardedItem, LabelledTransaction } from './transactions.ts';

/**
 * Brands. The team's default brand is named by one pointer item per team (`DEFAULT_BRAND`); the brand it
 * names carries `is_default = true`, and every change of either happens in one transaction conditioned on
 * the pointer, so at most one brand is ever the default. `linked_lists` counts the lists that reference a
 * brand, so a delete can prove that it nulled every one of them. `version` grows with every write of the
 * brand's own fields, so a write computed from a read can be conditioned on nothing having changed since.
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

const WRITABLE_FIELDS = [
  'name',
  'short_description',
  'website_url',
  'primary_color',
  'secondary_color',
  'is_default',
  'logo_image',
  'logo_square_image',
  'header_image',
  'footer_image',
  'social_share_image',
  'email_address_id',
  'phone_id',
  'social_links',
  'tags',
] as const satisfies ReadonlyArray<keyof BrandChanges>;

const UNLINK_BATCH = 99; // + the brand's link counter = 100 items, DynamoDB's cap
const LAST_UNLINK_BATCH = 98; // + the brand's delete + the default pointer's delete

/** The id of the team's default brand, if it has one (strongly consistent). */
export async function getDefaultBrandId(teamId: number): Promise<number | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: defaultBrandKey(teamId), ConsistentRead: true }),
  );
  return Item?.brand_id ?? undefined;
}

/** The response shape, in the order of spec 2.1; keys and internal counters stay behind. */
function fromItem(item: Record<string, unknown>): Brand {
  const stored = item as Partial<Brand>;
  return {
    id: stored.id as number,
    team_id: stored.team_id as number,
    name: stored.name as string,
    short_description: stored.short_description ?? null,
    website_url: stored.website_url ?? null,
    primary_color: stored.primary_color ?? null,
    secondary_color: stored.secondary_color ?? null,
    is_default: stored.is_default === true,
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

/** The team's brands ordered by name, ties by id. One Query. */
export async function listBrands(teamId: number): Promise<Brand[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': teamPk(teamId), ':prefix': BRAND_PREFIX },
    ConsistentRead: true,
  });
  return items.map(fromItem).sort(byNameThenId);
}

/** One of the team's brands; 403 if it is another team's, 404 if nobody's. One GetItem. */
export async function getBrand(teamId: number, brandId: number): Promise<Brand> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: brandKey(teamId, brandId), ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : throwMissing('BRAND', 'Brand', brandId);
}

/**
 * Creates a brand in one transaction with its identity checks and `extraItems` (an idempotency record's
 * completion). As the default it also takes over the pointer: the first attempt assumes the team has no
 * default, and a failed pointer condition returns the real one (ALL_OLD) for the second attempt.
 */
export async function createBrand(
  teamId: number,
  input: NewBrand,
  extraItems: (brand: Brand) => GuardedItem[] = () => [],
): Promise<Brand> {
  const now = nowIso();
  const brand = fromItem({
    ...input,
    id: await nextId('brand'),
    team_id: teamId,
    created_at: now,
    updated_at: now,
  });
  let currentDefaultId: number | undefined;
  for (let attempt = 1; ; attempt++) {
    const transaction = new LabelledTransaction().add('brand', {
      Put: {
        TableName: tableName(),
        Item: { ...brandKey(teamId, brand.id), ...idIndexKeys('BRAND', brand.id), ...brand, version: 1 },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
    addIdentityChecks(transaction, teamId, brand);
    if (brand.is_default) addDefaultSwitch(transaction, teamId, brand.id, true, currentDefaultId, now);
    transaction.guard(extraItems(brand));
    const cancellation = await transaction.commit();
    if (!cancellation) return brand;
    throwIfIdentityRefused(cancellation);
    if (!cancellation.conditionFailed('pointer') && !cancellation.conflicted()) throw cancellation.error;
    const learned = cancellation.conditionFailed('pointer');
    if (learned) currentDefaultId = pointedBrandId(cancellation.oldItem('pointer'));
    await beforeRetry(attempt, 'brand', learned);
  }
}

/**
 * Applies the supplied fields. Without a default or identity change: one UpdateItem. Otherwise the brand
 * and the pointer are read (one BatchGetItem) and the change is one transaction conditioned on both being
 * as read: the pointer moves, the previous default loses its flag, the identities are checked.
 */
export async function updateBrand(teamId: number, brandId: number, changes: BrandChanges): Promise<Brand> {
  const fields = definedFields(changes);
  if (Object.keys(fields).length === 0) return getBrand(teamId, brandId);
  const namesIdentity = typeof fields.email_address_id === 'number' || typeof fields.phone_id === 'number';
  if (fields.is_default === undefined && !namesIdentity) return updateInPlace(teamId, brandId, fields);
  return updateInTransaction(teamId, brandId, fields);
}

async function updateInPlace(teamId: number, brandId: number, fields: BrandChanges): Promise<Brand> {
  const update = brandUpdate(fields, nowIso());
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: brandKey(teamId, brandId),
        ...update,
        ConditionExpression: 'attribute_exists(pk)',
        ReturnValues: 'ALL_NEW',
      }),
    );
    return fromItem(Attributes ?? {});
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return throwMissing('BRAND', 'Brand', brandId);
    throw error;
  }
}

async function updateInTransaction(teamId: number, brandId: number, fields: BrandChanges): Promise<Brand> {
  for (let attempt = 1; ; attempt++) {
    // Read again on every attempt: what a failed condition returned is stale after the back-off.
    const read = await readBrandAndDefault(teamId, brandId);
    if (read && !read.item) return throwMissing('BRAND', 'Brand', brandId);
    if (read?.item) {
      const current = fromItem(read.item);
      const now = nowIso();
      const isDefault = fields.is_default ?? current.is_default;
      const update = brandUpdate({ ...fields, is_default: isDefault }, now);
      const transaction = new LabelledTransaction().add('brand', {
        Update: {
          TableName: tableName(),
          Key: brandKey(teamId, brandId),
          ...update,
          ConditionExpression: '#version = :version',
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':version': read.item.version },
        },
      });
      addIdentityChecks(transaction, teamId, fields);
      addDefaultSwitch(transaction, teamId, brandId, isDefault, read.defaultId, now);
      const cancellation = await transaction.commit();
      if (!cancellation) return { ...current, ...fields, is_default: isDefault, updated_at: now };
      throwIfIdentityRefused(cancellation);
    }
    await beforeRetry(attempt, 'brand');
  }
}

/** The brand item and the default pointer, strongly consistent; undefined when DynamoDB left keys unread. */
async function readBrandAndDefault(teamId: number, brandId: number) {
  const { Responses, UnprocessedKeys } = await dynamo().send(
    new BatchGetCommand({
      RequestItems: {
        [tableName()]: { Keys: [brandKey(teamId, brandId), defaultBrandKey(teamId)], ConsistentRead: true },
      },
    }),
  );
  if (Object.keys(UnprocessedKeys ?? {}).length > 0) return undefined;
  const items = Responses?.[tableName()] ?? [];
  const pointer = items.find((item) => item.sk === defaultBrandKey(teamId).sk);
  return {
    item: items.find((item) => item.sk === brandKey(teamId, brandId).sk),
    defaultId: pointer?.brand_id as number | undefined,
  };
}

/**
 * Deletes a brand for good. Every list that names it keeps existing with `brand_id` null: the lists are
 * found with one Query and unlinked 99 per transaction (each also lowers the brand's link counter); the
 * last transaction unlinks the rest and deletes the brand only if its counter says no other list links it,
 * so a list linked meanwhile sends us back to the Query. The default brand also clears the pointer, which
 * the same Query finds; if the default changes meanwhile, the transaction fails with the brand as it is
 * (ALL_OLD) and is retried. Two round trips plus one per 99 lists.
 */
export async function deleteBrand(teamId: number, brandId: number): Promise<void> {
  let isDefault = false;
  let lists: Array<Record<string, unknown>> | undefined;
  for (let attempt = 1; ; ) {
    if (!lists) {
      const linked = await itemsLinkedTo(teamId, brandId);
      const pointer = defaultBrandKey(teamId).sk;
      isDefault = linked.some((item) => item.sk === pointer);
      lists = linked.filter((item) => item.sk !== pointer);
    }
    const now = nowIso();
    const last = lists.length <= LAST_UNLINK_BATCH;
    const batch = last ? lists : lists.slice(0, UNLINK_BATCH);
    const transaction = new LabelledTransaction()
      .add(
        'brand',
        last
          ? brandDelete(teamId, brandId, batch.length, isDefault)
          : counterDown(teamId, brandId, batch.length),
      )
      .add('list', ...batch.map((key) => unlinkList(key, brandId, now)));
    if (last && isDefault) transaction.add('pointer', pointerDelete(teamId, brandId));
    const cancellation = await transaction.commit();
    if (!cancellation) {
      if (last) return;
      lists = lists.slice(batch.length);
      continue;
    }
    const old = cancellation.oldItem('brand');
    if (cancellation.conditionFailed('brand') && !old) return throwMissing('BRAND', 'Brand', brandId);
    const learned = old !== undefined && (old.is_default?.BOOL === true) !== isDefault;
    if (old) isDefault = old.is_default?.BOOL === true;
    // Lists changed since the Query (one was linked, or one of ours changed): find them again.
    if (cancellation.conditionFailed('list') || (old && Number(old.linked_lists?.N ?? 0) !== batch.length)) {
      lists = undefined;
    }
    await beforeRetry(attempt++, 'brand', learned);
  }
}

/** The keys of the lists linked to a brand, and of the default pointer if it names the brand. One Query. */
async function itemsLinkedTo(teamId: number, brandId: number) {
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

function counterDown(teamId: number, brandId: number, unlinked: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: brandKey(teamId, brandId),
      UpdateExpression: 'ADD linked_lists :minus',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':minus': -unlinked },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

function brandDelete(teamId: number, brandId: number, unlinked: number, isDefault: boolean): TransactItem {
  return {
    Delete: {
      TableName: tableName(),
      Key: brandKey(teamId, brandId),
      ConditionExpression:
        'attribute_exists(pk) AND is_default = :isDefault AND ' +
        '(attribute_not_exists(linked_lists) OR linked_lists = :unlinked)',
      ExpressionAttributeValues: { ':isDefault': isDefault, ':unlinked': unlinked },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

function pointerDelete(teamId: number, brandId: number): TransactItem {
  return {
    Delete: {
      TableName: tableName(),
      Key: defaultBrandKey(teamId),
      ConditionExpression: 'brand_id = :brand',
      ExpressionAttributeValues: { ':brand': brandId },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/**
 * The pointer items of making `brandId` the default or not, given the default as last seen: the pointer
 * write is conditioned on that value, so a concurrent change of the default cancels the transaction.
 */
function addDefaultSwitch(
  transaction: LabelledTransaction,
  teamId: number,
  brandId: number,
  isDefault: boolean,
  currentDefaultId: number | undefined,
  now: string,
): void {
  if (isDefault && currentDefaultId !== brandId) {
    transaction.add('pointer', {
      Put: {
        TableName: tableName(),
        Item: { ...defaultBrandKey(teamId), brand_id: brandId },
        ConditionExpression:
          currentDefaultId === undefined ? 'attribute_not_exists(brand_id)' : 'brand_id = :previous',
        ...(currentDefaultId !== undefined && {
          ExpressionAttributeValues: { ':previous': currentDefaultId },
        }),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    });
    if (currentDefaultId !== undefined) {
      transaction.add('previous', {
        Update: {
          TableName: tableName(),
          Key: brandKey(teamId, currentDefaultId),
          ...brandUpdate({ is_default: false }, now),
          ConditionExpression: 'attribute_exists(pk)',
        },
      });
    }
  } else if (!isDefault && currentDefaultId === brandId) {
    transaction.add('pointer', pointerDelete(teamId, brandId));
  }
}

function pointedBrandId(pointer: Record<string, AttributeValue> | undefined): number | undefined {
  const id = pointer?.brand_id?.N;
  return id === undefined ? undefined : Number(id);
}

function addIdentityChecks(transaction: LabelledTransaction, teamId: number, fields: BrandChanges): void {
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

/** SET of the given fields and `updated_at`, and a version bump. */
function brandUpdate(fields: BrandChanges, now: string) {
  const names: Record<string, string> = { '#updated_at': 'updated_at', '#version': 'version' };
  const values: Record<string, unknown> = { ':updated_at': now, ':one': 1 };
  const sets = ['#updated_at = :updated_at'];
  for (const field of WRITABLE_FIELDS) {
    if (fields[field] === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = fields[field];
    sets.push(`#${field} = :${field}`);
  }
  return {
    UpdateExpression: `SET ${sets.join(', ')} ADD #version :one`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

function definedFields(changes: BrandChanges): BrandChanges {
  return Object.fromEntries(
    WRITABLE_FIELDS.filter((field) => changes[field] !== undefined).map((field) => [field, changes[field]]),
  );
}
