/**
 * The single-table layout on one page: every key the data modules read or write.
 *
 *   pk                   sk                                        what
 *   TEAM#<team>          TEAM                                      the team, its quotas and usage (quotas.ts)
 *   TEAM#<team>          BRAND#<brand, 12 digits>                  a brand
 *   TEAM#<team>          BRAND#DEFAULT                             the default-brand pointer (brand-default.ts)
 *   TEAM#<team>          LIST#<list, 12 digits>                    an email, SMS or push list
 *   TEAM#<team>          FIELD#<field, 12 digits>                  a contact field
 *   TEAM#<team>          FIELDTAG#<tag>                            a tag's claim, unique per team
 *   TEAM#<team>          SITE#<site, 12 digits>                    a CMS site
 *   TEAM#<team>          PAGE#<page, 12 digits>                    a CMS page
 *   TEAM#<team>          IDENTITY#<identity, 12 digits>            a sender identity
 *   TEAM#<team>          IDEMPOTENCY#<method> <route>#<sha256>     an Idempotency-Key record (TTL)
 *   TEAM#<team>          TOMBSTONE#<the deleted item's sk>         the request that deleted a brand or field
 *                                                                  (TTL): its change event names it
 *   WEBHOOKS#<team>      WEBHOOK#<endpoint, 12 digits>             a webhook endpoint with its secrets: a
 *                                                                  partition of its own, so that the deliverer
 *                                                                  (which sends to hosts a caller chooses) is
 *                                                                  granted it and never the team's other items
 *                                                                  (lib/cdk/partition-boundaries.ts)
 *   ENDPOINT#<team>#<endpoint>  DELIVERY#<event position>          an event's delivery to an endpoint (TTL);
 *                                                                  while due later, in the `byDueTime` index
 *                                                                  under `gsi2pk = DUE#<shard>`
 *                                                                  (webhook-deliveries/); a partition key
 *                                                                  per endpoint: its deliveries never share
 *                                                                  the team's partition
 *   ENDPOINT#<team>#<endpoint>  ATTEMPT#<ms, 13 digits>#<event position>   one delivery attempt (TTL)
 *   ENDPOINT#<team>#<endpoint>  PARKED#<event position>            a retry parked while the endpoint is
 *                                                                  disabled: enabling it makes it due again
 *   WEBHOOKS#<team>      SENDERS                                   which of the team's endpoints a deliverer
 *                                                                  is sending to now (webhook-senders.ts):
 *                                                                  one item, so the team's bound is one
 *                                                                  conditional write; two writes per run
 *                                                                  that takes a lease, none on a healthy
 *                                                                  endpoint's first tries
 *   AUTOCONFIGURE#<team> SLOTS                                     the team's auto-configure calls fetching
 *                                                                  now (auto-configure-slots.ts): one item,
 *                                                                  so the team's share is one conditional
 *                                                                  write; a partition of its own, the only
 *                                                                  one auto-configure (which fetches pages a
 *                                                                  caller chooses) is granted
 *   EVENTS#<team>        EVENT#<seconds>#<sequence>#<ordinal>      a change event (TTL, events.ts): a partition
 *                                                                  of its own, so the log's writes do not take
 *                                                                  the team's partition's write units
 *   TOKEN#<sha256>       TOKEN                                     an API token, stored hashed, with its id,
 *                                                                  name, first characters, scopes, expiry
 *                                                                  and the UTC day it was last used
 *   TOKEN#<sha256>       REVOKED                                   a revoked token's record: when, so that
 *                                                                  revoking it again says so (admin CLI);
 *                                                                  in the id index under `REVOKEDTOKENS#<team>`
 *   SEQ#<sequence>       SEQ                                       an id sequence (ids.ts)
 *
 * Ids are zero-padded so sort keys sort numerically. Brands, fields, sites, pages and webhook endpoints are also in the `byId`
 * index (`gsi1pk = <KIND>#<id>`), which tells another team's id (403) from none (404). A team's tokens are
 * listed there under `gsi1pk = TOKENS#<team>`, `gsi1sk = TOKEN#<token, 12 digits>` (tokens made before
 * they had ids: `TOKEN`, until `admin migrate` numbers them), so that the admin CLI lists them, finds one by
 * id and reaches each of them.
 */

/** Fixed-width ids in sort keys so that they sort numerically. */
export const padId = (id: number): string => String(id).padStart(12, '0');

export const teamPk = (teamId: number): string => `TEAM#${teamId}`;
/** A team's event log, apart from its other items (`admin migrate` moves logs kept under `TEAM#`). */
export const eventsPk = (teamId: number): string => `EVENTS#${teamId}`;
/**
 * A team's webhook endpoints and its sender leases, apart from its other items: the deliverer reads and
 * writes these and no other of the team's (`admin migrate` moves endpoints kept under `TEAM#`).
 */
export const webhooksPk = (teamId: number): string => `WEBHOOKS#${teamId}`;

const teamItem = (teamId: number, sk: string) => ({ pk: teamPk(teamId), sk });

export const BRAND_PREFIX = 'BRAND#';
export const LIST_PREFIX = 'LIST#';
export const FIELD_PREFIX = 'FIELD#';
export const PAGE_PREFIX = 'PAGE#';
export const SITE_PREFIX = 'SITE#';
export const IDEMPOTENCY_PREFIX = 'IDEMPOTENCY#';
export const EVENT_PREFIX = 'EVENT#';
export const WEBHOOK_PREFIX = 'WEBHOOK#';
export const DELIVERY_PREFIX = 'DELIVERY#';
export const ATTEMPT_PREFIX = 'ATTEMPT#';

export const teamKey = (teamId: number) => teamItem(teamId, 'TEAM');
export const brandKey = (teamId: number, brandId: number) =>
  teamItem(teamId, `${BRAND_PREFIX}${padId(brandId)}`);
export const listKey = (teamId: number, listId: number) => teamItem(teamId, `${LIST_PREFIX}${padId(listId)}`);
/** The default-brand pointer sorts after every brand id: listing the brands reads it with them. */
export const defaultBrandKey = (teamId: number) => teamItem(teamId, `${BRAND_PREFIX}DEFAULT`);
/** Where tables made before the pointer moved keep it (`npm run admin -- migrate` moves it). */
export const LEGACY_DEFAULT_BRAND_SK = `${LIST_PREFIX}DEFAULT_BRAND`;
export const fieldKey = (teamId: number, fieldId: number) =>
  teamItem(teamId, `${FIELD_PREFIX}${padId(fieldId)}`);
export const tagKey = (teamId: number, tag: string) => teamItem(teamId, `FIELDTAG#${tag}`);
export const siteKey = (teamId: number, siteId: number) => teamItem(teamId, `${SITE_PREFIX}${padId(siteId)}`);
export const pageKey = (teamId: number, pageId: number) => teamItem(teamId, `${PAGE_PREFIX}${padId(pageId)}`);
export const identityKey = (teamId: number, identityId: number) =>
  teamItem(teamId, `IDENTITY#${padId(identityId)}`);
/**
 * Tables made before endpoints had their own partition keep them under the team's (`TEAM#<team>`, same sort
 * key), unseen until `npm run admin -- migrate` moves them (moveWebhookEndpoints).
 */
export const webhookEndpointKey = (teamId: number, endpointId: number) => ({
  pk: webhooksPk(teamId),
  sk: `${WEBHOOK_PREFIX}${padId(endpointId)}`,
});
/**
 * An endpoint's deliveries and attempts: a partition key of its own, so that a team's brand and field
 * writes and its endpoints' delivery bookkeeping never share a partition's 1,000 write units a second.
 */
export const endpointPk = (teamId: number, endpointId: number): string => `ENDPOINT#${teamId}#${endpointId}`;
/** Where an endpoint's delivery items are: its partition key, and the sort key prefix the event position follows. */
export const endpointDeliveries = (teamId: number, endpointId: number): { pk: string; skPrefix: string } => ({
  pk: endpointPk(teamId, endpointId),
  skPrefix: DELIVERY_PREFIX,
});
/** Where an endpoint's attempt items are (the attempt's time and event position follow the prefix). */
export const endpointAttempts = (teamId: number, endpointId: number): { pk: string; skPrefix: string } => ({
  pk: endpointPk(teamId, endpointId),
  skPrefix: ATTEMPT_PREFIX,
});
/** An endpoint's deliveries sort by event (time first), so `recover` reads those since a time. */
export const deliveryKey = (teamId: number, endpointId: number, eventPosition: string) => ({
  pk: endpointPk(teamId, endpointId),
  sk: `${DELIVERY_PREFIX}${eventPosition}`,
});
/** An endpoint's attempts sort by time: its attempt list reads them newest first. */
export const attemptKey = (teamId: number, endpointId: number, atMs: number, eventPosition: string) => ({
  pk: endpointPk(teamId, endpointId),
  sk: `${ATTEMPT_PREFIX}${String(atMs).padStart(13, '0')}#${eventPosition}`,
});
/** A retry parked while its endpoint is disabled (webhook-deliveries/restarts.ts, parkDelivery). */
export const PARKED_PREFIX = 'PARKED#';
export const parkedKey = (teamId: number, endpointId: number, eventPosition: string) => ({
  pk: endpointPk(teamId, endpointId),
  sk: `${PARKED_PREFIX}${eventPosition}`,
});
/**
 * Where tables made before deliveries moved to the endpoint's partition keep them: under the team's, with
 * the endpoint in the sort key (`DELIVERY#<endpoint, 12 digits>#<event position>`, the same for attempts);
 * `npm run admin -- migrate` moves them.
 */
export const LEGACY_ENDPOINT_ITEM = /^(DELIVERY#|ATTEMPT#)(\d{12})#(.+)$/;
/** The team's sender leases: one item per team, so that the team's bound is one conditional write. */
export const WEBHOOK_SENDERS_SK = 'SENDERS';
export const webhookSendersKey = (teamId: number) => ({ pk: webhooksPk(teamId), sk: WEBHOOK_SENDERS_SK });
/** A team's auto-configure slots, apart from its other items: auto-configure reaches no other partition. */
export const autoConfigurePk = (teamId: number): string => `AUTOCONFIGURE#${teamId}`;
export const autoConfigureSlotsKey = (teamId: number) => ({ pk: autoConfigurePk(teamId), sk: 'SLOTS' });
/** `endpoint` is `<method> <route>`: a key is scoped to the team and to the endpoint. */
export const idempotencyKey = (teamId: number, endpoint: string, keyHash: string) =>
  teamItem(teamId, `${IDEMPOTENCY_PREFIX}${endpoint}#${keyHash}`);

/**
 * The count of Idempotency-Key records a team wrote on one UTC day (`yyyy-mm-dd`; shared/data/idempotency.ts),
 * apart from the records' own `IDEMPOTENCY#` prefix.
 */
export const idempotencyDayKey = (teamId: number, day: string) => teamItem(teamId, `IDEMPOTENCY_DAY#${day}`);

/** Written in a delete's transaction: the stream's record of a delete holds only the item as it was. */
export const tombstoneKey = (teamId: number, deletedSk: string) => teamItem(teamId, `TOMBSTONE#${deletedSk}`);

export const TOKEN_SK = 'TOKEN';
export const tokenKey = (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}`, sk: TOKEN_SK });
/** Where a team's tokens are listed in the id index: by id, so one can be found (and revoked) by it. */
export const teamTokensIndexPk = (teamId: number): string => `TOKENS#${teamId}`;
export const teamTokenIndexKeys = (teamId: number, tokenId: number) => ({
  gsi1pk: teamTokensIndexPk(teamId),
  gsi1sk: `${TOKEN_SK}#${padId(tokenId)}`,
});
/** A revoked token's record, beside where the token was: the admin CLI tells "already revoked" from "none". */
export const revokedTokenKey = (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}`, sk: 'REVOKED' });
export const revokedTokenIndexKeys = (teamId: number, tokenId: number) => ({
  gsi1pk: `REVOKEDTOKENS#${teamId}`,
  gsi1sk: `${TOKEN_SK}#${padId(tokenId)}`,
});
/** Global per-entity id sequences (ids.ts): one item each. */
export const SEQUENCES = [
  'team',
  'brand',
  'field',
  'site',
  'page',
  'identity',
  'list',
  'webhook',
  'token',
] as const;
export type Sequence = (typeof SEQUENCES)[number];
export const sequenceKey = (sequence: Sequence) => ({ pk: `SEQ#${sequence}`, sk: 'SEQ' });

/** The id index entry of an entity: lets an id be found without knowing its team (403 vs 404). */
export const idIndexKeys = (kind: string, id: number) => ({ gsi1pk: `${kind}#${id}`, gsi1sk: kind });

/** `EVENTS#7` -> `EVENTS#*`: every partition of a kind, by its key's prefix. */
const everyPartitionLike = (pk: string): string => `${pk.slice(0, pk.indexOf('#') + 1)}*`;

/**
 * The kinds of partition above, as the patterns IAM matches partition keys with (`dynamodb:LeadingKeys`,
 * StringLike). A function's role names the kinds it reaches (shared/routes.ts `table`), and only those.
 */
export const PARTITION_KINDS = {
  team: everyPartitionLike(teamPk(0)),
  webhooks: everyPartitionLike(webhooksPk(0)),
  endpoints: everyPartitionLike(endpointPk(0, 0)),
  events: everyPartitionLike(eventsPk(0)),
  autoConfigureSlots: everyPartitionLike(autoConfigurePk(0)),
  tokens: everyPartitionLike(tokenKey('').pk),
} as const;

/** A kind of partition, or one id sequence's item (`sequence:brand`). */
export type Partition = keyof typeof PARTITION_KINDS | `sequence:${Sequence}`;

/** The partition keys a `Partition` stands for, as an IAM StringLike pattern. */
export const partitionPattern = (partition: Partition): string =>
  partition.startsWith('sequence:')
    ? sequenceKey(partition.slice('sequence:'.length) as Sequence).pk
    : PARTITION_KINDS[partition as keyof typeof PARTITION_KINDS];
