import { createHash, randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { rateLimitOf, type TeamRateLimit } from '../rate-limits.ts';
import type { Scope } from '../scopes.ts';
import { dynamo, ID_INDEX, nowIso, tableName } from './dynamo.ts';
import { nextId } from './ids.ts';
import { queryAll, scanSortKey } from './items.ts';
import { teamKey, teamTokensIndexKeys, tokenKey } from './keys.ts';
import { type Quota, type QuotaKind, quotasOf } from './quotas.ts';

/** Teams and their API tokens. A token is shown once; only its SHA-256 is stored. */
export interface Team {
  id: number;
  name: string;
  created_at: string;
}

/**
 * A token names its team before its secret, `tm_<team>_<secret>`, so that AWS WAF, which counts each token's
 * requests before any code runs, can tell a named rate limit plan's teams by their tokens
 * (shared/rate-limits.ts). The whole token is hashed, so the team part cannot be changed without making an
 * unknown token. Tokens made before this form (`tm_<secret>`) stay valid, in the default plan.
 */
const TOKEN_SHAPE = /^tm_(?:([1-9][0-9]{0,14})_)?[0-9A-Za-z]{40,60}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The team a well-formed token names, if it names one (not yet checked against the table). */
export const tokenTeamId = (token: string): number | undefined => {
  const team = TOKEN_SHAPE.exec(token)?.[1];
  return team === undefined ? undefined : Number(team);
};

/** The token of an `Authorization: Bearer <token>` header. */
export const bearerToken = (authorization: string | undefined): string | undefined =>
  /^Bearer ([^\s]+)$/i.exec(authorization ?? '')?.[1];

export async function createTeam(name: string): Promise<Team> {
  const team: Team = { id: await nextId('team'), name, created_at: nowIso() };
  await dynamo().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...teamKey(team.id), ...team },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return team;
}

export async function getTeam(teamId: number): Promise<Team | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: teamKey(teamId) }));
  return Item && { id: Item.id, name: Item.name, created_at: Item.created_at };
}

/**
 * A new token of the team, carrying the team's rate limit plan (the authorizer reads only the token's item)
 * and listed under the team in the id index, so that a plan change reaches every token.
 */
export interface TokenOptions {
  /** What the token may do; full access when not given (shared/scopes.ts). */
  scopes?: readonly Scope[];
  /** When the token stops working; never when not given. */
  expiresAt?: Date;
}

export async function createToken(teamId: number, { scopes, expiresAt }: TokenOptions = {}): Promise<string> {
  const token = `tm_${teamId}_${toBase62(randomBytes(32))}`;
  const plan = await recordedPlan(teamId);
  await dynamo().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...tokenKey(hashToken(token)),
        ...teamTokensIndexKeys(teamId),
        team_id: teamId,
        ...(plan && { rate_limit_plan: plan }),
        ...(scopes && { scopes: [...scopes] }),
        ...(expiresAt && { expires_at: expiresAt.toISOString() }),
        created_at: nowIso(),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return token;
}

/** Deletes the token's record; returns whether it existed. */
export async function revokeToken(token: string): Promise<boolean> {
  const { Attributes } = await dynamo().send(
    new DeleteCommand({ TableName: tableName(), Key: tokenKey(hashToken(token)), ReturnValues: 'ALL_OLD' }),
  );
  return Attributes !== undefined;
}

/** Who a token is: its team and the rate limit plan recorded on it. */
export interface TokenOwner {
  teamId: number;
  /** The plan WAF holds the token to, if not the default: only a token that names its team can be in one. */
  rateLimitPlan: string | undefined;
  /** What the token may do: undefined for full access (every token made before scopes existed). */
  scopes: Scope[] | undefined;
  /** When the token stops working, if it does. */
  expiresAt: Date | undefined;
}

/** The owner of a token, or undefined for a malformed, unknown, revoked or expired token. One read. */
export async function tokenOwner(token: string): Promise<TokenOwner | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: tableName(),
      Key: tokenKey(hashToken(token)),
      ProjectionExpression: 'team_id, rate_limit_plan, scopes, expires_at',
    }),
  );
  if (!Item) return undefined;
  const expiresAt = Item.expires_at ? new Date(Item.expires_at) : undefined;
  if (expiresAt && expiresAt.getTime() <= Date.now()) return undefined;
  const namesTeam = tokenTeamId(token) === Item.team_id;
  return {
    teamId: Item.team_id,
    rateLimitPlan: namesTeam ? Item.rate_limit_plan : undefined,
    scopes: Item.scopes,
    expiresAt,
  };
}

/**
 * Records the team's rate limit plan (the admin CLI's `team plan`) on the team and on each of its tokens;
 * returns the plan it had, if any.
 */
export async function setRateLimitPlan(teamId: number, plan: string): Promise<string | undefined> {
  // Independent writes: a team that does not exist has no tokens to stamp.
  const [{ Attributes }] = await Promise.all([
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: teamKey(teamId),
        UpdateExpression: 'SET rate_limit_plan = :plan',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':plan': plan },
        ReturnValues: 'UPDATED_OLD',
      }),
    ),
    stampTokens(teamId, plan),
  ]);
  return Attributes?.rate_limit_plan;
}

/** Writes the plan on every token of the team (a token revoked meanwhile stays deleted). */
async function stampTokens(teamId: number, plan: string): Promise<void> {
  const tokens = await queryAll({
    TableName: tableName(),
    IndexName: ID_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': teamTokensIndexKeys(teamId).gsi1pk },
  });
  await Promise.all(
    tokens.map((token) =>
      dynamo()
        .send(
          new UpdateCommand({
            TableName: tableName(),
            Key: { pk: token.pk, sk: token.sk },
            UpdateExpression: 'SET rate_limit_plan = :plan',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':plan': plan },
          }),
        )
        .catch(unlessRevoked),
    ),
  );
}

function unlessRevoked(error: unknown): void {
  if (!(error instanceof ConditionalCheckFailedException)) throw error;
}

async function recordedPlan(teamId: number): Promise<string | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: teamKey(teamId), ProjectionExpression: 'rate_limit_plan' }),
  );
  return Item?.rate_limit_plan;
}

/** Every team with the rate limit plan recorded for it, if any (`admin migrate`: a Scan). */
export async function* teamPlans(): AsyncGenerator<{ teamId: number; plan: string | undefined }> {
  for await (const team of scanSortKey('TEAM', 'id, rate_limit_plan')) {
    yield { teamId: team.id as number, plan: team.rate_limit_plan as string | undefined };
  }
}

/**
 * GET /api/v1/limits: the team's quotas with their usage and the rate limit the caller's token is held to,
 * from one read of the team item.
 */
export async function getTeamLimits(
  teamId: number,
  token: string,
): Promise<{ quotas: Record<QuotaKind, Quota>; rateLimit: TeamRateLimit }> {
  const { Item = {} } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: teamKey(teamId), ConsistentRead: true }),
  );
  const plan = tokenTeamId(token) === teamId ? Item.rate_limit_plan : undefined;
  return { quotas: quotasOf(Item), rateLimit: rateLimitOf(plan, config.rateLimits()) };
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
