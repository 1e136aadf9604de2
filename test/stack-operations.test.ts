import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../lib/cdk/settings.ts';
import { routes } from '../lib/routes.ts';
import { ROOT } from './support/processes.ts';
import { type Synthesized, synthesize } from './support/synth.ts';

/**
 * The stack's operating surface: tracing, the functions' logger and metrics settings, throttling, access
 * logs, alarms and the dashboard. The production stack with cdk.json's defaults, and once more with
 * `-c` overrides, each synthesized once (without bundling).
 */
const OVERRIDES = {
  throttleRate: '50',
  throttleBurst: '75',
  logLevel: 'debug',
  serviceName: 'messaging-eu',
  metricsNamespace: 'MessagingEu',
};

let synth: Synthesized;
let overridden: Synthesized;
beforeAll(() => {
  synth = synthesize({ full: false });
  overridden = synthesize({ full: false, context: OVERRIDES });
});
afterAll(() => {
  for (const s of [synth, overridden]) if (s) rmSync(s.outdir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: tests read synthesized CloudFormation loosely and assert on it.
type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };
const resources = (s: Synthesized, type: string) =>
  Object.values(s.template.findResources(type)) as Resource[];
const stage = (s: Synthesized) => resources(s, 'AWS::ApiGateway::Stage')[0]?.Properties;

describe('CDK stack: settings', () => {
  it('lists every default in cdk.json, so a deploy and a test synthesize the same stack', () => {
    const cdkJson = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8'));
    const { '@aws-cdk/aws-lambda-nodejs:useLatestRuntimeVersion': _, ...context } = cdkJson.context;
    expect(context).toEqual(DEFAULT_SETTINGS);
  });

  it("gives every function (routes and the authorizer) the logger's and metrics' settings", () => {
    const functions = resources(synth, 'AWS::Lambda::Function');
    expect(functions).toHaveLength(routes.length + 1);
    for (const fn of functions) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        SERVICE_NAME: 'team-messaging-api',
        METRICS_NAMESPACE: 'TeamMessagingApi',
        LOG_LEVEL: 'INFO',
      });
    }
    for (const fn of resources(overridden, 'AWS::Lambda::Function')) {
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
    for (const fn of resources(synth, 'AWS::Lambda::Function')) {
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
