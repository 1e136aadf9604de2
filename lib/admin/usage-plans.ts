import {
  APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  paginateGetUsagePlans,
} from '@aws-sdk/client-api-gateway';
import { config } from '../../shared/config.ts';
import { usageKeyFor } from '../../shared/data/teams.ts';
import { DEFAULT_RATE_LIMIT_PLAN_TAG, RATE_LIMIT_PLAN_TAG } from '../../shared/rate-limits.ts';
import { UsageError } from './args.ts';

/**
 * A deployed stack's per-team rate limits live in API Gateway: each team's API key (the value the
 * authorizer names, `usageKeyFor`) must be in the usage plan of the team's plan, or API Gateway answers
 * the team 403. Teams are data, not stack resources, so the admin CLI puts the keys there: `team create`,
 * `team plan` and `migrate` (every team). Safe to repeat: a key or membership that exists is kept.
 */
export class UsagePlanKeys {
  private readonly client = new APIGatewayClient({ region: config.region() });
  private plans?: Promise<StackPlans>;

  constructor(private readonly restApiId: string) {}

  /** The rate limit plans the stack defines on this API, found by the stack's tags. */
  stackPlans(): Promise<StackPlans> {
    this.plans ??= (async () => {
      const ids = new Map<string, string>();
      let defaultPlan: string | undefined;
      for await (const page of paginateGetUsagePlans({ client: this.client }, {})) {
        for (const plan of page.items ?? []) {
          const name = plan.tags?.[RATE_LIMIT_PLAN_TAG];
          if (name && plan.id && plan.apiStages?.some((stage) => stage.apiId === this.restApiId)) {
            ids.set(name, plan.id);
            if (plan.tags?.[DEFAULT_RATE_LIMIT_PLAN_TAG] === 'true') defaultPlan = name;
          }
        }
      }
      if (!defaultPlan)
        throw new UsageError(`API ${this.restApiId} has no rate limit plans: deploy the stack`);
      return { ids, defaultPlan };
    })();
    return this.plans;
  }

  /** Puts the team's key (made if missing) in the plan's usage plan and in no other of the stack's. */
  async place(teamId: number, plan: string): Promise<void> {
    const { ids: planIds } = await this.stackPlans();
    const target = planIds.get(plan);
    if (!target) throw new UsageError(`API ${this.restApiId} has no rate limit plan "${plan}"`);
    const keyId = await this.keyId(teamId);
    const memberships = await this.plansHolding(keyId, new Set(planIds.values()));
    const { leave, join } = planMoves(memberships, target);
    // A key may be in one usage plan per stage: it leaves its old plan before joining the new one (the
    // team's requests in between, a few milliseconds, are refused 403).
    for (const usagePlanId of leave) {
      await this.client.send(new DeleteUsagePlanKeyCommand({ usagePlanId, keyId }));
    }
    if (join) {
      await this.client
        .send(new CreateUsagePlanKeyCommand({ usagePlanId: target, keyId, keyType: 'API_KEY' }))
        .catch(alreadyDone);
    }
  }

  private async keyId(teamId: number): Promise<string> {
    const name = `team-${teamId}-${this.restApiId}`;
    const find = async () => {
      const { items = [] } = await this.client.send(new GetApiKeysCommand({ nameQuery: name }));
      return items.find((key) => key.name === name)?.id;
    };
    const existing = await find();
    if (existing) return existing;
    const value = usageKeyFor(this.restApiId, teamId);
    const created = await this.client
      .send(new CreateApiKeyCommand({ name, value, enabled: true }))
      .catch(alreadyDone);
    const id = created?.id ?? (await find());
    if (!id) throw new Error(`API key ${name} was neither made nor found`);
    return id;
  }

  /** Which of the stack's usage plans hold the key. */
  private async plansHolding(keyId: string, stackPlans: Set<string>): Promise<string[]> {
    const holding: string[] = [];
    for await (const page of paginateGetUsagePlans({ client: this.client }, { keyId })) {
      for (const plan of page.items ?? []) if (plan.id && stackPlans.has(plan.id)) holding.push(plan.id);
    }
    return holding;
  }
}

/** The stack's usage plans by rate limit plan name, and the plan of a team that was assigned none. */
interface StackPlans {
  ids: Map<string, string>;
  defaultPlan: string;
}

/** What moves a key from the usage plans that hold it into `target` alone. */
export function planMoves(holding: readonly string[], target: string): { leave: string[]; join: boolean } {
  return { leave: holding.filter((id) => id !== target), join: !holding.includes(target) };
}

/** Another run of the CLI made the same key or membership first: that is what was wanted. */
function alreadyDone(error: unknown): undefined {
  if (error instanceof ConflictException) return undefined;
  throw error;
}
