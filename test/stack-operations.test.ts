import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiFunction } from '../lib/cdk/api-function.ts';
import { DEFAULT_SETTINGS } from '../lib/cdk/settings.ts';
import { routes } from '../lib/routes.ts';
import { ROOT } from './support/processes.ts';
import { logicalId, type Synthesized, synthesize } from './support/synth.ts';

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
};

let synth: Synthesized;
let overridden: Synthesized;
beforeAll(() => {
  synth = synthesize({ full: false });
  overridden = synthesize({ dev: true, full: false, context: OVERRIDES });
});
afterAll(() => {
  for (const s of [synth, overridden]) if (s) rmSync(s.outdir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: tests read synthesized CloudFormation loosely and assert on it.
type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };
const resources = (s: Synthesized, type: string) =>
  Object.values(s.template.findResources(type)) as Resource[];
const stage = (s: Synthesized) => resources(s, 'AWS::ApiGateway::Stage')[0]?.Properties;
/** The API's functions (routes and the authorizer), not CDK's own (LogRetention, bucket emptying). */
const apiFunctions = (s: Synthesized) => {
  const ours = s.stack.node.findAll().filter((c) => c instanceof ApiFunction);
  return ours.map(
    (fn) => s.template.toJSON().Resources[logicalId(s.stack, fn.node.defaultChild)] as Resource,
  );
};

describe('CDK stack: settings', () => {
  it('lists every default in cdk.json, so a deploy and a test synthesize the same stack', () => {
    const cdkJson = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8'));
    const { '@aws-cdk/aws-lambda-nodejs:useLatestRuntimeVersion': _, ...context } = cdkJson.context;
    expect(context).toEqual(DEFAULT_SETTINGS);
  });

  it("gives every function (routes and the authorizer) the logger's and metrics' settings", () => {
    const functions = apiFunctions(synth);
    expect(functions).toHaveLength(routes.length + 1);
    for (const fn of functions) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        SERVICE_NAME: 'team-messaging-api',
        METRICS_NAMESPACE: 'TeamMessagingApi',
        LOG_LEVEL: 'INFO',
      });
    }
    for (const fn of apiFunctions(overridden)) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        SERVICE_NAME: 'messaging-eu',
        METRICS_NAMESPACE: 'MessagingEu',
        LOG_LEVEL: 'DEBUG',
      });
    }
  });

  it('throttles the stage at the context rate and burst', () => {
    const throttling = (s: Synthesized) => {
      const [settings] = stage(s)?.MethodSettings ?? [];
      return [settings.ThrottlingRateLimit, settings.ThrottlingBurstLimit];
    };
    expect(throttling(synth)).toEqual([100, 200]);
    expect(throttling(overridden)).toEqual([50, 75]);
  });

  it.each([
    [{ throttleRate: 'fast' }, /throttleRate/],
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
    expect(stage(synth)?.TracingEnabled).toBe(true);
    const functions = apiFunctions(synth);
    expect(functions).toHaveLength(routes.length + 1);
    for (const fn of functions) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    }
  });
});

describe('CDK stack: access logs', () => {
  it('writes one JSON line per request with the ids, route, status, latencies and errors', () => {
    const format = JSON.parse(stage(synth)?.AccessLogSetting.Format);
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
    for (const s of [synth, overridden]) {
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
    const api = logicalId(synth.stack, synth.stack.api.node.defaultChild);
    const apiStage = logicalId(synth.stack, synth.stack.api.deploymentStage.node.defaultChild);
    const [executionLogs, ...others] = retained(synth);
    expect(others).toEqual([]);
    expect(executionLogs?.name).toContain(
      `API-Gateway-Execution-Logs_",{"Ref":"${api}"},"/",{"Ref":"${apiStage}"}`,
    );
    expect(executionLogs?.days).toBe(30);
    // The dev stack's bucket-emptying function logs too.
    const [, autoDelete, ...more] = retained(overridden);
    expect(more).toEqual([]);
    expect(autoDelete?.name).toMatch(
      /\/aws\/lambda\/.*CustomS3AutoDeleteObjectsCustomResourceProviderHandler/,
    );
    expect(autoDelete?.days).toBe(1);
  });
});

const stringify = (value: unknown) => JSON.stringify(value);
