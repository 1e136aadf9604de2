import type { Brand } from '../domain/brand.ts';
import { logger } from '../telemetry.ts';
import { DEFAULT_AT_VERSION, pointerDelete, pointerPut, pointerPutIfNames } from './brand-default.ts';
import { brandUpdate } from './brand-items.ts';
import { nowIso, type TransactItem, tableName } from './dynamo.ts';
import { deletionStamp } from './items.ts';
import { brandKey } from './keys.ts';
import { releaseQuota } from './quotas.ts';
import { LabelledTransaction } from './transactions.ts';

/**
 * Brands: the undoing of a create or an update, what a brand image copy that fails after the write runs
 * (files/brand-images.ts). Each is conditioned on nothing having written the brand since.
 */

/**
 * Writes `fields` of the brand back as `previous` held them, and the pointer back to what it named
 * `before` when the write moved it, as one transaction and only if the brand is still at `written` (the
 * undone write's version): a later write is kept. It reads as before but for its version (a new one, so
 * no ETag names both states) and its `updated_at`: the undoing is a write of its own, so its time (and its
 * change event's) comes after the write it undoes, as its version does.
 */
export async function restoreBrand(
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
