import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import * as build from '../lib/local/lambda-events.ts';
import type { Route } from '../shared/routes.ts';

/**
 * The bench's requests as Lambda events, built as the local gateway builds them (lib/local/lambda-events.ts):
 * a v1 proxy event whose authorizer context names the caller's team, and a TOKEN authorizer event.
 */
export interface BenchRequest {
  teamId: number;
  pathParams?: Record<string, string>;
  query?: Record<string, string[]>;
  body?: unknown;
  headers?: Record<string, string>;
}

const BENCH_API: build.ApiStage = { region: 'us-east-1', apiId: 'bench', stage: 'bench' };

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
  return build.proxyEvent(BENCH_API, {
    method: route.method,
    resource: route.path,
    path,
    pathParameters: pathParams,
    headers: Object.entries(headers),
    query: Object.entries(request.query ?? {}).flatMap(([name, values]) =>
      values.map((value): [string, string] => [name, value]),
    ),
    body: request.body === undefined ? null : JSON.stringify(request.body),
    requestId: randomUUID(),
    sourceIp: '127.0.0.1',
    authorizer: { principalId: `team:${request.teamId}`, context: { teamId: request.teamId } },
  });
}

export function tokenEvent(token: string): APIGatewayTokenAuthorizerEvent {
  return build.tokenEvent(`Bearer ${token}`, build.methodArn(BENCH_API, 'GET', '/api/v1/brands'));
}

export function lambdaContext(functionName: string): Context {
  return build.lambdaContext({ requestId: randomUUID(), functionName, timeoutMs: 10_000 });
}
