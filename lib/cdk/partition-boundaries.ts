import { autoConfigurePk, endpointPk, eventsPk, tokenKey, webhooksPk } from '../../shared/data/keys.ts';
import { TABLE_SCHEMA } from '../../shared/data/table-schema.ts';
import type { Route } from '../../shared/routes.ts';

/**
 * The partitions of the table a function may touch, where it is bounded at all: IAM conditions on the
 * partition key (`dynamodb:LeadingKeys`), so that a function that talks to third parties, or holds every
 * team's tokens, reads and writes only its own kinds of item. The stack grants these (grants.ts) and
 * test/least-privilege.test.ts checks that the code touches nothing else (DynamoDB Local enforces no IAM).
 */

/** `EVENTS#7` -> `EVENTS#*`: every partition of a kind, by its key's prefix (keys.ts makes the keys). */
const everyPartitionLike = (pk: string): string => `${pk.slice(0, pk.indexOf('#') + 1)}*`;

export interface PartitionBoundary {
  /** `dynamodb:LeadingKeys` patterns (StringLike): the partition keys it may name. */
  partitions: readonly string[];
  /** The only attributes its UpdateItem may name, when bounded so (`dynamodb:Attributes`). */
  updatableAttributes?: readonly string[];
}

export const PARTITION_BOUNDARIES = {
  /**
   * The TOKEN authorizer runs on every request and reads tokens only: their items, and of them it may
   * change one attribute only (`updatableAttributes`: when the token was last used, at most once a day).
   */
  authorizer: {
    partitions: [everyPartitionLike(tokenKey('').pk)],
    updatableAttributes: ['last_used_on'],
  },
  /**
   * The webhook deliverer sends to hosts a caller chooses: the team's endpoints and sender leases, the
   * endpoints' deliveries and attempts, the events it sends; never a team's brands, fields, tokens or
   * Idempotency-Key records.
   */
  deliverer: { partitions: [webhooksPk(0), endpointPk(0, 0), eventsPk(0)].map(everyPartitionLike) },
  /** The sweeper (and the deliverer's on-failure destination) writes due deliveries only. */
  sweeper: { partitions: [everyPartitionLike(endpointPk(0, 0))] },
  /**
   * Auto-configure fetches pages a caller chooses: it takes and lets go its team's slots, and reaches no
   * brand, field, token or webhook (a route row names it: shared/routes.ts `partitions`).
   */
  autoConfigureSlots: { partitions: [everyPartitionLike(autoConfigurePk(0))] },
} as const satisfies Record<string, PartitionBoundary> &
  Record<NonNullable<Route['partitions']>, PartitionBoundary>;

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
