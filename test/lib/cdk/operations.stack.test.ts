import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnResource, TagManager } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ApiFunction } from '../../../lib/cdk/api-function.ts';
import { readReleasedTemplate } from '../../../lib/cdk/released-template.ts';
import { DEFAULT_SETTINGS } from '../../../lib/cdk/settings.ts';
import { STATEFUL_TYPES } from '../../../lib/cdk/stateful-guard.ts';
import { ID_INDEX } from '../../../shared/data/dynamo.ts';
import { TABLE_SCHEMA } from '../../../shared/data/table-schema.ts';
import { type Route, routes } from '../../../shared/routes.ts';
import { ROOT } from '../../support/processes.ts';
import {
  defaultAndOverridden,
  functionOfRoute,
  inMonitoring,
  logicalId,
  type Synthesized,
  synthesize,
} from '../../support/synth.ts';

/**
 * The stack's operating surface: tracing, the functions' logger and metrics settings, throttling, logs,
 * alarms and the dashboard. The production stack with cdk.json's defaults, and the dev stack with `-c`
 * overrides (as the CLI passes them: strings), each synthesized once (without bundling).
 */
const OVERRIDES = {
  throttleRate: '50',
  throttleBurst: '75',
  logLevel: 'debug',
  serviceName: 'messaging-eu',
  metricsNamespace: 'MessagingEu',
  alarmEmail: 'ops@example.com',
  alarms: '{"p99LatencyMs": 2000, "lambdaErrors": 3, "evaluationPeriods": 5, "datapointsToAlarm": 4}',
  quotas: '{"brands": 50, "pages": 200}',
};

const stacks = defaultAndOverridden(OVERRIDES);
const DUE_INDEX = TABLE_SCHEMA.dueIndex.name;

// biome-ignore lint/suspicious/noExplicitAny: tests read synthesized CloudFormation loosely and assert on it.
type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };
const resources = (s: Synthesized, type: string) =>
  Object.values(s.template.findResources(type)) as Resource[];
/** The alarms or the dashboard: in the monitoring's nested stack, its parameters resolved. */
const monitoring = (s: Synthesized, type: string) => resources(inMonitoring(s), type);
const stage = (s: Synthesized) => resources(s, 'AWS::ApiGateway::Stage')[0]?.Properties;
/**
 * The stack's functions (routes, the authorizer, the change-event consumer), not CDK's own (LogRetention,
 * bucket emptying).
 */
const apiFunctions = (s: Synthesized) => {
  const ours = s.stack.node.findAll().filter((c) => c instanceof ApiFunction);
  return ours.map(
    (fn) => s.template.toJSON().Resources[logicalId(s.stack, fn.node.defaultChild)] as Resource,
  );
};

describe('CDK stack: protection and cost allocation', () => {
  it('protects the production stack from deletion, and not the disposable dev stack', () => {
    expect(stacks.synth.stack.terminationProtection).toBe(true);
    expect(stacks.synth.assembly.getStackArtifact(stacks.synth.stack.artifactId).terminationProtection).toBe(
      true,
    );
    expect(stacks.overridden.stack.terminationProtection).toBe(false);
  });

  it('tags every resource that takes tags with its service and stage, CDK’s own included', () => {
    for (const [s, service, stageTag] of [
      [stacks.synth, 'team-messaging-api', 'prod'],
      [stacks.overridden, 'messaging-eu', 'dev'],
    ] as const) {
      const template = s.template.toJSON().Resources as Record<string, Resource>;
      const taggable = s.stack.node
        .findAll()
        .filter((c): c is CfnResource => CfnResource.isCfnResource(c) && TagManager.isTaggable(c));
      expect(taggable.length).toBeGreaterThan(50);
      for (const resource of taggable) {
        const id = logicalId(s.stack, resource);
        const tags = template[id]?.Properties.Tags;
        // A list of {Key, Value} for most types, a map for a few (e.g. SSM parameters).
        const values = Array.isArray(tags)
          ? Object.fromEntries(tags.map((tag: { Key: string; Value: string }) => [tag.Key, tag.Value]))
          : (tags ?? {});
        expect({ id, service: values.service, stage: values.stage }).toEqual({
          id,
          service,
          stage: stageTag,
        });
      }
    }
  });
});

describe('CDK stack: settings', () => {
  it('lists every default in cdk.json, so a deploy and a test synthesize the same stack', () => {
    const cdkJson = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8'));
    const settings = Object.entries(cdkJson.context).filter(([key]) => !key.startsWith('@aws-cdk'));
    expect(Object.fromEntries(settings)).toEqual(DEFAULT_SETTINGS);
  });

  it('carries the feature flags cdk init writes for the aws-cdk-lib in use, but the one README names', () => {
    const cdkJson = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8'));
    const flags = Object.fromEntries(
      Object.entries(cdkJson.context).filter(([key]) => key.startsWith('@aws-cdk')),
    );
    const recommended = JSON.parse(
      readFileSync(join(ROOT, 'node_modules/aws-cdk-lib/recommended-feature-flags.json'), 'utf8'),
    );
    expect(flags).toEqual({ ...recommended, '@aws-cdk/aws-lambda-nodejs:useLatestRuntimeVersion': false });
    expect(flags['@aws-cdk/core:validateAgainstDefaultRules']).toBe(true);
  });

  it("gives every function (routes, the authorizer, the consumer, the deliverer, the sweeper) the logger's and metrics' settings", () => {
    const functions = apiFunctions(stacks.synth);
    expect(functions).toHaveLength(routes.length + 4);
    for (const fn of functions) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        SERVICE_NAME: 'team-messaging-api',
        METRICS_NAMESPACE: 'TeamMessagingApi',
        LOG_LEVEL: 'INFO',
      });
    }
    for (const fn of apiFunctions(stacks.overridden)) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        SERVICE_NAME: 'messaging-eu',
        METRICS_NAMESPACE: 'MessagingEu',
        LOG_LEVEL: 'DEBUG',
        QUOTAS: '{"brands":50,"pages":200}',
      });
    }
    // Without `quotas` in the context the functions use the built-in defaults.
    for (const fn of functions) expect(fn.Properties.Environment.Variables.QUOTAS).toBeUndefined();
  });

  it('throttles the stage at the context rate and burst', () => {
    const throttling = (s: Synthesized) => {
      const [settings] = stage(s)?.MethodSettings ?? [];
      return [settings.ThrottlingRateLimit, settings.ThrottlingBurstLimit];
    };
    expect(throttling(stacks.synth)).toEqual([10000, 5000]);
    expect(throttling(stacks.overridden)).toEqual([50, 75]);
  });

  it.each([
    [{ throttleRate: 'fast' }, /throttleRate/],
    // API Gateway takes a whole burst only; CloudWatch's names are 255 characters at most.
    [{ throttleBurst: '1.5' }, /throttleBurst: a whole number/],
    [{ serviceName: 's'.repeat(256) }, /serviceName: 255 characters at most/],
    [{ metricsNamespace: 'N'.repeat(256) }, /metricsNamespace: 255 characters at most/],
    [{ logLevel: 'LOUD' }, /logLevel/],
    [{ alarms: '{"p99LatencyMS":1}' }, /alarms.p99LatencyMS: unknown/],
    [{ alarms: { datapointsToAlarm: 4 } }, /datapointsToAlarm/],
    [{ alarmEmail: 'ops' }, /alarmEmail/],
  ])('refuses the context %j, naming the key', (context, message) => {
    expect(() => synthesize({ full: false, context })).toThrow(message);
  });
});

describe('CDK stack: tracing', () => {
  it('traces every request with X-Ray: on the stage and in every function', () => {
    expect(stage(stacks.synth)?.TracingEnabled).toBe(true);
    const functions = apiFunctions(stacks.synth);
    expect(functions).toHaveLength(routes.length + 4);
    for (const fn of functions) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    }
  });
});

describe('CDK stack: access logs', () => {
  it('writes one JSON line per request with the ids, route, status, latencies and errors', () => {
    const format = JSON.parse(stage(stacks.synth)?.AccessLogSetting.Format);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      xrayTraceId: '$context.xrayTraceId',
      ip: '$context.identity.sourceIp',
      method: '$context.httpMethod',
      resource: '$context.resourcePath',
      status: '$context.status',
      latencyMs: '$context.responseLatency',
      authorizerLatencyMs: '$context.authorizer.latency',
      integrationLatencyMs: '$context.integrationLatency',
      integrationStatus: '$context.integrationStatus',
      authorizerError: '$context.authorizer.error',
    });
  });
});

describe('CDK stack: logs', () => {
  it('keeps every log group of the template for a limited time', () => {
    for (const s of [stacks.synth, stacks.overridden]) {
      const logGroups = resources(s, 'AWS::Logs::LogGroup');
      expect(logGroups.length).toBeGreaterThan(routes.length);
      for (const logGroup of logGroups) expect(logGroup.Properties.RetentionInDays).toBeGreaterThan(0);
    }
  });

  it('gives a retention to the log groups AWS creates outside the template', () => {
    const retained = (s: Synthesized) =>
      resources(s, 'Custom::LogRetention').map((r) => ({
        name: stringify(r.Properties.LogGroupName),
        days: r.Properties.RetentionInDays as number,
      }));
    const api = logicalId(stacks.synth.stack, stacks.synth.stack.api.node.defaultChild);
    const apiStage = logicalId(stacks.synth.stack, stacks.synth.stack.api.deploymentStage.node.defaultChild);
    const [executionLogs, ...others] = retained(stacks.synth);
    expect(others).toEqual([]);
    expect(executionLogs?.name).toContain(
      `API-Gateway-Execution-Logs_",{"Ref":"${api}"},"/",{"Ref":"${apiStage}"}`,
    );
    expect(executionLogs?.days).toBe(30);
    // The dev stack's bucket-emptying function logs too.
    const [, autoDelete, ...more] = retained(stacks.overridden);
    expect(more).toEqual([]);
    expect(autoDelete?.name).toMatch(
      /\/aws\/lambda\/.*CustomS3AutoDeleteObjectsCustomResourceProviderHandler/,
    );
    expect(autoDelete?.days).toBe(1);
  });
});

const stringify = (value: unknown) => JSON.stringify(value);

interface AlarmMetric {
  namespace: string;
  name: string;
  dimensions: Record<string, unknown>;
  stat: string;
}
const dimensionsOf = (list: Array<{ Name: string; Value: unknown }> = []) =>
  Object.fromEntries(list.map((d) => [d.Name, d.Value]));
/** The metrics an alarm watches, inside a math expression or not. */
function metricsOf(alarm: Resource): AlarmMetric[] {
  const p = alarm.Properties;
  if (p.MetricName) {
    const stat = p.Statistic ?? p.ExtendedStatistic;
    return [{ namespace: p.Namespace, name: p.MetricName, dimensions: dimensionsOf(p.Dimensions), stat }];
  }
  // biome-ignore lint/suspicious/noExplicitAny: CloudFormation read loosely.
  return (p.Metrics as any[])
    .filter((m) => m.MetricStat)
    .map(({ MetricStat: { Metric, Stat } }) => ({
      namespace: Metric.Namespace,
      name: Metric.MetricName,
      dimensions: dimensionsOf(Metric.Dimensions),
      stat: Stat,
    }));
}
/** The alarms watching `namespace` `name` with (at least) these dimensions. */
const alarmsOn = (s: Synthesized, namespace: string, name: string, dimensions: Record<string, unknown>) =>
  monitoring(s, 'AWS::CloudWatch::Alarm').filter((alarm) =>
    metricsOf(alarm).some(
      (m) =>
        m.namespace === namespace &&
        m.name === name &&
        Object.entries(dimensions).every(([k, v]) => stringify(m.dimensions[k]) === stringify(v)),
    ),
  );
/**
 * The Metrics Insights alarms (a query, not a metric) whose query contains `text`: each series the query
 * returns (GROUP BY) is a contributor of the alarm, alarming on its own and named by its dimensions.
 */
const insightsAlarms = (s: Synthesized, text: string) =>
  monitoring(s, 'AWS::CloudWatch::Alarm').filter((alarm) =>
    // biome-ignore lint/suspicious/noExplicitAny: CloudFormation read loosely.
    (alarm.Properties.Metrics as any[] | undefined)?.some(
      (m) =>
        typeof m.Expression === 'string' && m.Expression.startsWith('SELECT ') && m.Expression.includes(text),
    ),
  );
const ref = (s: Synthesized, construct: { node: { defaultChild?: unknown } }) => ({
  Ref: logicalId(s.stack, construct.node.defaultChild),
});
const routeFunction = (s: Synthesized, route: Route) => functionOfRoute(s.stack, route) as never;
const authorizer = (s: Synthesized) => s.stack.node.findChild('Authorizer') as never;

describe('CDK stack: alarms', () => {
  it('alarms on the share of requests answered 5xx by the stage', () => {
    const [fault5xx, ...others] = alarmsOn(stacks.synth, 'AWS/ApiGateway', '5XXError', {
      ApiName: 'TeamMessagingApi',
    });
    expect(others).toEqual([]);
    expect(metricsOf(fault5xx as Resource)[0]?.stat).toBe('Average');
    expect(metricsOf(fault5xx as Resource)[0]?.dimensions.Method).toBeUndefined();
    expect(fault5xx?.Properties.Threshold).toBe(0.01);
    // The stage by name (the monitoring's literal), which is the deployed stage's.
    for (const [s, name] of [
      [stacks.synth, 'prod'],
      [stacks.overridden, 'dev'],
    ] as const) {
      expect(stage(s)?.StageName).toBe(name);
      const [onStage] = alarmsOn(s, 'AWS/ApiGateway', '5XXError', { ApiName: s.stack.stackName });
      expect(metricsOf(onStage as Resource)[0]?.dimensions.Stage).toBe(name);
    }
  });

  it('alarms on the p99 latency of every route at API Gateway (the web-fetching one allowed longer)', () => {
    for (const route of routes) {
      const on = { Method: route.method, Resource: route.path };
      const [latency, ...others] = alarmsOn(stacks.synth, 'AWS/ApiGateway', 'Latency', on);
      expect(others, `${route.method} ${route.path}`).toEqual([]);
      expect(metricsOf(latency as Resource)[0]?.stat).toBe('p99');
      expect(latency?.Properties.Threshold).toBe(route.fetchesWeb ? 10000 : 3000);
      expect(alarmsOn(stacks.overridden, 'AWS/ApiGateway', 'Latency', on)[0]?.Properties.Threshold).toBe(
        route.fetchesWeb ? 10000 : 2000,
      );
    }
  });

  it('alarms on the 5xx and throttles of every route in one alarm each, the authorizer failures apart from its 401s', () => {
    for (const s of [stacks.synth, stacks.overridden]) {
      // No alarm a route function: the Metrics Insights alarms below watch them all.
      for (const route of routes) {
        const fn = { FunctionName: ref(s, routeFunction(s, route)) };
        expect(alarmsOn(s, 'AWS/Lambda', 'Errors', fn), `${route.method} ${route.path}`).toEqual([]);
        expect(alarmsOn(s, 'AWS/Lambda', 'Throttles', fn), `${route.method} ${route.path}`).toEqual([]);
      }
      const stageName = stage(s)?.StageName;
      const [errors, ...moreErrors] = insightsAlarms(s, 'SUM("5XXError")');
      expect(moreErrors).toEqual([]);
      expect(errors?.Properties.Metrics[0].Expression).toBe(
        'SELECT SUM("5XXError") FROM SCHEMA("AWS/ApiGateway", ApiName, Method, Resource, Stage) ' +
          `WHERE ApiName = '${s.stack.stackName}' AND Stage = '${stageName}' GROUP BY Method, Resource ` +
          'ORDER BY SUM() DESC LIMIT 500',
      );
      expect(errors?.Properties.AlarmName).toBe(`${s.stack.stackName}-Monitoring-Routes-5xx-Critical`);
      expect(errors?.Properties.Threshold).toBe(s === stacks.synth ? 0 : 3);
      const [throttles, ...moreThrottles] = insightsAlarms(s, 'SUM(Throttles)');
      expect(moreThrottles).toEqual([]);
      expect(throttles?.Properties.Metrics[0].Expression).toMatch(/GROUP BY FunctionName/);
    }
    const fn = { FunctionName: ref(stacks.synth, authorizer(stacks.synth)) };
    expect(alarmsOn(stacks.synth, 'AWS/Lambda', 'Throttles', fn)).toHaveLength(1);
    const [failures, ...others] = alarmsOn(stacks.synth, 'AWS/Lambda', 'Errors', fn);
    expect(others).toEqual([]);
    expect(failures?.Properties.AlarmName).toBe('TeamMessagingApi-Monitoring-Authorizer-Failures-Critical');
    expect(metricsOf(failures as Resource)).toContainEqual({
      namespace: 'TeamMessagingApi',
      name: 'AuthorizerDenied',
      dimensions: { service: 'team-messaging-api' },
      stat: 'Sum',
    });
  });

  it('alarms on throttled reads and writes of the table and each of its indexes, and on its system errors', () => {
    const table = { TableName: ref(stacks.synth, stacks.synth.stack.table) };
    const onIndex = (indexName: string) => ({ ...table, GlobalSecondaryIndexName: indexName });
    for (const name of ['ReadThrottleEvents', 'WriteThrottleEvents']) {
      const alarms = alarmsOn(stacks.synth, 'AWS/DynamoDB', name, table);
      expect(alarms, name).toHaveLength(3);
      expect(
        alarms.filter((a) => metricsOf(a)[0]?.dimensions.GlobalSecondaryIndexName),
        name,
      ).toEqual([
        ...alarmsOn(stacks.synth, 'AWS/DynamoDB', name, onIndex(ID_INDEX)),
        ...alarmsOn(stacks.synth, 'AWS/DynamoDB', name, onIndex(DUE_INDEX)),
      ]);
    }
    const [systemErrors, ...others] = alarmsOn(stacks.synth, 'AWS/DynamoDB', 'SystemErrors', table);
    expect(others).toEqual([]);
    expect(metricsOf(systemErrors as Resource).map((m) => m.dimensions.Operation)).toContain('PutItem');
  });

  it("alarms on the public bucket's 5xx, from the request metrics it now publishes", () => {
    const bucket = stacks.synth.stack.publicFiles;
    const properties = resources(stacks.synth, 'AWS::S3::Bucket').find(
      (b) => b.Properties.MetricsConfigurations !== undefined,
    )?.Properties;
    expect(properties?.MetricsConfigurations).toEqual([{ Id: 'EntireBucket' }]);
    const on = { BucketName: ref(stacks.synth, bucket), FilterId: 'EntireBucket' };
    const [bucket5xx, ...others] = alarmsOn(stacks.synth, 'AWS/S3', '5xxErrors', on);
    expect(others).toEqual([]);
    expect(bucket5xx?.Properties.Threshold).toBe(5);
  });

  it('sends every alarm, and its end, to the one SNS topic; by email only with alarmEmail', () => {
    for (const s of [stacks.synth, stacks.overridden]) {
      const topics = Object.keys(s.template.findResources('AWS::SNS::Topic'));
      expect(topics).toHaveLength(1);
      const alarms = monitoring(s, 'AWS::CloudWatch::Alarm');
      // Stage; per route latency; across routes 5xx and throttles; authorizer; table and its two indexes;
      // bucket; change events (consumer errors, throttles, iterator age; on-failure queue); webhooks
      // (deliverer's and sweeper's errors and throttles; endpoints disabled).
      expect(alarms.length).toBe(1 + routes.length + 2 + 2 + 7 + 1 + 4 + 5);
      for (const alarm of alarms) {
        expect(alarm.Properties.AlarmActions, alarm.Properties.AlarmName).toEqual([{ Ref: topics[0] }]);
        expect(alarm.Properties.OKActions, alarm.Properties.AlarmName).toEqual([{ Ref: topics[0] }]);
        expect(alarm.Properties.AlarmName.startsWith(`${s.stack.stackName}-Monitoring-`)).toBe(true);
      }
      expect(new Set(alarms.map((a) => a.Properties.AlarmName)).size).toBe(alarms.length);
    }
    expect(resources(stacks.synth, 'AWS::SNS::Subscription')).toEqual([]);
    expect(resources(stacks.overridden, 'AWS::SNS::Subscription').map((s) => s.Properties)).toEqual([
      expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.com' }),
    ]);
  });

  it('waits for datapointsToAlarm of evaluationPeriods breaching periods of 5 minutes', () => {
    for (const [s, periods, datapoints] of [
      [stacks.synth, 3, 2],
      [stacks.overridden, 5, 4],
    ] as const) {
      // But the disabled webhook endpoints: one endpoint is disabled once, so any one alarms at once.
      const once = `${s.stack.stackName}-Monitoring-Webhooks-EndpointsDisabled-Critical`;
      const alarms = monitoring(s, 'AWS::CloudWatch::Alarm');
      expect(alarms.map((alarm) => alarm.Properties.AlarmName)).toContain(once);
      for (const alarm of alarms.filter((a) => a.Properties.AlarmName !== once)) {
        expect(alarm.Properties).toMatchObject({ EvaluationPeriods: periods, DatapointsToAlarm: datapoints });
      }
    }
  });
});

describe('CDK stack: monitoring in its nested stack', () => {
  it('has the alarms and the dashboard in the nested stack, the topic and its subscription in the stack', () => {
    for (const s of [stacks.synth, stacks.overridden]) {
      // Its logical id names it in the console: `TeamMessagingApi-Monitoring-<suffix>`.
      // (The others are the route areas': route-areas.ts.)
      expect(Object.keys(s.template.findResources('AWS::CloudFormation::Stack'))).toContain('Monitoring');
      for (const type of ['AWS::CloudWatch::Alarm', 'AWS::CloudWatch::Dashboard'])
        expect(resources(s, type), type).toEqual([]);
      for (const type of ['AWS::SNS::Topic', 'AWS::SNS::Subscription'])
        expect(monitoring(s, type), type).toEqual([]);
    }
  });

  it("holds no stateful resource in the nested stack: the stateful guard reads the stack's template", () => {
    for (const s of [stacks.synth, stacks.overridden]) {
      const types = Object.values(s.monitoring.toJSON().Resources as Record<string, Resource>).map(
        (r) => r.Type,
      );
      expect(types.filter((type) => STATEFUL_TYPES.includes(type))).toEqual([]);
      expect(new Set(types)).toEqual(new Set(['AWS::CloudWatch::Alarm', 'AWS::CloudWatch::Dashboard']));
    }
  });

  it('names no alarm and no dashboard as the released stack does: CloudFormation creates before it deletes', () => {
    // A name still taken when the nested stack creates its alarm or dashboard fails the deploy.
    const names = (resources: object = {}) =>
      Object.values(resources as Record<string, Resource>)
        .flatMap(({ Properties: p }) => [p?.AlarmName, p?.DashboardName])
        .filter(Boolean);
    const released = new Set(names(readReleasedTemplate().Resources));
    const current = names(stacks.synth.monitoring.toJSON().Resources);
    expect(current.length).toBeGreaterThan(routes.length);
    expect(current.filter((name) => released.has(name))).toEqual([]);
  });

  it('keeps the topic where the released stack has it: its ARN and subscriptions stay', () => {
    const [topicId] = Object.keys(stacks.synth.template.findResources('AWS::SNS::Topic'));
    expect(readReleasedTemplate().Resources?.[topicId ?? '']?.Type).toBe('AWS::SNS::Topic');
  });
});

describe('CDK stack: dashboard', () => {
  /** A metric row of the dashboard body (JSON inside the template's JSON): `"a","b",...` escaped. */
  const row = (...parts: string[]) => parts.map((part) => `\\"${part}\\"`).join(',');

  /** A SEARCH() of the dashboard body, as the template holds it (JSON in JSON in JSON). */
  const searchOf = (schema: string[], metricName: string, terms: Record<string, string>, stat: string) => {
    const quoted = (text: string) => `\\\\\\"${text}\\\\\\"`;
    const exact = Object.entries(terms)
      .map(([k, v]) => ` ${quoted(k)}=${quoted(v)}`)
      .join('');
    return `SEARCH('{${schema.map(quoted).join(',')}} MetricName=${quoted(metricName)}${exact}', '${stat}', 300)`;
  };

  /** The widgets of the dashboard: its body's `Fn::Join` read with each reference as a placeholder. */
  const widgetsOf = (s: Synthesized) => {
    const body = monitoring(s, 'AWS::CloudWatch::Dashboard')[0]?.Properties.DashboardBody;
    const [separator, parts] = body['Fn::Join'] as [string, unknown[]];
    const text = parts.map((part) => (typeof part === 'string' ? part : 'REF')).join(separator);
    return (JSON.parse(text) as { widgets: Array<{ type: string }> }).widgets;
  };

  it("holds CloudWatch's 500 widgets at most, none a route's (83 at any number of routes)", () => {
    // CloudWatch, "Dashboard Body Structure and Syntax": 0 to 500 widgets. Each SEARCH() graph returns up to
    // 500 series (aws-cdk-lib/aws-cloudwatch's README), one a route: the routes stay under that too.
    for (const s of [stacks.synth, stacks.overridden]) {
      const widgets = widgetsOf(s);
      expect(widgets.length).toBe(83);
      expect(widgets.length).toBeLessThanOrEqual(500);
      expect(routes.length).toBeLessThanOrEqual(500);
    }
  });

  it("shows every route on one graph per signal (SEARCH by dimension), the authorizer, the table and the functions' own metrics", () => {
    const [dashboard, ...others] = monitoring(stacks.synth, 'AWS::CloudWatch::Dashboard');
    expect(others).toEqual([]);
    expect(dashboard?.Properties.DashboardName).toBe('TeamMessagingApi-Monitoring');
    const body = stringify(dashboard?.Properties.DashboardBody);
    // Nothing a route: no route function, no method of its own; the graphs find the routes' series.
    for (const route of routes) {
      const name = `${route.method} ${route.path}`;
      expect(body, name).not.toContain(stringify(ref(stacks.synth, routeFunction(stacks.synth, route))));
      expect(body, name).not.toContain(row('Method', route.method, 'Resource', route.path));
      expect(body, name).not.toContain(row('route', name));
    }
    const api = ['AWS/ApiGateway', 'ApiName', 'Method', 'Resource', 'Stage'];
    const onStage = { ApiName: 'TeamMessagingApi', Stage: 'prod' };
    for (const [metric, stat] of [
      ['Count', 'Sum'],
      ['4XXError', 'Sum'],
      ['Latency', 'p99'],
    ] as const) {
      expect(body, metric).toContain(searchOf(api, metric, onStage, stat));
    }
    const own = ['TeamMessagingApi', 'service', 'route'];
    for (const [metric, stat] of [
      ['Requests', 'Sum'],
      ['ServerErrors', 'Sum'],
      ['ClientErrors', 'Sum'],
      ['DependencyUnavailable', 'Sum'],
      ['Latency', 'p99'],
    ] as const) {
      expect(body, metric).toContain(searchOf(own, metric, { service: 'team-messaging-api' }, stat));
    }
    // Each line of a SEARCH graph named by its own dimensions: the route.
    expect(body).toContain(`\${PROP('Dim.Method')} \${PROP('Dim.Resource')}`);
    expect(body).toContain(`\${PROP('Dim.route')}`);
    expect(body).toContain(stringify(ref(stacks.synth, authorizer(stacks.synth))));
    expect(body).toContain(row('AWS/DynamoDB', 'ConsumedReadCapacityUnits', 'TableName'));
    expect(body).toContain(row('AWS/DynamoDB', 'ConsumedWriteCapacityUnits', 'TableName'));
    expect(body).toContain(stringify(ref(stacks.synth, stacks.synth.stack.table)));
    expect(body).toContain(row('TeamMessagingApi', 'AuthorizerDenied', 'service', 'team-messaging-api'));
    expect(body).toContain('MetricName=\\\\\\"AutoConfigureRefused\\\\\\"');

    const devBody = stringify(monitoring(stacks.overridden, 'AWS::CloudWatch::Dashboard')[0]?.Properties);
    expect(devBody).toContain(row('MessagingEu', 'AuthorizerAllowed', 'service', 'messaging-eu'));
  });
});
