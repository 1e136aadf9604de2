import { createHash, randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { type RateLimits, rateLimitOf, type TeamRateLimit } from '../rate-limits.ts';
import { dynamo, nowIso, tableName } from './dynamo.ts';
import { nextId } from './ids.ts';
import { scanSortKey } from './items.ts';
import { padId, teamKey, tokenKey } from './keys.ts';
import { type Quota, type QuotaKind, quotasOf } from './quotas.ts';

/** Teams and their API tokens. A token is shown once; only its SHA-256 is stored. */
export interface Team {
  id: number;
  name: string;
  created_at: string;
}

const TOKEN_PREFIX = 'tm_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TOKEN_SHAPE = /^tm_[0-9A-Za-z]{40,60}$/;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

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

export async function createToken(teamId: number): Promise<string> {
  const token = TOKEN_PREFIX + toBase62(randomBytes(32));
  await dynamo().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...tokenKey(hashToken(token)), team_id: teamId, created_at: nowIso() },
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

/** The team a token belongs to, or undefined for a malformed, unknown or revoked token. */
export async function teamIdForToken(token: string): Promise<number | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: tableName(),
      Key: tokenKey(hashToken(token)),
      ProjectionExpression: 'team_id',
    }),
  );
  return Item?.team_id;
}

/**
 * The API key that names the team's usage plan to API Gateway (the authorizer's `usageIdentifierKey`): the
 * API's id and the team's, so the authorizer needs no read beyond the token's, the key never changes (a plan
 * change moves it to another usage plan) and two stacks in one account, where key values must be unique,
 * have different keys. It is no credential: with the API's key source AUTHORIZER, API Gateway ignores any
 * key a caller sends.
 */
export const usageKeyFor = (restApiId: string, teamId: number): string =>
  `${restApiId}-team-${padId(teamId)}`;

/** Records the team's rate limit plan (the admin CLI's `team plan`); returns the plan it had, if any. */
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

/** Every team with the rate limit plan recorded for it, if any (`admin migrate`: a Scan). */
export async function* teamPlans(): AsyncGenerator<{ teamId: number; plan: string | undefined }> {
  for await (const team of scanSortKey('TEAM', 'id, rate_limit_plan')) {
    yield { teamId: team.id as number, plan: team.rate_limit_plan as string | undefined };
  }
}

/** The rate limit the team is held to (the local gateway enforces it before each request). */
export async function teamRateLimit(teamId: number, limits: RateLimits): Promise<TeamRateLimit> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: teamKey(teamId), ProjectionExpression: 'rate_limit_plan' }),
  );
  return rateLimitOf(Item?.rate_limit_plan, limits);
}

/** GET /api/v1/limits: the team's quotas with their usage and its rate limit, from one read of the team item. */
export async function getTeamLimits(
  teamId: number,
): Promise<{ quotas: Record<QuotaKind, Quota>; rateLimit: TeamRateLimit }> {
  const { Item = {} } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: teamKey(teamId), ConsistentRead: true }),
  );
  return { quotas: quotasOf(Item), rateLimit: rateLimitOf(Item.rate_limit_plan, config.rateLimits()) };
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
