import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { rateLimitOf, type TeamRateLimit } from '../rate-limits.ts';
import { dynamo, nowIso, tableName } from './dynamo.ts';
import { nextId } from './ids.ts';
import { scanSortKey } from './items.ts';
import { teamKey } from './keys.ts';
import { type Quota, type QuotaKind, quotasOf } from './quotas.ts';
import { tokenPlan } from './tokens.ts';

/** Teams (their API tokens are tokens.ts's). */
export interface Team {
  id: number;
  name: string;
  created_at: string;
}

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

/** A team as the admin CLI lists it: the plan recorded for it, if any (none: the deployment's default). */
export interface TeamListing extends Team {
  plan: string | undefined;
}

/** Every team, by id (`team list`: a Scan of the table, as operator commands do). */
export async function listTeams(): Promise<TeamListing[]> {
  const teams: TeamListing[] = [];
  for await (const item of scanSortKey('TEAM')) {
    teams.push({
      id: item.id as number,
      name: item.name as string,
      created_at: item.created_at as string,
      plan: item.rate_limit_plan as string | undefined,
    });
  }
  return teams.sort((a, b) => a.id - b.id);
}

/** Every team with the rate limit plan recorded for it, if any (`admin migrate`: a Scan). */
export async function* teamPlans(): AsyncGenerator<{ teamId: number; plan: string | undefined }> {
  for await (const team of scanSortKey('TEAM', 'id, rate_limit_plan')) {
    yield { teamId: team.id as number, plan: team.rate_limit_plan as string | undefined };
  }
}

/**
 * GET /api/v1/limits: the team's quotas with their usage, from one read of the team item, and the rate
 * limit the caller's token is held to: the plan its first characters name, which is what WAF counts it
 * under (the default for a plan the deployment no longer defines, or a token made before tokens named one).
 */
export async function getTeamLimits(
  teamId: number,
  token: string,
): Promise<{ quotas: Record<QuotaKind, Quota>; rateLimit: TeamRateLimit }> {
  const { Item = {} } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: teamKey(teamId), ConsistentRead: true }),
  );
  return { quotas: quotasOf(Item), rateLimit: rateLimitOf(tokenPlan(token), config.rateLimits()) };
}
