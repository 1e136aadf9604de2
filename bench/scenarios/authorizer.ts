import { createToken } from '../../shared/data/tokens.ts';
import { authorize, newTeamId, once, READS, type Scenario } from './common.ts';

/** API Gateway caches the authorizer's answer per token; these are the uncached call. */
export function authorizerScenarios(): Scenario[] {
  const tokenTeam = once(async () => {
    const teamId = await newTeamId('Bench tokens');
    return createToken(teamId);
  });

  return [
    {
      name: 'authorizer, valid token',
      endpoint: 'authorizer',
      budget: 1,
      expectedStatus: 200,
      warmup: 10,
      iterations: READS,
      next: async () => authorize(await tokenTeam()),
    },
    {
      name: 'authorizer, unknown token (401)',
      endpoint: 'authorizer',
      budget: 1,
      expectedStatus: 401,
      warmup: 10,
      iterations: READS,
      next: () => authorize(`tm_${'x'.repeat(43)}`),
    },
  ];
}
