import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { isDependencyFailure } from '../shared/aws.ts';
import { teamIdForToken, usageKeyFor } from '../shared/data/teams.ts';
import { describeError, logger, MetricsBatch } from '../shared/telemetry.ts';

/**
 * TOKEN authorizer: `Authorization: Bearer <token>` becomes the caller's team. Throwing `Unauthorized` is
 * how API Gateway is told to answer 401 (its Gateway Response renders `{"message":"Unauthenticated."}`);
 * any other error is an authorizer failure, which the stack answers 503 with Retry-After. One DynamoDB read
 * (the token's item): the team's API key for its usage plan follows from the API's id and the team's.
 */
export const handler = async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const token = /^Bearer ([^\s]+)$/i.exec(event.authorizationToken ?? '')?.[1];
  const teamId = token ? await teamIdForToken(token).catch(logFailure) : undefined;
  const metrics = new MetricsBatch();
  metrics.count(teamId === undefined ? 'AuthorizerDenied' : 'AuthorizerAllowed');
  metrics.publish();
  if (teamId === undefined) throw new Error('Unauthorized');
  return {
    principalId: `team:${teamId}`,
    // The policy covers every route of the stage: API Gateway caches it per token, not per method.
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeStage(event.methodArn) }],
    },
    context: { teamId },
    // The team's API key: API Gateway counts the request against the key's usage plan (rate, burst, quota).
    usageIdentifierKey: usageKeyFor(restApiId(event.methodArn), teamId),
  };
};

function logFailure(error: unknown): never {
  if (isDependencyFailure(error)) logger().warn('dependency unavailable', describeError(error));
  else logger().error('authorizer failure', describeError(error));
  throw error;
}

/** `arn:aws:execute-api:region:account:api/stage/GET/path` -> `api` */
const restApiId = (methodArn: string): string => methodArn.split(':')[5]?.split('/')[0] ?? '';

/** `arn:aws:execute-api:region:account:api/stage/GET/path` -> `arn:aws:execute-api:region:account:api/stage/*` */
function wholeStage(methodArn: string): string {
  const [prefix = '', stage = '*'] = methodArn.split('/');
  return `${prefix}/${stage}/*`;
}
