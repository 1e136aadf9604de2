import { createHash, randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { LIMITS } from '../limits.ts';
import type { Scope } from '../scopes.ts';
import { tokenParts } from '../token-form.ts';
import { dynamo, ID_INDEX, nowIso, tableName } from './dynamo.ts';
import { nextId } from './ids.ts';
import { queryAll, scanSortKey, writtenIf } from './items.ts';
import {
  revokedTokenIndexKeys,
  revokedTokenKey,
  TOKEN_SK,
  teamKey,
  teamTokenIndexKeys,
  teamTokensIndexPk,
  tokenKey,
} from './keys.ts';

/**
 * API tokens. A token is shown once; only its SHA-256 is stored, with its id, name, first characters,
 * scopes, expiry and the day it was last used.
 *
 * A token names its rate limit plan and its team before its secret, `tm_<plan>_<team>_<secret>`, so that
 * AWS WAF, which counts each token's requests before any code runs, tells a plan's tokens by their first
 * characters (shared/rate-limits.ts, planTokenPrefix), for any number of teams and nothing per team in AWS.
 * The whole token is hashed, so neither part can be changed without making an unknown token; a plan change
 * therefore reissues the team's tokens (changeTeamPlan). Tokens made before plans were named in them
 * (`tm_<team>_<secret>`) and before teams were (`tm_<secret>`) stay valid, in the default plan.
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Characters of the secret a listing shows: enough to tell tokens apart, far too few to guess the rest. */
const SHOWN_SECRET_CHARACTERS = 4;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The team a well-formed token names, if it names one (not yet checked against the table). */
export const tokenTeamId = (token: string): number | undefined => tokenParts(token)?.team;

/** The rate limit plan a well-formed token names, if it names one: what WAF counts it under. */
export const tokenPlan = (token: string): string | undefined => tokenParts(token)?.plan;

/** The plan a token's shown first characters name (`tm_bulk_12_AbCd…`), if they name one. */
const prefixPlan = (prefix: unknown): string | undefined =>
  typeof prefix === 'string' ? /^tm_([a-z][a-z0-9-]*)_[1-9]/.exec(prefix)?.[1] : undefined;

export interface TokenOptions {
  /** What the token is for, as the operator names it. */
  name?: string;
  /** What the token may do; full access when not given (shared/scopes.ts). */
  scopes?: readonly Scope[];
  /** When the token stops working; never when not given. */
  expiresAt?: Date;
  /**
   * The plan of a team none is recorded for: the deployment's default (the configuration's unless given;
   * the admin CLI passes a deployed stack's).
   */
  defaultPlan?: string;
}

/** A token as a listing shows it: never its secret, never its hash. */
export interface TokenView {
  /** Null for a token made before tokens had ids until `admin migrate` numbers it. */
  id: number | null;
  name: string | null;
  /** The token's first characters, null for a token made before they were kept. */
  prefix: string | null;
  /** `all` for full access. */
  scopes: Scope[] | 'all';
  created_at: string | null;
  expires_at: string | null;
  /** The UTC day (`yyyy-mm-dd`) the authorizer last let it in. */
  last_used_on: string | null;
  /** The token a plan change issued in its place (this one works until its `expires_at`). */
  replaced_by: number | null;
}

/** A token just made: the only time its plaintext is known. */
export interface IssuedToken extends TokenView {
  id: number;
  token: string;
}

/** A token item's write: a new hash only, never over another token's item. */
const putNewToken = (item: Record<string, unknown>) => ({
  Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
});

/** A team that already holds as many live tokens as a team may: a new one is refused until one goes. */
export class TokenLimitError extends Error {
  constructor(teamId: number, live: number) {
    super(
      `team ${teamId} has ${live} live tokens, the most a team may hold (${LIMITS.liveTokensPerTeam}): ` +
        'revoke one it no longer uses first (token list shows them)',
    );
  }
}

/**
 * A new token of the team, carrying the team's plan in its first characters; listed under the team. At
 * most LIMITS.liveTokensPerTeam live ones a team (expired and replaced tokens do not count): each token is
 * counted on its own by the rate limits, so this is what keeps a team's rate within its plan's team rate
 * (docs/tenant-isolation.md, "Rate limits"). The count reads the team's listing; the write is conditioned on the team item's
 * `tokens_version` being what it was before the count, so two parallel creates cannot both take the last one.
 */
export async function issueToken(teamId: number, options: TokenOptions = {}): Promise<IssuedToken> {
  for (;;) {
    // The version first, then the count: a token made after the read of the version fails this write.
    const { plan: recorded, version } = await tokenState(teamId);
    const live = (await teamTokenItems(teamId)).filter((item) => isLive(item, Date.now())).length;
    if (live >= LIMITS.liveTokensPerTeam) throw new TokenLimitError(teamId, live);
    const plan = recorded ?? options.defaultPlan ?? config.rateLimits().defaultPlan;
    const { item, issued } = await newTokenItem(teamId, plan, options);
    try {
      await dynamo().send(
        new TransactWriteCommand({
          TransactItems: [
            putNewToken(item),
            {
              Update: {
                TableName: tableName(),
                Key: teamKey(teamId),
                UpdateExpression: 'SET tokens_version = :next',
                ConditionExpression:
                  version === undefined
                    ? 'attribute_exists(pk) AND attribute_not_exists(tokens_version)'
                    : 'tokens_version = :seen',
                ExpressionAttributeValues: {
                  ':next': (version ?? 0) + 1,
                  ...(version !== undefined && { ':seen': version }),
                },
              },
            },
          ],
        }),
      );
      return issued;
    } catch (error) {
      // Another token of the team was made (or the team is gone) since the count: count again.
      if (!(error instanceof TransactionCanceledException)) throw error;
      if (!(await tokenState(teamId)).exists) throw new Error(`no team ${teamId}`);
    }
  }
}

/** The token alone (the data modules' and tests' form of issueToken). */
export async function createToken(teamId: number, options: TokenOptions = {}): Promise<string> {
  return (await issueToken(teamId, options)).token;
}

/**
 * Expiries are kept to the whole second (the earlier one): the authorizer hands a route the expiry in epoch
 * seconds, and the route refuses from that second on, so a token stops exactly when its record says.
 */
export const wholeSecond = (date: Date): Date => new Date(Math.floor(date.getTime() / 1000) * 1000);

async function newTokenItem(
  teamId: number,
  plan: string,
  { name, scopes, expiresAt }: TokenOptions,
): Promise<{ item: Record<string, unknown>; issued: IssuedToken }> {
  const id = await nextId('token');
  const secret = toBase62(randomBytes(32));
  const head = `tm_${plan}_${teamId}_`;
  const token = `${head}${secret}`;
  const view: TokenView = {
    id,
    name: name ?? null,
    prefix: `${head}${secret.slice(0, SHOWN_SECRET_CHARACTERS)}…`,
    scopes: scopes ? [...scopes] : 'all',
    created_at: nowIso(),
    expires_at: expiresAt ? wholeSecond(expiresAt).toISOString() : null,
    last_used_on: null,
    replaced_by: null,
  };
  const item = {
    ...tokenKey(hashToken(token)),
    ...teamTokenIndexKeys(teamId, id),
    id,
    team_id: teamId,
    ...(name !== undefined && { name }),
    prefix: view.prefix,
    ...(scopes && { scopes: [...scopes] }),
    ...(expiresAt && { expires_at: view.expires_at }),
    created_at: view.created_at,
  };
  return { item, issued: { ...view, id, token } };
}

/** Who a token is: its team and what the authorizer hands the route. */
export interface TokenOwner {
  teamId: number;
  /**
   * The plan the token's first characters name (what WAF counts it under while the deployment defines it;
   * the routes, which know the deployment's plans, hold it to the default otherwise): none for a token made
   * before tokens named their plan.
   */
  rateLimitPlan: string | undefined;
  /** What the token may do: undefined for full access (every token made before scopes existed). */
  scopes: Scope[] | undefined;
  /** When the token stops working, if it does. */
  expiresAt: Date | undefined;
  /** The UTC day the token was last let in, as recorded. */
  lastUsedOn: string | undefined;
}

/** The owner of a token, or undefined for a malformed, unknown, revoked or expired token. One read. */
export async function tokenOwner(token: string): Promise<TokenOwner | undefined> {
  if (!tokenParts(token)) return undefined;
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: tableName(),
      Key: tokenKey(hashToken(token)),
      ProjectionExpression: 'team_id, scopes, expires_at, last_used_on',
    }),
  );
  if (!Item) return undefined;
  const expiresAt = Item.expires_at ? new Date(Item.expires_at) : undefined;
  if (expiresAt && expiresAt.getTime() <= Date.now()) return undefined;
  const namesTeam = tokenTeamId(token) === Item.team_id;
  return {
    teamId: Item.team_id,
    rateLimitPlan: namesTeam ? tokenPlan(token) : undefined,
    scopes: Item.scopes,
    expiresAt,
    lastUsedOn: Item.last_used_on,
  };
}

/** Today in UTC, `yyyy-mm-dd`: what `last_used_on` records. */
export const utcDay = (at = new Date()): string => at.toISOString().slice(0, 10);

/**
 * Records that the token was used on `day` (the authorizer, when the token's item names an earlier day):
 * one conditional write per token per day, not one per request. Two first requests of a day racing both
 * try; the condition lets one write. Returns whether this call wrote.
 */
export function recordTokenUse(token: string, day = utcDay()): Promise<boolean> {
  return writtenIf(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: tokenKey(hashToken(token)),
        UpdateExpression: 'SET last_used_on = :day',
        // Never backwards (a Lambda clock a little behind another's), never on a revoked token.
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(last_used_on) OR last_used_on < :day)',
        ExpressionAttributeValues: { ':day': day },
      }),
    ),
  );
}

/** Deletes the token's record, leaving a record of its revocation; returns whether it existed. */
export async function revokeToken(token: string): Promise<boolean> {
  const { Attributes } = await dynamo().send(
    new DeleteCommand({ TableName: tableName(), Key: tokenKey(hashToken(token)), ReturnValues: 'ALL_OLD' }),
  );
  if (Attributes) await recordRevocation(Attributes);
  return Attributes !== undefined;
}

/** Deletes the team's token with this id; false if the team has none (another team's id included). */
export async function revokeTokenById(teamId: number, id: number): Promise<boolean> {
  const [key] = await queryAll({
    TableName: tableName(),
    IndexName: ID_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
    ExpressionAttributeValues: {
      ':pk': teamTokensIndexPk(teamId),
      ':sk': teamTokenIndexKeys(teamId, id).gsi1sk,
    },
  });
  return key ? deleteTeamToken(teamId, key) : false;
}

/** Deletes every token of the team; returns how many there were. */
export async function revokeAllTokens(teamId: number): Promise<number> {
  const deleted = await Promise.all((await teamTokenKeys(teamId)).map((key) => deleteTeamToken(teamId, key)));
  return deleted.filter(Boolean).length;
}

async function deleteTeamToken(teamId: number, key: Record<string, unknown>): Promise<boolean> {
  try {
    const { Attributes } = await dynamo().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: { pk: key.pk, sk: key.sk },
        // The index is eventually consistent: a key it still lists may be gone, or (never) another team's.
        ConditionExpression: 'team_id = :team',
        ExpressionAttributeValues: { ':team': teamId },
        ReturnValues: 'ALL_OLD',
      }),
    );
    if (Attributes) await recordRevocation(Attributes);
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * What revoking leaves behind (a write after the delete: only the admin CLI reads it, to say "already
 * revoked at" instead of "no such token"). Tokens revoked before it was written have none.
 */
async function recordRevocation(token: Record<string, unknown>): Promise<void> {
  const hash = String(token.pk).slice('TOKEN#'.length);
  const teamId = token.team_id as number;
  const id = token.id as number | undefined;
  await dynamo().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...revokedTokenKey(hash),
        ...(id !== undefined && { ...revokedTokenIndexKeys(teamId, id), id }),
        team_id: teamId,
        ...(token.prefix !== undefined && { prefix: token.prefix }),
        revoked_at: nowIso(),
      },
    }),
  );
}

/** A revoked token as the admin CLI names it. */
export interface Revocation {
  team_id: number;
  id: number | null;
  prefix: string | null;
  revoked_at: string;
}

const revocation = (item: Record<string, unknown>): Revocation => ({
  team_id: item.team_id as number,
  id: (item.id as number | undefined) ?? null,
  prefix: (item.prefix as string | undefined) ?? null,
  revoked_at: item.revoked_at as string,
});

/** When this token was revoked, if that is recorded (the admin CLI, after a revoke found no token). */
export async function tokenRevocation(token: string): Promise<Revocation | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: revokedTokenKey(hashToken(token)), ConsistentRead: true }),
  );
  return Item && revocation(Item);
}

/** When the team's token with this id was revoked, if that is recorded. */
export async function tokenRevocationById(teamId: number, id: number): Promise<Revocation | undefined> {
  const [key] = await queryAll({
    TableName: tableName(),
    IndexName: ID_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
    ExpressionAttributeValues: revokedTokenIndexValues(teamId, id),
  });
  if (!key) return undefined;
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: { pk: key.pk, sk: key.sk }, ConsistentRead: true }),
  );
  return Item?.team_id === teamId ? revocation(Item) : undefined;
}

const revokedTokenIndexValues = (teamId: number, id: number) => {
  const { gsi1pk, gsi1sk } = revokedTokenIndexKeys(teamId, id);
  return { ':pk': gsi1pk, ':sk': gsi1sk };
};

/** The team's tokens, oldest first (`token list`): never a secret or a hash. */
export async function listTokens(teamId: number): Promise<TokenView[]> {
  return (await teamTokenItems(teamId)).map(tokenView);
}

/** Every team's tokens, by team and id (`token list` without a team: a Scan of the table). */
export async function listAllTokens(): Promise<(TokenView & { team_id: number })[]> {
  const tokens: (TokenView & { team_id: number })[] = [];
  for await (const item of scanSortKey(TOKEN_SK)) {
    if (typeof item.team_id === 'number') tokens.push({ team_id: item.team_id, ...tokenView(item) });
  }
  return tokens.sort((a, b) => a.team_id - b.team_id || Number(a.id ?? 0) - Number(b.id ?? 0));
}

const tokenView = (item: Record<string, unknown>): TokenView => ({
  id: (item.id as number | undefined) ?? null,
  name: (item.name as string | undefined) ?? null,
  prefix: (item.prefix as string | undefined) ?? null,
  scopes: (item.scopes as Scope[] | undefined) ?? 'all',
  created_at: (item.created_at as string | undefined) ?? null,
  expires_at: (item.expires_at as string | undefined) ?? null,
  last_used_on: (item.last_used_on as string | undefined) ?? null,
  replaced_by: (item.replaced_by as number | undefined) ?? null,
});

async function teamTokenKeys(teamId: number): Promise<Record<string, unknown>[]> {
  return queryAll({
    TableName: tableName(),
    IndexName: ID_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': teamTokensIndexPk(teamId) },
  });
}

/** The team's token items (the index holds keys only: one BatchGetItem per 100), by id. */
async function teamTokenItems(teamId: number): Promise<Record<string, unknown>[]> {
  const keys = (await teamTokenKeys(teamId)).map((key) => ({ pk: key.pk, sk: key.sk }));
  const items: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += 100) {
    let pending: Record<string, unknown>[] | undefined = keys.slice(start, start + 100);
    while (pending?.length) {
      const answer: BatchGetCommandOutput = await dynamo().send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }),
      );
      items.push(...(answer.Responses?.[tableName()] ?? []));
      pending = answer.UnprocessedKeys?.[tableName()]?.Keys;
    }
  }
  // Deleted since the index listed it: BatchGetItem leaves it out. Another team's: never, but checked.
  return items
    .filter((item) => item.team_id === teamId)
    .sort((a, b) => Number(a.id ?? 0) - Number(b.id ?? 0));
}

const isLive = (item: Record<string, unknown>, now: number): boolean =>
  item.replaced_by === undefined &&
  (item.expires_at === undefined || new Date(item.expires_at as string).getTime() > now);

/** A token a plan change issued, with the one it replaces. */
export interface ReissuedToken extends IssuedToken {
  replaces: number | null;
  /** When the replaced token stops working: the earlier of its own expiry and the overlap's end. */
  replaced_expires_at: string;
}

/**
 * Moves the team to `plan` (the admin CLI's `team plan`): records it on the team, then reissues each live
 * token of the team that does not name it yet, with the same name, scopes and expiry, and lets the old one
 * work on until `overlapEndsAt` (or its own expiry, if earlier). Each reissue is one transaction: the new
 * token appears only as the old one is marked replaced, and a token revoked meanwhile is not reissued.
 * Returns the plan the team had and the new tokens (the only time they are shown).
 */
export async function changeTeamPlan(
  teamId: number,
  plan: string,
  overlapEndsAt: Date,
): Promise<{ previousPlan: string | undefined; reissued: ReissuedToken[] }> {
  const previousPlan = await setRateLimitPlan(teamId, plan);
  const now = Date.now();
  const due = (await teamTokenItems(teamId)).filter(
    (item) => isLive(item, now) && prefixPlan(item.prefix) !== plan,
  );
  const reissued: ReissuedToken[] = [];
  for (const old of due) {
    const ownExpiry = old.expires_at ? new Date(old.expires_at as string) : undefined;
    const { item, issued } = await newTokenItem(teamId, plan, {
      name: old.name as string | undefined,
      scopes: old.scopes as Scope[] | undefined,
      expiresAt: ownExpiry,
    });
    const oldExpiresAt = wholeSecond(ownExpiry && ownExpiry < overlapEndsAt ? ownExpiry : overlapEndsAt);
    try {
      await dynamo().send(
        new TransactWriteCommand({
          TransactItems: [
            putNewToken(item),
            {
              Update: {
                TableName: tableName(),
                Key: { pk: old.pk, sk: old.sk },
                UpdateExpression: 'SET expires_at = :expires, replaced_by = :id',
                ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(replaced_by)',
                ExpressionAttributeValues: { ':expires': oldExpiresAt.toISOString(), ':id': issued.id },
              },
            },
          ],
        }),
      );
    } catch (error) {
      // Revoked, or reissued by another run, since it was read: nothing to replace.
      if (error instanceof TransactionCanceledException) continue;
      throw error;
    }
    reissued.push({
      ...issued,
      replaces: (old.id as number | undefined) ?? null,
      replaced_expires_at: oldExpiresAt.toISOString(),
    });
  }
  return { previousPlan, reissued };
}

/** Records the team's rate limit plan on the team item; returns the plan it had, if any. */
export async function setRateLimitPlan(teamId: number, plan: string): Promise<string | undefined> {
  const { Attributes } = await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: teamKey(teamId),
      UpdateExpression: 'SET rate_limit_plan = :plan',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':plan': plan },
      ReturnValues: 'UPDATED_OLD',
    }),
  );
  return Attributes?.rate_limit_plan;
}

/** What the team item says of its tokens: the plan recorded and how many tokens were ever written under it. */
async function tokenState(
  teamId: number,
): Promise<{ exists: boolean; plan: string | undefined; version: number | undefined }> {
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: tableName(),
      Key: teamKey(teamId),
      ProjectionExpression: 'pk, rate_limit_plan, tokens_version',
      ConsistentRead: true,
    }),
  );
  return { exists: Item !== undefined, plan: Item?.rate_limit_plan, version: Item?.tokens_version };
}

/**
 * `admin migrate`: how many live tokens of teams on a named plan (`namedPlans`) do not name their team's
 * plan (made before tokens named it): WAF counts those in the default plan until `team plan` reissues them.
 */
export async function countTokensToReissue(
  teamPlans: ReadonlyMap<number, string>,
  namedPlans: readonly string[],
): Promise<number> {
  const now = Date.now();
  let count = 0;
  for await (const token of scanSortKey(TOKEN_SK, 'team_id, prefix, expires_at, replaced_by')) {
    const plan = teamPlans.get(token.team_id as number);
    if (!plan || !namedPlans.includes(plan) || !isLive(token, now)) continue;
    if (prefixPlan(token.prefix) !== plan) count++;
  }
  return count;
}

function toBase62(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(43, '0');
}
