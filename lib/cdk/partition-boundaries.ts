import { partitionPattern } from '../../shared/data/keys.ts';
import { TABLE_SCHEMA } from '../../shared/data/table-schema.ts';
import {
  authorizer,
  type Route,
  routes,
  streamConsumer,
  type TableAccess,
  webhookDelivery,
} from '../../shared/routes.ts';

/**
 * What each function may do with the single table, as IAM statements: the route table's (and the other
 * functions') `table` declarations made into actions bounded by `dynamodb:LeadingKeys` (StringLike patterns
 * of partition keys: shared/data/keys.ts PARTITION_KINDS). The stack grants exactly these (grants.ts);
 * test/support/key-observer.ts holds every key each function's code touches in the suite to them
 * (DynamoDB Local enforces no IAM).
 */
export interface TableStatement {
  actions: readonly string[];
  /** The partition keys it may name (the table's statements), or the index it may query. */
  partitions?: readonly string[];
  index?: string;
}

/** IAM actions behind reads and writes (transactions need the per-item actions). */
export const TABLE_READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
];
export const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

/** Read actions on what it reads, write actions on what it writes, Query on each index it names. */
export function tableStatements(access: TableAccess | undefined): TableStatement[] {
  if (!access) return [];
  const bounded = (actions: string[], partitions: TableAccess['reads']): TableStatement[] =>
    partitions?.length ? [{ actions, partitions: partitions.map(partitionPattern) }] : [];
  return [
    ...bounded(TABLE_READ_ACTIONS, access.reads),
    ...bounded(TABLE_WRITE_ACTIONS, access.writes),
    ...(access.indexes ?? []).map((index) => ({
      actions: ['dynamodb:Query'],
      index: TABLE_SCHEMA[index].name,
    })),
  ];
}

/** Every function's table access, by its handler file: the routes', the authorizer's and the background ones'. */
export function tableAccessByHandler(): Map<string, TableAccess | undefined> {
  return new Map<string, TableAccess | undefined>([
    ...routes.map((route: Route) => [route.handler, route.table] as const),
    [authorizer.handler, authorizer.table],
    [streamConsumer.handler, streamConsumer.table],
    [webhookDelivery.deliverer.handler, webhookDelivery.deliverer.table],
    [webhookDelivery.sweeper.handler, webhookDelivery.sweeper.table],
  ]);
}

/**
 * The authorizer runs on every request and holds every team's tokens: of a token it may change one
 * attribute only (when it was last used, at most once a day), and GetItem is all it reads with.
 */
export const AUTHORIZER_UPDATABLE_ATTRIBUTES = ['last_used_on'] as const;

/**
 * The attributes an UpdateItem bounded to `updatable` may name (`dynamodb:Attributes`): those, and the
 * table's key attributes, which every request names (AWS: a policy with `dynamodb:Attributes` must list the
 * primary key's attributes).
 */
export const updatableWith = (updatable: readonly string[]): string[] => [
  TABLE_SCHEMA.partitionKey,
  TABLE_SCHEMA.sortKey,
  ...updatable,
];

/** The `ReturnValues` such an update may ask for: none of the item's other attributes come back. */
export const BOUNDED_RETURN_VALUES = ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'];

/** Whether a partition key matches one of a boundary's patterns (IAM StringLike: `*` is any characters). */
export function withinPartitions(pk: string, partitions: readonly string[]): boolean {
  return partitions.some((pattern) =>
    new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`).test(pk),
  );
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
