import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import type { Route } from '../lib/routes.ts';

/**
 * Lambda events as API Gateway (and the local gateway, lib/local/gateway.ts) hands them to the functions:
 * a v1 proxy event whose authorizer context names the caller's team, and a TOKEN authorizer event.
 */
export interface BenchRequest {
  teamId: number;
  pathParams?: Record<string, string>;
  query?: Record<string, string[]>;
  body?: unknown;
  headers?: Record<string, string>;
}

export function proxyEvent(route: Route, request: BenchRequest): APIGatewayProxyEvent {
  const pathParams = request.pathParams ?? {};
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(pathParams[name] ?? ''),
  );
  const headers: Record<string, string> = {
    Accept: 'application/json',
    Authorization: 'Bearer tm_bench',
    ...(request.body !== undefined && { 'Content-Type': 'application/json' }),
    ...request.headers,
  };
  const query = request.query ?? {};
  const hasQuery = Object.keys(query).length > 0;
  const requestId = randomUUID();
  return {
    resource: route.path,
    path,
    httpMethod: route.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    // API Gateway keeps the last value of a repeated parameter in the single-value map.
    queryStringParameters: hasQuery
      ? Object.fromEntries(Object.entries(query).map(([name, values]) => [name, values.at(-1) as string]))
      : null,
    multiValueQueryStringParameters: hasQuery ? query : null,
    pathParameters: Object.keys(pathParams).length > 0 ? pathParams : null,
    stageVariables: null,
    body: request.body === undefined ? null : JSON.stringify(request.body),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      stage: 'bench',
      requestId,
      httpMethod: route.method,
      resourcePath: route.path,
      path,
      resourceId: 'bench',
      protocol: 'HTTP/1.1',
      requestTimeEpoch: Date.now(),
      authorizer: { principalId: `team:${request.teamId}`, teamId: String(request.teamId) },
      identity: { sourceIp: '127.0.0.1' },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

export function tokenEvent(token: string): APIGatewayTokenAuthorizerEvent {
  return {
    type: 'TOKEN',
    authorizationToken: `Bearer ${token}`,
    methodArn: 'arn:aws:execute-api:us-east-1:000000000000:bench/bench/GET/api/v1/brands',
  };
}

export function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + 10_000;
  return {
    awsRequestId: randomUUID(),
    functionName,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    callbackWaitsForEmptyEventLoop: false,
  } as Context;
}
