import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import type { ChangeEvents } from '../../../lib/cdk/change-events.ts';
import { StackMonitoring } from '../../../lib/cdk/monitoring.ts';
import type { RouteFunction } from '../../../lib/cdk/route-areas.ts';
import { functionId } from '../../../lib/cdk/route-areas.ts';
import { readSettings } from '../../../lib/cdk/settings.ts';
import type { CfnTemplate } from '../../../lib/cdk/synth-offline.ts';
import type { WebhookDeliveries } from '../../../lib/cdk/webhook-deliveries.ts';
import { type Route, routeKey, routes } from '../../../shared/routes.ts';
import { CDK_JSON_CONTEXT } from '../../support/synth.ts';

/**
 * The monitoring at any number of routes: the routes of the route table, then 100 more generated ones (every
 * kind: read, write, S3, web-fetching), each in a stack of its own with the same alarms and dashboard as the
 * app's (lib/cdk/monitoring.ts), the functions it watches imported by name (stand-ins). What must hold at
 * every count, with its number and its source:
 * - a dashboard holds 0 to 500 widgets (CloudWatch, "Dashboard Body Structure and Syntax"; design brief §10);
 * - a Region holds 200 Metrics Insights alarms (CloudWatch, "Metrics Insights quotas");
 * - a stack holds 500 resources and 200 parameters (CloudFormation quotas): the nested stack's;
 * and the signal: a slow route alarms under its own name, a failing or throttled one as a contributor of a
 * Metrics Insights alarm grouped by what names the route.
 */
const DASHBOARD_WIDGETS = 500;
const METRICS_INSIGHTS_ALARMS = 200;
const STACK_RESOURCES = 500;
const STACK_PARAMETERS = 200;
const EXTRA_ROUTES = 100;

/** `count` routes: the route table's, then generated ones cycling through its kinds. */
function routesOf(count: number): Route[] {
  return Array.from({ length: count }, (_, i) => {
    const model = routes[i % routes.length] as Route;
    return i < routes.length ? model : { ...model, path: `${model.path}/generated-${i}` };
  });
}

// biome-ignore lint/suspicious/noExplicitAny: tests read synthesized CloudFormation loosely and assert on it.
type Resource = { Type: string; Properties: Record<string, any> };

interface Monitored {
  routes: Route[];
  template: CfnTemplate;
  alarms: Resource[];
  widgets: Array<{ type: string; properties: Record<string, unknown> }>;
}

/** The monitoring's nested template for `count` routes. */
function monitor(count: number): Monitored {
  const outdir = mkdtempSync(join(tmpdir(), 'monitoring-scale-'));
  const app = new App({ outdir, context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'TeamMessagingApi');
  // Stand-ins: the functions by name, the API with one method (it must have one); the monitoring reads the
  // routes' methods and paths from the route table, not from the API.
  const fn = (id: string) => LambdaFunction.fromFunctionName(stack, id, `TeamMessagingApi-${id}`);
  const api = new RestApi(stack, 'Api', {
    restApiName: 'TeamMessagingApi',
    deployOptions: { stageName: 'prod' },
  });
  api.root.addMethod('GET', new MockIntegration());
  const some = routesOf(count);
  const routeFunctions: Pick<RouteFunction, 'route' | 'id'>[] = some.map((route) => ({
    route,
    id: functionId(route.method, route.path),
  }));
  const table = new TableV2(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
  new StackMonitoring(stack, 'Monitoring', {
    api,
    apiStage: 'prod',
    routeFunctions,
    authorizer: fn('Authorizer'),
    table,
    indexNames: ['byId', 'byDueTime'],
    publicFiles: new Bucket(stack, 'PublicFiles'),
    changeEvents: {
      consumer: fn('Consumer'),
      failedRecords: new Queue(stack, 'Failed'),
    } as unknown as ChangeEvents,
    webhookDeliveries: { deliverer: fn('Deliverer'), sweeper: fn('Sweeper') } as unknown as WebhookDeliveries,
    settings: readSettings(stack.node),
  });
  const monitoring = stack.node.findChild('Monitoring') as StackMonitoring;
  const assembly = app.synth();
  const path = join(assembly.directory, monitoring.nestedStack.templateFile);
  const template = JSON.parse(readFileSync(path, 'utf8')) as CfnTemplate;
  rmSync(outdir, { recursive: true, force: true });
  const resources = Object.values(template.Resources ?? {}) as Resource[];
  const [dashboard, ...others] = resources.filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
  expect(others).toEqual([]);
  return {
    routes: some,
    template,
    alarms: resources.filter((r) => r.Type === 'AWS::CloudWatch::Alarm'),
    widgets: dashboardWidgets(dashboard?.Properties.DashboardBody),
  };
}

/** The widgets of a dashboard body: its `Fn::Join` read with every reference as a placeholder. */
function dashboardWidgets(body: unknown): Monitored['widgets'] {
  const join = (body as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  const text = join
    ? join[1].map((part) => (typeof part === 'string' ? part : 'REF')).join(join[0])
    : String(body);
  return (JSON.parse(text) as { widgets: Monitored['widgets'] }).widgets;
}

const today = monitor(routes.length);
const grown = monitor(routes.length + EXTRA_ROUTES);

describe(`monitoring at ${routes.length} routes and ${EXTRA_ROUTES} more`, () => {
  it('keeps the dashboard to the same widgets at any number of routes, under 500', () => {
    expect(today.widgets.length).toBeGreaterThan(10);
    expect(grown.widgets.length).toBe(today.widgets.length);
    expect(grown.widgets.length).toBeLessThanOrEqual(DASHBOARD_WIDGETS);
    // No widget is a route's: none names a generated route.
    expect(JSON.stringify(grown.widgets)).not.toContain('generated-');
  });

  it('adds one alarm a route (its p99 latency, named after it), two Metrics Insights alarms in all', () => {
    expect(grown.alarms.length - today.alarms.length).toBe(EXTRA_ROUTES);
    for (const m of [today, grown]) {
      const insights = m.alarms.filter((a) =>
        // biome-ignore lint/suspicious/noExplicitAny: CloudFormation read loosely.
        (a.Properties.Metrics as any[] | undefined)?.some((q) => String(q.Expression).startsWith('SELECT ')),
      );
      expect(insights.length).toBe(2);
      expect(insights.length).toBeLessThanOrEqual(METRICS_INSIGHTS_ALARMS);
      const resources = Object.keys(m.template.Resources ?? {}).length;
      expect(resources).toBeLessThanOrEqual(STACK_RESOURCES);
      expect(Object.keys(m.template.Parameters ?? {}).length).toBeLessThanOrEqual(STACK_PARAMETERS);
    }
    // The nested stack's parameters (what it watches) do not grow with the routes either.
    expect(Object.keys(grown.template.Parameters ?? {}).length).toBe(
      Object.keys(today.template.Parameters ?? {}).length,
    );
  });

  it('alarms on a slow route under its name, on its Method and Resource', () => {
    for (const route of grown.routes) {
      const id = functionId(route.method, route.path);
      const [latency, ...others] = grown.alarms.filter((a) => a.Properties.AlarmName.includes(`-${id}-`));
      expect(others, routeKey(route)).toEqual([]);
      expect(latency?.Properties.AlarmName).toBe(`TeamMessagingApi-Monitoring-${id}-Latency-P99-Critical`);
      expect(latency?.Properties.AlarmDescription).toContain(routeKey(route));
      // biome-ignore lint/suspicious/noExplicitAny: CloudFormation read loosely.
      const stat = ((latency?.Properties.Metrics ?? []) as any[]).find((m) => m.MetricStat)?.MetricStat;
      expect(stat).toMatchObject({
        Stat: 'p99',
        Metric: { Namespace: 'AWS/ApiGateway', MetricName: 'Latency' },
      });
      expect(stat.Metric.Dimensions).toEqual(
        expect.arrayContaining([
          { Name: 'Method', Value: route.method },
          { Name: 'Resource', Value: route.path },
        ]),
      );
    }
  });

  it('alarms on a failing or throttled route as a contributor named by its Method and Resource, or function', () => {
    const query = (name: string) =>
      grown.alarms.find(
        (a) => a.Properties.AlarmName === `TeamMessagingApi-Monitoring-Routes-${name}-Critical`,
      )?.Properties.Metrics[0].Expression as string;
    // GROUP BY the route's dimensions: each route a series, each series a contributor alarming on its own.
    expect(query('5xx')).toMatch(/FROM SCHEMA\("AWS\/ApiGateway", ApiName, Method, Resource, Stage\) /);
    expect(query('5xx')).toMatch(
      /WHERE ApiName = 'TeamMessagingApi' AND Stage = 'prod' GROUP BY Method, Resource /,
    );
    expect(query('Throttles')).toMatch(/FROM SCHEMA\("AWS\/Lambda", FunctionName\) GROUP BY FunctionName /);
    // At most 500 series a query (Metrics Insights quotas): the most first, so a route over is never cut.
    for (const name of ['5xx', 'Throttles']) {
      expect(query(name)).toMatch(/ ORDER BY SUM\(\) DESC LIMIT 500$/);
      expect(grown.routes.length).toBeLessThanOrEqual(500);
    }
  });
});
