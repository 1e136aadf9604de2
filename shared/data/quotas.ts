import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { ValidationError } from '../http/errors.ts';
import { dynamo, type TransactItem, tableName } from './dynamo.ts';
import { scanSortKey } from './items.ts';
import {
  BRAND_PREFIX,
  FIELD_PREFIX,
  PAGE_PREFIX,
  SITE_PREFIX,
  teamKey,
  teamPk,
  WEBHOOK_PREFIX,
} from './keys.ts';
import type { Cancellation, LabelledTransaction } from './transactions.ts';

/**
 * Per-team quotas. The team item counts what the team has of each kind (`<kind>_used`) and may hold an
 * override of the deployment's default (`<kind>_quota`, set by the admin CLI). A create takes one unit in
 * its own transaction, conditioned on the count being below the quota, so parallel creates can never
 * overshoot and no round trip is added; a delete gives the unit back in its transaction.
 */
export const QUOTA_KINDS = ['brands', 'contact_fields', 'sites', 'pages', 'webhook_endpoints'] as const;
export type QuotaKind = (typeof QUOTA_KINDS)[number];

const NAMES: Record<QuotaKind, string> = {
  brands: 'brands',
  contact_fields: 'contact fields',
  sites: 'sites',
  pages: 'pages',
  webhook_endpoints: 'webhook endpoints',
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
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: teamKey(teamId),
      UpdateExpression: limit === null ? 'REMOVE #quota' : 'SET #quota = :limit',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#quota': `${kind}_quota` },
      ...(limit !== null && { ExpressionAttributeValues: { ':limit': limit } }),
    }),
  );
}

/** Where each kind's items sort (ids are zero-padded, so `<prefix>0` leaves out the default pointer). */
const PREFIXES: Record<QuotaKind, string> = {
  brands: `${BRAND_PREFIX}0`,
  contact_fields: `${FIELD_PREFIX}0`,
  sites: `${SITE_PREFIX}0`,
  pages: `${PAGE_PREFIX}0`,
  webhook_endpoints: `${WEBHOOK_PREFIX}0`,
};

/**
 * Counts what every team has of each kind and writes the counts (`admin migrate`: tables made before
 * quotas have none). A create or delete racing the count may leave it off by one until the next run.
 * Reads the whole table's team items (a Scan) and one COUNT Query per team and kind: an operator's command.
 */
export async function recountUsage(): Promise<number> {
  let teams = 0;
  for await (const team of scanSortKey('TEAM', 'id')) {
    const teamId = team.id as number;
    const counts = await Promise.all(QUOTA_KINDS.map((kind) => countItems(teamId, PREFIXES[kind])));
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: teamKey(teamId),
        UpdateExpression: `SET ${QUOTA_KINDS.map((_, i) => `#k${i} = :v${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(
          QUOTA_KINDS.map((kind, i) => [`#k${i}`, `${kind}_used`]),
        ),
        ExpressionAttributeValues: Object.fromEntries(counts.map((count, i) => [`:v${i}`, count])),
      }),
    );
    teams++;
  }
  return teams;
}

async function countItems(teamId: number, prefix: string): Promise<number> {
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': teamPk(teamId), ':prefix': prefix },
        Select: 'COUNT',
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    count += page.Count ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}
