import {
  GetRegexPatternSetCommand,
  UpdateRegexPatternSetCommand,
  WAFOptimisticLockException,
  WAFV2Client,
} from '@aws-sdk/client-wafv2';
import { config } from '../../shared/config.ts';
import { PLAN_SET_QUOTA, planSetPatterns, planSetTeams } from '../../shared/rate-limits.ts';
import { UsageError } from './args.ts';

/**
 * A deployed stack's named rate limit plans: each has a WAF regex pattern set of the teams assigned to it
 * (lib/cdk/rate-limits.ts), which the stack makes and the admin CLI keeps. `team plan` moves one team,
 * `migrate` writes every set from the table. The table's plan is the record; a set is what WAF counts by.
 * Only these calls touch AWS's control plane, and only for teams on a named plan: `team create` makes none.
 */
export interface PlanSet {
  plan: string;
  name: string;
  id: string;
}

/** `bulk=arn:aws:wafv2:<region>:<account>:regional/regexpatternset/<name>/<id>,...` (the AdminTarget output). */
export function parsePlanSets(flag: string): PlanSet[] {
  return flag.split(',').map((entry) => {
    const [plan = '', arn = ''] = entry.split('=');
    const [, name, id] = /:regional\/regexpatternset\/([^/]+)\/([^/]+)$/.exec(arn) ?? [];
    if (!plan || !name || !id)
      throw new UsageError(`--plan-sets: "${entry}" is not plan=<regex pattern set ARN>`);
    return { plan, name, id };
  });
}

/** How many times a set is read and written again when another writer changed it in between. */
const LOCK_ATTEMPTS = 5;

export class PlanSets {
  private readonly client = new WAFV2Client({ region: config.region() });

  constructor(readonly sets: readonly PlanSet[]) {}

  /** The team in `plan`'s set (none for the default plan) and in no other. */
  async assign(teamId: number, plan: string): Promise<void> {
    for (const set of this.sets) {
      await this.update(set, (teams) => {
        if (set.plan === plan) teams.add(teamId);
        else teams.delete(teamId);
      });
    }
  }

  /** Each set holding exactly the teams the table assigns to its plan (`migrate`). */
  async write(teamsByPlan: ReadonlyMap<string, ReadonlySet<number>>): Promise<Record<string, number>> {
    const written: Record<string, number> = {};
    for (const set of this.sets) {
      const wanted = teamsByPlan.get(set.plan) ?? new Set<number>();
      await this.update(set, (teams) => {
        teams.clear();
        for (const team of wanted) teams.add(team);
      });
      written[set.plan] = wanted.size;
    }
    return written;
  }

  /** Reads the set, changes its teams, writes it back unless unchanged; again if another writer came first. */
  private async update(set: PlanSet, change: (teams: Set<number>) => void): Promise<void> {
    const address = { Name: set.name, Id: set.id, Scope: 'REGIONAL' as const };
    for (let attempt = 1; ; attempt++) {
      const { RegexPatternSet, LockToken } = await this.client.send(new GetRegexPatternSetCommand(address));
      const current = (RegexPatternSet?.RegularExpressionList ?? []).map((regex) => regex.RegexString ?? '');
      const teams = planSetTeams(current);
      change(teams);
      const patterns = planSetPatterns(teams);
      if (!patterns) {
        throw new UsageError(
          `plan ${set.plan} is full: its WAF regex pattern set holds ${PLAN_SET_QUOTA.patterns} patterns of ` +
            `${PLAN_SET_QUOTA.patternCharacters} characters (README, "Rate limits")`,
        );
      }
      if (patterns.join('\n') === current.join('\n')) return;
      try {
        await this.client.send(
          new UpdateRegexPatternSetCommand({
            ...address,
            Description: RegexPatternSet?.Description,
            RegularExpressionList: patterns.map((RegexString) => ({ RegexString })),
            LockToken,
          }),
        );
        return;
      } catch (error) {
        if (!(error instanceof WAFOptimisticLockException) || attempt >= LOCK_ATTEMPTS) throw error;
      }
    }
  }
}
