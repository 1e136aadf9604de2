import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { type Dictionary, dictionary } from '../../shared/http/request-data.ts';

/**
 * Lambda events and contexts as API Gateway (REST, v1) hands them to the functions: the proxy event of a
 * route, the TOKEN authorizer event, and the invocation context. Built for the local gateway and the bench.
 */

const ACCOUNT_ID = '000000000000';

/** The API the events say they come from. */
export interface ApiStage {
  region: string;
  apiId: string;
  stage: string;
}

/** A request as API Gateway received it, already matched to a resource of the route table. */
export interface ProxyRequest {
  method: string;
  /** The resource's path template, `/api/v1/brands/{id}`. */
  resource: string;
  /** The concrete path, as sent. */
  path: string;
  /** The template's parameters, decoded. */
  pathParameters: Readonly<Dictionary<string>>;
  /** Header pairs in the order sent; a repeated name keeps every value. */
  headers: Iterable<readonly [string, string]>;
  /** Query pairs in the order sent (a URLSearchParams will do); a repeated name keeps every value. */
  query: Iterable<readonly [string, string]>;
  /** The body as text; an empty body is null, as API Gateway sends it. */
  body: string | null;
  requestId: string;
  sourceIp: string;
  /** What the authorizer answered: its principal, and its context (handed on as strings); none on a public route. */
  authorizer?: Pick<APIGatewayAuthorizerResult, 'principalId' | 'context'>;
}

/** The ARN of a method call, as the TOKEN authorizer sees it. */
export function methodArn(api: ApiStage, method: string, path: string): string {
  return `arn:aws:execute-api:${api.region}:${ACCOUNT_ID}:${api.apiId}/${api.stage}/${method}${path}`;
}

export function tokenEvent(authorizationToken: string, methodArn: string): APIGatewayTokenAuthorizerEvent {
  return { type: 'TOKEN', authorizationToken, methodArn };
}

/** The v1 proxy event: null-prototype maps, single-value maps keeping the last value of a repeated name. */
export function proxyEvent(api: ApiStage, request: ProxyRequest): APIGatewayProxyEvent {
  const singleHeaders = dictionary<string>();
  const multiHeaders = dictionary<string[]>();
  for (const [name, value] of request.headers) {
    singleHeaders[name] = value;
    (multiHeaders[name] ??= []).push(value);
  }
  const multiQuery = dictionary<string[]>();
  for (const [name, value] of request.query) (multiQuery[name] ??= []).push(value);
  const hasQuery = Object.keys(multiQuery).length > 0;
  const hasParams = Object.keys(request.pathParameters).length > 0;
  return {
    resource: request.resource,
    path: request.path,
    httpMethod: request.method,
    headers: singleHeaders,
    multiValueHeaders: multiHeaders,
    // API Gateway keeps the last value of a repeated parameter in the single-value map.
    queryStringParameters: hasQuery
      ? dictionary(Object.entries(multiQuery).map(([name, values]) => [name, values.at(-1) as string]))
      : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: hasParams ? dictionary(Object.entries(request.pathParameters)) : null,
    stageVariables: null,
    body: request.body === '' ? null : request.body,
    isBase64Encoded: false,
    requestContext: {
      accountId: ACCOUNT_ID,
      apiId: api.apiId,
      stage: api.stage,
      requestId: request.requestId,
      httpMethod: request.method,
      resourcePath: request.resource,
      path: request.path,
      resourceId: api.apiId,
      protocol: 'HTTP/1.1',
      requestTimeEpoch: Date.now(),
      authorizer: request.authorizer && {
        principalId: request.authorizer.principalId,
        ...stringValues(request.authorizer.context ?? {}),
      },
      identity: { sourceIp: request.sourceIp },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

/** The invocation context; `getRemainingTimeInMillis` counts down from `timeoutMs` from now. */
export function lambdaContext(options: {
  requestId: string;
  functionName: string;
  timeoutMs: number;
}): Context {
  const deadline = Date.now() + options.timeoutMs;
  return {
    awsRequestId: options.requestId,
    functionName: options.functionName,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    callbackWaitsForEmptyEventLoop: false,
  } as Context;
}

/** API Gateway passes authorizer context values to the integration as strings. */
function stringValues(context: Record<string, unknown>): Dictionary<string> {
  return dictionary(Object.entries(context).map(([key, value]) => [key, String(value)]));
}
