import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PreconditionFailedError } from '../domain/errors.ts';

import type { EventType } from '../domain/event-shape.ts';
import type { ListPage, PageOptions } from '../domain/pagination.ts';
import { newSigningSecret } from '../domain/webhook-signing.ts';
import { dynamo, nowIso, tableName } from './dynamo.ts';
import { nextId } from './ids.ts';
import { queryAll, queryPage, requestStamp, throwMissing, writtenIf } from './items.ts';
import { idIndexKeys, WEBHOOK_PREFIX, webhookEndpointKey, webhooksPk } from './keys.ts';
import { releaseQuota, takeQuota, throwIfQuotaReached } from './quotas.ts';
import { openSecret, type SealedSecret, SecretRefused, sealSecret } from './secret-envelope.ts';
import { beforeRetry, type GuardedItem, LabelledTransaction } from './transactions.ts';
import { resumeParked } from './webhook-deliveries/restarts.ts';

/**
 * Webhook endpoints: where a team's events are delivered. An endpoint keeps its signing secrets, newest
 * first: after a rotation the old one stays in force (deliveries are signed under both) until it expires.
 * Every write is conditioned on the version read, like the other entities. `admin migrate`'s one-off
 * migrations of them are the admin CLI's (lib/admin/migrations/webhook-endpoints.ts).
 */
export type DisabledReason = 'manual' | 'gone' | 'failing';

/**
 * A signing secret as the item keeps it: sealed under a KMS data key (shared/data/secret-envelope.ts),
 * or, written before secrets were encrypted, in clear until `admin migrate` (or a rotation) seals it.
 */
export type SigningSecret = (SealedSecret | { secret: string }) & {
  /** Epoch ms after which it no longer signs; null for the current one. */
  expires_at: number | null;
};

/** A secret in clear, for signing: only in memory, never stored. */
export interface OpenSecret {
  secret: string;
  expires_at: number | null;
}

export interface WebhookEndpoint {
  id: number;
  team_id: number;
  url: string;
  event_types: EventType[];
  description: string | null;
  disabled: boolean;
  /** Why it is disabled: by the team (`manual`), answered 410 (`gone`), failed for days (`failing`). */
  disabled_reason: DisabledReason | null;
  /** Epoch ms of the first failed try since its last success (or since it was enabled); null while it succeeds. */
  failing_since: number | null;
  /**
   * Epoch ms of the first try that took WEBHOOK_LIMITS.slowTryMs or longer since its tries were last all
   * quick; null while they are. A slow endpoint's first tries take its sender lease, as a failing one's do.
   */
  slow_since: number | null;
  secrets: SigningSecret[];
  created_at: string;
  updated_at: string;
}

export type EndpointSettings = Pick<WebhookEndpoint, 'url' | 'event_types' | 'description' | 'disabled'>;

export interface VersionedEndpoint {
  endpoint: WebhookEndpoint;
  version: number;
}

/** How long a rotated-out secret keeps signing: receivers have a day to take the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The endpoint as the API shows it: never its secrets (only create and rotate answer the new one). */
export const webhookEndpointView = (endpoint: WebhookEndpoint) => ({
  id: endpoint.id,
  url: endpoint.url,
  event_types: endpoint.event_types,
  description: endpoint.description,
  disabled: endpoint.disabled,
  disabled_reason: endpoint.disabled_reason,
  created_at: endpoint.created_at,
  updated_at: endpoint.updated_at,
});

/** The secrets that sign a delivery sent at `nowMs`, newest first. */
export const secretsInForce = (secrets: readonly OpenSecret[], nowMs: number): string[] =>
  secrets.filter((secret) => inForce(secret, nowMs)).map((secret) => secret.secret);

const inForce = (secret: { expires_at: number | null }, nowMs: number) =>
  secret.expires_at === null || secret.expires_at > nowMs;

const ownerOf = (endpoint: WebhookEndpoint) => ({ teamId: endpoint.team_id, endpointId: endpoint.id });

/**
 * The endpoint's secrets in force at `nowMs`, opened (the deliverer's; a warm one asks KMS nothing). One
 * that does not open for this endpoint (copied from another item, tampered with) is left out and counted
 * in `refused`.
 */
export async function openSecretsInForce(
  endpoint: WebhookEndpoint,
  nowMs: number,
): Promise<{ secrets: OpenSecret[]; refused: number }> {
  const opened = await Promise.all(
    endpoint.secrets
      .filter((stored) => inForce(stored, nowMs))
      .map(async (stored) => {
        try {
          return { secret: await openStored(stored, endpoint), expires_at: stored.expires_at };
        } catch (error) {
          if (error instanceof SecretRefused) return undefined;
          throw error;
        }
      }),
  );
  const secrets = opened.filter((secret) => secret !== undefined);
  return { secrets, refused: opened.length - secrets.length };
}

const openStored = (stored: SigningSecret, endpoint: WebhookEndpoint): Promise<string> =>
  'sealed' in stored ? openSecret(stored, ownerOf(endpoint)) : Promise.resolve(stored.secret);

/**
 * The endpoint's current secret in clear if it is still the one named `id` (an Idempotency-Key replay of
 * the create: a rotated or refused secret is never shown); undefined otherwise.
 */
export async function currentSecretIf(endpoint: WebhookEndpoint, id: string): Promise<string | undefined> {
  const current = endpoint.secrets.find((stored) => stored.expires_at === null);
  if (!current || !('sealed' in current) || current.id !== id) return undefined;
  return openSecret(current, ownerOf(endpoint)).catch((error) => {
    if (error instanceof SecretRefused) return undefined;
    throw error;
  });
}

/**
 * The create's Idempotency-Key record keeps the answer with `secret_id` in place of the secret (README,
 * "Idempotency"). A replay reads the endpoint (one GetItem): while its current secret is still that one,
 * it answers the first answer, the secret opened; after a rotation or a deletion, the same body without
 * `secret` and with `secret_shown: false`. A record written before secrets were sealed holds `secret` in
 * clear: it is never answered (its record expires within 24 hours of its create).
 */
export const SECRET_ON_REPLAY = {
  keep: (body: unknown): unknown => body,
  replay: async (body: unknown, teamId: number): Promise<unknown> => {
    const {
      secret_id: secretId,
      secret: _never,
      ...answer
    } = body as Record<string, unknown> & { id: number };
    const found = await findWebhookEndpoint(teamId, answer.id);
    const secret =
      found && typeof secretId === 'string' ? await currentSecretIf(found.endpoint, secretId) : undefined;
    return secret === undefined ? { ...answer, secret_shown: false } : { ...answer, secret };
  },
};

/** The id of the endpoint's current secret (what a create's Idempotency-Key record keeps). */
export const currentSecretId = (endpoint: WebhookEndpoint): string | undefined => {
  const current = endpoint.secrets.find((stored) => stored.expires_at === null);
  return current && 'id' in current ? current.id : undefined;
};

/** A secret sealed for `endpoint`: a legacy one in clear gets sealed, a sealed one stays as it is. */
export const sealedSecretFor = async (
  stored: SigningSecret,
  endpoint: WebhookEndpoint,
): Promise<SigningSecret> =>
  'sealed' in stored
    ? stored
    : { ...(await sealSecret(stored.secret, ownerOf(endpoint))), expires_at: stored.expires_at };

const toItem = (endpoint: WebhookEndpoint, version: number) => ({
  ...webhookEndpointKey(endpoint.team_id, endpoint.id),
  ...idIndexKeys('WEBHOOK', endpoint.id),
  ...endpoint,
  // Absent rather than null while it succeeds: a failure sets it only if absent (if_not_exists).
  failing_since: endpoint.failing_since ?? undefined,
  slow_since: endpoint.slow_since ?? undefined,
  ...requestStamp(),
  version,
});

export function webhookEndpointOfItem(item: Record<string, unknown>): WebhookEndpoint {
  return {
    id: item.id as number,
    team_id: item.team_id as number,
    url: item.url as string,
    event_types: item.event_types as EventType[],
    description: (item.description as string | null | undefined) ?? null,
    disabled: item.disabled === true,
    disabled_reason: (item.disabled_reason as DisabledReason | null | undefined) ?? null,
    failing_since: (item.failing_since as number | null | undefined) ?? null,
    slow_since: (item.slow_since as number | null | undefined) ?? null,
    secrets: item.secrets as SigningSecret[],
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
  };
}

/**
 * A new endpoint with a new secret (stored sealed; answered in clear beside the endpoint), taking a unit of
 * the team's quota in the same transaction.
 */
export async function createWebhookEndpoint(
  teamId: number,
  settings: Pick<EndpointSettings, 'url' | 'event_types'> & { description?: string | null },
  extraItems: (endpoint: WebhookEndpoint) => GuardedItem[] = () => [],
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const now = nowIso();
  const id = await nextId('webhook');
  const secret = newSigningSecret();
  const endpoint: WebhookEndpoint = {
    id,
    team_id: teamId,
    url: settings.url,
    event_types: settings.event_types,
    description: settings.description ?? null,
    disabled: false,
    disabled_reason: null,
    failing_since: null,
    slow_since: null,
    secrets: [{ ...(await sealSecret(secret, { teamId, endpointId: id })), expires_at: null }],
    created_at: now,
    updated_at: now,
  };
  const transaction = new LabelledTransaction().add('endpoint', {
    Put: {
      TableName: tableName(),
      Item: toItem(endpoint, 1),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });
  takeQuota(transaction, teamId, 'webhook_endpoints');
  transaction.guard(extraItems(endpoint));
  for (let attempt = 1; ; attempt++) {
    const cancellation = await transaction.commit();
    if (!cancellation) return { endpoint, secret };
    throwIfQuotaReached(cancellation, 'webhook_endpoints');
    if (!cancellation.conflicted()) throw cancellation.error;
    await beforeRetry(attempt, 'webhook endpoint');
  }
}

/** The team's endpoints by id: all of them (at most the quota), or a page when asked. */
export async function listWebhookEndpoints(
  teamId: number,
  { limit, after }: PageOptions<number> = {},
): Promise<ListPage<WebhookEndpoint, number>> {
  if (limit === undefined) return { items: await allEndpoints(teamId, after) };
  const { items } = await queryPage(endpointsQuery(teamId), {
    ...startAfter(teamId, after),
    limit: limit + 1,
  });
  const endpoints = items.map(webhookEndpointOfItem);
  if (endpoints.length <= limit) return { items: endpoints };
  const page = endpoints.slice(0, limit);
  return { items: page, next: (page[page.length - 1] as WebhookEndpoint).id };
}

/** The Query of the team's endpoints, by id. */
const endpointsQuery = (teamId: number) => ({
  TableName: tableName(),
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': webhooksPk(teamId), ':prefix': WEBHOOK_PREFIX },
  ConsistentRead: true,
});

/** Where a read of the team's endpoints after `after` starts. */
const startAfter = (teamId: number, after?: number) =>
  after === undefined ? {} : { start: webhookEndpointKey(teamId, after) };

/** Every endpoint of the team (the stream consumer's fan-out, redelivery): at most the team's quota. */
export async function allEndpoints(teamId: number, after?: number): Promise<WebhookEndpoint[]> {
  return (await queryAll(endpointsQuery(teamId), startAfter(teamId, after))).map(webhookEndpointOfItem);
}

/** One of the team's endpoints and its version; 403 another team's, 404 none's. One GetItem. */
export async function getWebhookEndpoint(teamId: number, id: number): Promise<VersionedEndpoint> {
  const found = await findWebhookEndpoint(teamId, id);
  return found ?? throwMissing('WEBHOOK', 'WebhookEndpoint', id);
}

/** The endpoint, or undefined when the team has none of that id (the deliverer's read). */
export async function findWebhookEndpoint(
  teamId: number,
  id: number,
): Promise<VersionedEndpoint | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: webhookEndpointKey(teamId, id), ConsistentRead: true }),
  );
  return Item && { endpoint: webhookEndpointOfItem(Item), version: Item.version as number };
}

/**
 * Changes an endpoint with what `revise` makes of the stored one (it may check, and throw), conditioned on
 * the version read (a concurrent change makes it read again). `expected` is an If-Match: 412 when it names
 * another version.
 */
export async function reviseWebhookEndpoint(
  teamId: number,
  id: number,
  revise: (current: WebhookEndpoint) => WebhookEndpoint | Promise<WebhookEndpoint>,
  expected?: number,
): Promise<VersionedEndpoint> {
  for (let attempt = 1; ; attempt++) {
    const { endpoint: current, version } = await getWebhookEndpoint(teamId, id);
    if (expected !== undefined && expected !== version) throw new PreconditionFailedError();
    const revised = await revise(current);
    if (JSON.stringify(revised) === JSON.stringify(current)) return { endpoint: current, version };
    const endpoint = { ...revised, updated_at: nowIso() };
    const written = await writtenIf(
      dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: toItem(endpoint, version + 1),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': version },
        }),
      ),
    );
    if (written) {
      // Enabled again: its retries parked meanwhile are due again, their schedule going on.
      if (current.disabled && !endpoint.disabled) await resumeParked(teamId, id, Date.now());
      return { endpoint, version: version + 1 };
    }
    await beforeRetry(attempt, 'webhook endpoint');
  }
}

/** The team's settings applied; enabling again also forgets the failures that disabled it. */
export function withSettings(current: WebhookEndpoint, settings: EndpointSettings): WebhookEndpoint {
  const enabling = current.disabled && !settings.disabled;
  return {
    ...current,
    ...settings,
    disabled_reason: settings.disabled ? (current.disabled ? current.disabled_reason : 'manual') : null,
    failing_since: enabling ? null : current.failing_since,
  };
}

/**
 * `secret` (new, in clear) sealed as the current secret; the one it replaces signs on for
 * ROTATION_OVERLAP_MS (sealed now if it was kept in clear). Any older one ends now, so a delivery carries
 * two signatures at most, however often the secret is rotated.
 */
export async function withRotatedSecret(
  current: WebhookEndpoint,
  secret: string,
  nowMs: number,
): Promise<WebhookEndpoint> {
  const replaced = current.secrets.find((stored) => stored.expires_at === null);
  return {
    ...current,
    secrets: [
      { ...(await sealSecret(secret, ownerOf(current))), expires_at: null },
      ...(replaced
        ? [{ ...(await sealedSecretFor(replaced, current)), expires_at: nowMs + ROTATION_OVERLAP_MS }]
        : []),
    ],
  };
}

/** Deletes an endpoint and gives its quota unit back; its pending deliveries are given up when due. */
export async function deleteWebhookEndpoint(teamId: number, id: number, expected?: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const { version } = await getWebhookEndpoint(teamId, id);
    if (expected !== undefined && expected !== version) throw new PreconditionFailedError();
    const cancellation = await new LabelledTransaction()
      .add('endpoint', {
        Delete: {
          TableName: tableName(),
          Key: webhookEndpointKey(teamId, id),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': version },
        },
      })
      .add('quota release', releaseQuota(teamId, 'webhook_endpoints'))
      .commit();
    if (!cancellation) return;
    await beforeRetry(attempt, 'webhook endpoint');
  }
}

/**
 * What a try's outcome changes on its endpoint (the deliverer's writes, outside any request): a success
 * ends its failing period, a failure starts one (unless one is running), `disable` turns it off; a slow
 * try marks it slow (`slowSince`), a run of quick ones ends that (`quick`).
 * Conditioned on the endpoint still being enabled, so a change by the team in between wins. False when
 * nothing was written.
 */
export async function noteDeliveryOutcome(
  teamId: number,
  id: number,
  change:
    | { failingSince: number }
    | { succeeded: true }
    | { disable: Exclude<DisabledReason, 'manual'> }
    | { slowSince: number }
    | { quick: true },
): Promise<boolean> {
  const update =
    'slowSince' in change
      ? {
          UpdateExpression: 'SET slow_since = if_not_exists(slow_since, :since) REMOVE request_id',
          values: { ':since': change.slowSince },
        }
      : 'quick' in change
        ? { UpdateExpression: 'REMOVE slow_since, request_id', values: {} }
        : 'disable' in change
          ? {
              UpdateExpression:
                'SET disabled = :true, disabled_reason = :reason, updated_at = :now, version = version + :one REMOVE request_id',
              values: { ':true': true, ':reason': change.disable, ':now': nowIso(), ':one': 1 },
            }
          : 'failingSince' in change
            ? {
                UpdateExpression:
                  'SET failing_since = if_not_exists(failing_since, :since) REMOVE request_id',
                values: { ':since': change.failingSince },
              }
            : { UpdateExpression: 'REMOVE failing_since, request_id', values: {} };
  return writtenIf(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: webhookEndpointKey(teamId, id),
        UpdateExpression: update.UpdateExpression,
        ConditionExpression: 'attribute_exists(pk) AND disabled = :false',
        ExpressionAttributeValues: { ':false': false, ...update.values },
      }),
    ),
  );
}
