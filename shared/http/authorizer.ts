import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { isDependencyFailure } from '../aws.ts';
import { recordTokenUse, tokenOwner, utcDay } from '../data/tokens.ts';
import { formatScopes } from '../scopes.ts';
import { describeError, logger, MetricsBatch } from '../telemetry.ts';
import { bearerToken } from '../token-form.ts';

/**
 * The TOKEN authorizer's work: `Authorization: Bearer <token>` becomes the caller's team. Throwing
 * `Unauthorized` is how API Gateway is told to answer 401 (its Gateway Response renders
 * `{"message":"Unauthenticated."}`); any other error is an authorizer failure, which the stack answers 503
 * with Retry-After. One DynamoDB read (the token's item); the rate limit plan WAF counts the token under is in
 * the token's first characters: the handlers announce it (RateLimit-Policy). Counting is WAF's, before this
 * runs: no per-team key is named here. The first answer of a UTC day also records the day on the token
 * (`last_used_on`, what `admin token list` shows): one conditional write per token per day, and API Gateway
 * caches the answer besides.
 */
export async function authorizeToken(
  event: APIGatewayTokenAuthorizerEvent,
): Promise<APIGatewayAuthorizerResult> {
  const token = bearerToken(event.authorizationToken);
  const owner = token ? await tokenOwner(token).catch(logFailure) : undefined;
  const metrics = new MetricsBatch();
  metrics.count(owner === undefined ? 'AuthorizerDenied' : 'AuthorizerAllowed');
  metrics.publish();
  if (owner === undefined) throw new Error('Unauthorized');
  const today = utcDay();
  if (token && owner.lastUsedOn !== today) await recordTokenUse(token, today).catch(logUseNotRecorded);
  return {
    principalId: `team:${owner.teamId}`,
    // The policy covers every route of the stage: API Gateway caches it per token, not per method.
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeStage(event.methodArn) }],
    },
    // Context values are strings, numbers or booleans: no plan is '' (the default's), no expiry 0. The
    // answer is cached per token: the route checks the scopes and the expiry on every request.
    context: {
      teamId: owner.teamId,
      rateLimitPlan: owner.rateLimitPlan ?? '',
      scopes: formatScopes(owner.scopes),
      expiresAt: owner.expiresAt ? Math.floor(owner.expiresAt.getTime() / 1000) : 0,
    },
  };
}

function logFailure(error: unknown): never {
  if (isDependencyFailure(error)) logger().warn('dependency unavailable', describeError(error));
  else logger().error('authorizer failure', describeError(error));
  throw error;
}

/** A day not recorded is a listing a day behind: never a reason to refuse the caller. */
function logUseNotRecorded(error: unknown): void {
  logger().warn('token use not recorded', describeError(error));
}

/** `arn:aws:execute-api:region:account:api/stage/GET/path` -> `arn:aws:execute-api:region:account:api/stage/*` */
function wholeStage(methodArn: string): string {
  const [prefix = '', stage = '*'] = methodArn.split('/');
  return `${prefix}/${stage}/*`;
}
