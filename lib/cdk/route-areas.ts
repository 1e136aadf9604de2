import { Duration, NestedStack, type RemovalPolicy } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { functionTimeoutSeconds, pascalCase, type Route, routeFunctionName } from '../../shared/routes.ts';
import { ApiFunction } from './api-function.ts';
import { reservation, routeClass } from './concurrency.ts';
import { grantRouteAccess, type RouteResources } from './grants.ts';
import { acknowledgeObjectWildcards } from './nag.ts';
import type { Settings } from './settings.ts';

/**
 * The API's area a route belongs to: the first segment of its path after `/api/v1` (`brands`,
 * `webhook-endpoints`), or of the path itself for the routes outside it (`docs`); the docs' own document,
 * `/api/v1/openapi.json`, belongs with them.
 */
export function routeArea(route: Pick<Route, 'path'>): string {
  const [first = ''] = route.path
    .replace(/^\/api\/v1(?=\/)/, '')
    .split('/')
    .filter(Boolean);
  return first === 'openapi.json' ? 'docs' : first;
}

/** The routes of each area, in route table order. */
export function routesByArea(routes: readonly Route[]): Map<string, Route[]> {
  const areas = new Map<string, Route[]>();
  for (const route of routes) {
    const area = routeArea(route);
    areas.set(area, [...(areas.get(area) ?? []), route]);
  }
  return areas;
}

/** `webhook-endpoints` -> `WebhookEndpointsRoutes`: the area's nested stack's construct id. */
export const areaStackId = (area: string): string => `${pascalCase(area)}Routes`;

/** `GET /api/v1/brands/{id}` -> `GetApiV1BrandsId`: a stable construct id per route. */
export const functionId = (method: string, path: string): string => routeFunctionName({ method, path });

export interface RouteAreaProps {
  routes: readonly Route[];
  settings: Settings;
  resources: RouteResources;
  /** The API whose methods invoke the functions (the main stack's: methods stay there). */
  api: RestApi;
  /** The stage's name, a literal: its reference would make this stack depend on the stage, which depends on it. */
  stageName: string;
  /** Every function's environment; `rateLimits` is added for the routes behind the authorizer. */
  environment: Record<string, string>;
  rateLimits: Record<string, string>;
  /** Log groups made before the routes moved into areas, by function id: they stay where they are. */
  logGroups: ReadonlyMap<string, ILogGroup>;
  logRemovalPolicy: RemovalPolicy;
}

/**
 * The routes whose log groups were made in the main stack, before route functions moved into area stacks
 * (the 18 of the released template and those added since): a log group is stateful (its logs),
 * so they stay there under their logical ids, and the stateful guard passes. A route added since has its log
 * group in its area's stack.
 */
export const MAIN_STACK_LOG_GROUPS: readonly string[] = [
  'GetApiV1OpenapiJson',
  'GetDocs',
  'GetDocsAsset',
  'PostApiV1BrandsAutoConfigure',
  'GetApiV1ContactFieldsTypes',
  'GetApiV1ContactFields',
  'PostApiV1ContactFields',
  'GetApiV1ContactFieldsId',
  'PutApiV1ContactFieldsId',
  'DeleteApiV1ContactFieldsId',
  'GetApiV1Pages',
  'GetApiV1Brands',
  'PostApiV1Brands',
  'GetApiV1BrandsId',
  'PutApiV1BrandsId',
  'DeleteApiV1BrandsId',
  'GetApiV1Events',
  'GetApiV1EventsId',
  'GetApiV1EventsIdDeliveries',
  'PostApiV1EventsIdRedeliver',
  'GetApiV1WebhookEndpoints',
  'PostApiV1WebhookEndpoints',
  'GetApiV1WebhookEndpointsId',
  'PutApiV1WebhookEndpointsId',
  'DeleteApiV1WebhookEndpointsId',
  'PostApiV1WebhookEndpointsIdSecretRotate',
  'GetApiV1WebhookEndpointsIdAttempts',
  'GetApiV1WebhookEndpointsIdDeliveries',
  'PostApiV1WebhookEndpointsIdRecover',
  'GetApiV1Limits',
  'PostApiV1Files',
];

/** A route's function and its construct id (`GetApiV1BrandsId`: alarm and log names use it). */
export interface RouteFunction {
  route: Route;
  fn: ApiFunction;
  id: string;
}

/**
 * One area's route functions, in a nested stack of their own: each function, its role with what its row
 * declares, its log group (unless an older one is handed in) and API Gateway's permission to invoke it on
 * its method of the main stack's API. So a route adds its function's resources to its area's stack, not to
 * the main stack's 500, and an area of many routes is far from the 500 of its own. API Gateway's resources
 * and methods stay in the main stack: the API's deployment must see every method, and moving a method
 * between stacks would create it before deleting the old one, which API Gateway refuses.
 */
export class RouteArea extends NestedStack {
  readonly functions: RouteFunction[];

  constructor(scope: Construct, id: string, props: RouteAreaProps) {
    super(scope, id, { description: `Route functions of ${id}` });
    // Named as the construct: `<stack>-BrandsRoutes-<suffix>` in the console, not CDK's doubled hashed id.
    this.nestedStackResource?.overrideLogicalId(id);
    const { concurrency, functionMemory, xraySampleRate } = props.settings;
    this.functions = props.routes.map((route) => {
      const fnId = functionId(route.method, route.path);
      const fn = new ApiFunction(this, fnId, {
        entry: route.handler,
        environment: route.public ? props.environment : { ...props.environment, ...props.rateLimits },
        timeout: Duration.seconds(functionTimeoutSeconds(route)),
        memorySize: functionMemory[routeClass(route)],
        traced: xraySampleRate > 0,
        reservedConcurrentExecutions: reservation(concurrency, routeClass(route)),
        logGroup: props.logGroups.get(fnId),
        logRemovalPolicy: props.logRemovalPolicy,
      });
      acknowledgeObjectWildcards(fn, grantRouteAccess(fn, route, props.resources));
      // What LambdaIntegration would add in the method's stack: only this stage's method may invoke it.
      fn.addPermission('ApiInvoke', {
        principal: new ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: props.api.arnForExecuteApi(
          route.method,
          route.path.replace(/\{[^}]+\}/g, '*'),
          props.stageName,
        ),
      });
      return { route, fn, id: fnId };
    });
  }
}
