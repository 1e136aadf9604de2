import { config } from '../../shared/config.ts';
import { usageKeyFor } from '../../shared/data/teams.ts';

/**
 * What puts a team's API key into its usage plan on a deployed stack, as AWS CLI commands for the operator
 * to run: this repository has no API Gateway SDK client (@aws-sdk/client-api-gateway is not a dependency),
 * so the CLI records the plan in the table and says what API Gateway needs. Locally there is no API Gateway
 * (the local gateway reads the plan from the table): nothing to print.
 *
 * `usagePlans` is the stack's `RateLimitPlanIds` output (`standard=abc123 bulk=def456`); without it the
 * commands name the plan where its id goes.
 */
export function apiGatewaySteps(
  teamId: number,
  plan: string,
  previousPlan: string | undefined,
  usagePlans: string | undefined,
): { api_gateway?: string[] } {
  if (config.dynamodbEndpoint() !== undefined) return {};
  const ids = new Map(
    (usagePlans ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => pair.split('=', 2) as [string, string]),
  );
  const planId = (name: string) => ids.get(name) ?? `<${name} id from the RateLimitPlanIds output>`;
  const name = `team-${teamId}`;
  const keyId = `"$(aws apigateway get-api-keys --name-query ${name} --query 'items[0].id' --output text)"`;
  const steps = [
    `aws apigateway get-api-keys --name-query ${name} --query 'items[0].id' --output text | grep -qv None || aws apigateway create-api-key --name ${name} --value ${usageKeyFor(teamId)} --enabled`,
  ];
  if (previousPlan && previousPlan !== plan) {
    steps.push(
      `aws apigateway delete-usage-plan-key --usage-plan-id ${planId(previousPlan)} --key-id ${keyId}`,
    );
  }
  steps.push(
    `aws apigateway create-usage-plan-key --usage-plan-id ${planId(plan)} --key-type API_KEY --key-id ${keyId}`,
  );
  return { api_gateway: steps };
}
