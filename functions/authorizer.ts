import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authorizeToken } from '../shared/http/authorizer.ts';

/**
 * TOKEN authorizer: the bearer token becomes the caller's team, or `Unauthorized` (401); the rules are in
 * shared/http/authorizer.ts.
 */
export const handler = (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> =>
  authorizeToken(event);
