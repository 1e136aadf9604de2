import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { ValidationError } from '../domain/errors.ts';
import { dynamo, type TransactItem, tableName } from './dynamo.ts';
import { queryPages, scanSortKey } from './items.ts';
import {
  BRAND_PREFIX,
  FIELD_PREFIX,
  PAGE_PREFIX,
  SITE_PREFIX,
  teamKey,
  teamPk,
  WEBHOOK_PREFIX,
  webhooksPk,
} from './keys.ts';
import { type Cancellation, type LabelledTransaction, plainItem } from './transactions.ts';

/**
 * Per-team quotas. The team item counts what the team has of each kind (`<kind>_used`) and may hold an
 * override of the deployment's default (`<kind>_quota`, set by the admin CLI). A create takes one unit in
 * its own transaction, conditioned on the count being below the quota, so parallel creates can never
 * overshoot and no round trip is added; a delete gives the unit back in its transaction.
 */
export const QUOTA_KINDS = [
  'brands',
  'contact_fields',
  'sites',
  'pages',
  'webhook_endpoints',
  'uploads',
  'upload_bytes',
] as const;
export type QuotaKind = (typeof QUOTA_KINDS)[number];
/** The kinds that count items of the table (`admin migrate` recounts them); the upload kinds count URLs issued. */
type ItemKind = Exclude<QuotaKind, 'uploads' | 'upload_bytes'>;

const NAMES: Record<QuotaKind, string> = {
  brands: 'brands',
  contact_fields: 'contact fields',
  sites: 'sites',
  pages: 'pages',
  webhook_endpoints: 'webhook endpoints',
  uploads: 'uploads',
  upload_bytes: 'upload bytes',
};

/** The deployment's default quota of a kind (configuration), unless the team has its own. */
const defaultQuota = (kind: QuotaKind): number => config.quotaDefaults()[kind];

/** The transaction item that takes one unit of the team's quota of `kind` (label: `quota`). */
export function takeQuota(transaction: LabelledTransaction, teamId: number, kind: QuotaKind): void {
  const fallback = defaultQuota(kind);
  // Below the quota, a count not written yet being 0: the team's own quota, or the default.
  const belowOwn = '(#used < #quota OR (attribute_not_exists(#used) AND :zero < #quota))';
  const belowDefault =
    fallback > 0 ? '(#used < :default OR attribute_not_exists(#used))' : '#used < :default';
  transaction.add('quota', {
    Update: {
      TableName: tableName(),
      Key: teamKey(teamId),
      UpdateExpression: 'ADD #used :one',
      ConditionExpression:
        `attribute_exists(pk) AND ((attribute_exists(#quota) AND ${belowOwn}) OR ` +
        `(attribute_not_exists(#quota) AND ${belowDefault}))`,
      ExpressionAttributeNames: { '#used': `${kind}_used`, '#quota': `${kind}_quota` },
      ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':default': fallback },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  });
}

/**
 * What `POST /files` takes before it signs a URL, in one UpdateItem on the team item: one upload and the
 * file's `size` bytes, conditioned on both staying within their quotas, so parallel requests can never
 * overshoot either. A condition cannot add, so the bytes left under a team's own quota are kept beside it
 * (`upload_bytes_room`, set with the quota and taken from here); under the default, the used bytes are
 * compared with the default less the size.
 */
export async function takeUploadQuota(teamId: number, size: number): Promise<void> {
  const uploads = defaultQuota('uploads');
  const bytes = defaultQuota('upload_bytes');
  const belowUploads =
    '((attribute_exists(#uq) AND (#u < #uq OR (attribute_not_exists(#u) AND :zero < #uq))) OR ' +
    `(attribute_not_exists(#uq) AND (#u < :uploads${uploads > 0 ? ' OR attribute_not_exists(#u)' : ''})))`;
  const withinBytes =
    '((attribute_exists(#bq) AND #room >= :size) OR ' +
    `(attribute_not_exists(#bq) AND (#b <= :bytesLeft${size <= bytes ? ' OR attribute_not_exists(#b)' : ''})))`;
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: teamKey(teamId),
        UpdateExpression: 'ADD #u :one, #b :size, #room :taken',
        ConditionExpression: `attribute_exists(pk) AND ${belowUploads} AND ${withinBytes}`,
        ExpressionAttributeNames: {
          '#u': 'uploads_used',
          '#uq': 'uploads_quota',
          '#b': 'upload_bytes_used',
          '#bq': 'upload_bytes_quota',
          '#room': UPLOAD_BYTES_ROOM,
        },
        ExpressionAttributeValues: {
          ':one': 1,
          ':zero': 0,
          ':uploads': uploads,
          ':size': size,
          ':taken': -size,
          ':bytesLeft': bytes - size,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const quotas = quotasOf(error.Item ? (plainItem(error.Item) ?? {}) : {});
    if (quotas.uploads.used >= quotas.uploads.limit) {
      throw ValidationError.single(
        'quota',
        `The team has reached its quota of ${quotas.uploads.limit} uploads; ask for a higher quota.`,
      );
    }
    const left = Math.max(0, quotas.upload_bytes.limit - quotas.upload_bytes.used);
    throw ValidationError.single(
      'quota',
      `A file of ${size} bytes does not fit the team's quota of ${quotas.upload_bytes.limit} upload bytes ` +
        `(${left} left); ask for a higher quota.`,
    );
  }
}

/** The bytes left under a team's own upload bytes quota (takeUploadQuota). */
const UPLOAD_BYTES_ROOM = 'upload_bytes_room';

/** The item that gives a unit back (a delete). */
export function releaseQuota(teamId: number, kind: QuotaKind): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: teamKey(teamId),
      UpdateExpression: 'ADD #used :minus',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#used': `${kind}_used` },
      ExpressionAttributeValues: { ':minus': -1 },
    },
  };
}

/** A create refused because the quota is used up: a 422 naming the quota. */
export function throwIfQuotaReached(cancellation: Cancellation, kind: QuotaKind): void {
  if (!cancellation.conditionFailed('quota')) return;
  const team = cancellation.oldItem('quota');
  const limit = Number(team?.[`${kind}_quota`] ?? defaultQuota(kind));
  throw ValidationError.single(
    'quota',
    `The team has reached its quota of ${limit} ${NAMES[kind]}; delete some or ask for a higher quota.`,
  );
}

export interface Quota {
  limit: number;
  used: number;
}

/** Each quota of the team with its usage. One GetItem. */
export async function getQuotas(teamId: number): Promise<Record<QuotaKind, Quota>> {
  const { Item = {} } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: teamKey(teamId), ConsistentRead: true }),
  );
  return quotasOf(Item);
}

/** The quotas and usage a team item records, the deployment's defaults where it has no override. */
export function quotasOf(teamItem: Record<string, unknown>): Record<QuotaKind, Quota> {
  return Object.fromEntries(
    QUOTA_KINDS.map((kind) => [
      kind,
      {
        limit: Number(teamItem[`${kind}_quota`] ?? defaultQuota(kind)),
        used: Number(teamItem[`${kind}_used`] ?? 0),
      },
    ]),
  ) as Record<QuotaKind, Quota>;
}

/** The admin CLI's override of one quota; null returns the team to the deployment's default. */
export async function setQuota(teamId: number, kind: QuotaKind, limit: number | null): Promise<void> {
  // The bytes quota keeps the bytes left under it beside it, in the same write (takeUploadQuota).
  const room = kind === 'upload_bytes' && limit !== null;
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: teamKey(teamId),
      UpdateExpression:
        limit === null
          ? 'REMOVE #quota'
          : `SET #quota = :limit${room ? ', #room = :limit - if_not_exists(#used, :zero)' : ''}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: {
        '#quota': `${kind}_quota`,
        ...(room && { '#room': UPLOAD_BYTES_ROOM, '#used': 'upload_bytes_used' }),
      },
      ...(limit !== null && {
        ExpressionAttributeValues: { ':limit': limit, ...(room && { ':zero': 0 }) },
      }),
    }),
  );
}

/**
 * Where each kind's items are: their partition, and where they sort in it (ids are zero-padded, so
 * `<prefix>0` leaves out the default pointer).
 */
const PREFIXES: Record<ItemKind, { pk: (teamId: number) => string; prefix: string }> = {
  brands: { pk: teamPk, prefix: `${BRAND_PREFIX}0` },
  contact_fields: { pk: teamPk, prefix: `${FIELD_PREFIX}0` },
  sites: { pk: teamPk, prefix: `${SITE_PREFIX}0` },
  pages: { pk: teamPk, prefix: `${PAGE_PREFIX}0` },
  webhook_endpoints: { pk: webhooksPk, prefix: `${WEBHOOK_PREFIX}0` },
};
const ITEM_KINDS = Object.keys(PREFIXES) as ItemKind[];

/**
 * Counts what every team has of each kind of item and writes the counts (`admin migrate`: tables made
 * before quotas have none); the upload kinds count URLs issued, which nothing else records, and stay. A
 * create or delete racing the count may leave it off by one until the next run.
 * Reads the whole table's team items (a Scan) and one COUNT Query per team and kind: an operator's command.
 */
export async function recountUsage(): Promise<number> {
  let teams = 0;
  for await (const team of scanSortKey('TEAM', 'id')) {
    const teamId = team.id as number;
    const counts = await Promise.all(
      ITEM_KINDS.map((kind) => countItems(PREFIXES[kind].pk(teamId), PREFIXES[kind].prefix)),
    );
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: teamKey(teamId),
        UpdateExpression: `SET ${ITEM_KINDS.map((_, i) => `#k${i} = :v${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(ITEM_KINDS.map((kind, i) => [`#k${i}`, `${kind}_used`])),
        ExpressionAttributeValues: Object.fromEntries(counts.map((count, i) => [`:v${i}`, count])),
      }),
    );
    teams++;
  }
  return teams;
}

async function countItems(pk: string, prefix: string): Promise<number> {
  let count = 0;
  const pages = queryPages({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
    Select: 'COUNT',
    ConsistentRead: true,
  });
  for await (const page of pages) count += page.count;
  return count;
}
