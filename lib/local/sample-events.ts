import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type Route, routeKey } from '../../shared/routes.ts';
import { OPERATIONS } from '../openapi/operations.ts';
import { proxyEvent } from './lambda-events.ts';

/**
 * A route's sample event, derived from its row and its OpenAPI operation rather than kept as a file: the
 * API Gateway (REST) proxy event of the route for team 1 (the demo team `npm start` makes first), behind the
 * authorizer unless the route is public, with sample path parameters and the operation's example request
 * body. `npm run invoke` runs a route with it when no `--event` is given.
 */
export const SAMPLE_TOKEN = 'tm_standard_1_PutYourTokenHereFromNpmStartsOutput0000000000';

/** What the authorizer hands on for the sample token: team 1, the standard plan, every scope, no expiry. */
const SAMPLE_AUTHORIZER = {
  principalId: 'team:1',
  context: { teamId: '1', rateLimitPlan: 'standard', scopes: '*', expiresAt: '0' },
};

/** A path parameter's sample: the first value its schema allows (`asset`), else an id, 1. */
function sampleParameter(route: Route, name: string): string {
  const schema = OPERATIONS[routeKey(route)]?.pathParameters?.[name] as { enum?: unknown[] } | undefined;
  return String(schema?.enum?.[0] ?? 1);
}

export function routeSampleEvent(route: Route): APIGatewayProxyEvent {
  const operation = OPERATIONS[routeKey(route)];
  if (!operation) throw new Error(`no OpenAPI operation for ${routeKey(route)}: no sample body to derive`);
  const pathParameters: Record<string, string> = {};
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    pathParameters[name] = sampleParameter(route, name);
    return encodeURIComponent(pathParameters[name]);
  });
  const body = operation.example.request === undefined ? null : JSON.stringify(operation.example.request);
  const headers: [string, string][] = [
    ['Accept', 'application/json'],
    ['Host', '127.0.0.1:3000'],
    ...(route.public ? [] : [['Authorization', `Bearer ${SAMPLE_TOKEN}`] as [string, string]]),
    ...(body === null ? [] : [['Content-Type', 'application/json'] as [string, string]]),
  ];
  return proxyEvent(
    { region: 'us-east-1', apiId: 'local', stage: 'local' },
    {
      method: route.method,
      resource: route.path,
      path,
      pathParameters,
      headers,
      query: [],
      body,
      requestId: '00000000-0000-4000-8000-000000000000',
      sourceIp: '127.0.0.1',
      ...(!route.public && { authorizer: SAMPLE_AUTHORIZER }),
    },
  );
}
