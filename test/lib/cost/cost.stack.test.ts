import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ACCESS_LOG_FIELD_NAMES } from '../../../lib/cdk/access-log.ts';
import { ApiFunction } from '../../../lib/cdk/api-function.ts';
import { functionId } from '../../../lib/cdk/route-areas.ts';
import { DEFAULT_SETTINGS, readSettings, type Settings } from '../../../lib/cdk/settings.ts';
import { ASSUMPTIONS } from '../../../lib/cost/assumptions.ts';
import { type CostLine, costLines, monthlyLines } from '../../../lib/cost/model.ts';
import { PRICES } from '../../../lib/cost/prices.ts';
import { costTable } from '../../../lib/cost/table.ts';
import { routes } from '../../../shared/routes.ts';
import { ROOT } from '../../support/processes.ts';
import { CDK_JSON_CONTEXT, synthesize } from '../../support/synth.ts';

/** For hangs only: a synth or a spawned tsx takes seconds, more on two busy cores. */
const HANG_MS = 180_000;

/** The settings the stack reads with these `-c` values over cdk.json's. */
const settingsWith = (context: Record<string, unknown>): Settings =>
  readSettings(new App({ context: { ...CDK_JSON_CONTEXT, ...context } }).node);

/** The items whose cost differs between two settings' tables. */
function changedItems(before: CostLine[], after: CostLine[]): string[] {
  return after
    .filter((line, index) => {
      const old = before[index];
      return (
        old?.perMillionRequests !== line.perMillionRequests ||
        old?.perMillionDeliveries !== line.perMillionDeliveries
      );
    })
    .map((line) => line.item);
}

const line = (lines: CostLine[], item: string): CostLine => {
  const found = lines.find((each) => each.item === item);
  if (!found) throw new Error(`no line ${item}`);
  return found;
};

const defaults = costLines(DEFAULT_SETTINGS);

describe('npm run cost: the table follows the settings', () => {
  it('doubling every function memory raises the Lambda duration line only, twice what it was', () => {
    const doubled = Object.fromEntries(
      Object.entries(DEFAULT_SETTINGS.functionMemory).map(([key, mb]) => [key, mb * 2]),
    );
    const after = costLines(settingsWith({ functionMemory: JSON.stringify(doubled) }));
    expect(changedItems(defaults, after)).toEqual(['Lambda duration (Arm)']);
    const before = line(defaults, 'Lambda duration (Arm)');
    const now = line(after, 'Lambda duration (Arm)');
    expect(now.perMillionRequests).toBeCloseTo(2 * before.perMillionRequests, 3);
    expect(now.perMillionDeliveries).toBeCloseTo(2 * before.perMillionDeliveries, 3);
  });

  it('xraySampleRate 0 removes X-Ray, the line and the monthly reservoir, and nothing else', () => {
    const settings = settingsWith({ xraySampleRate: '0' });
    const after = costLines(settings);
    expect(changedItems(defaults, after)).toEqual(['X-Ray traces']);
    expect(line(after, 'X-Ray traces')).toMatchObject({ perMillionRequests: 0, perMillionDeliveries: 0 });
    expect(monthlyLines(settings).find((each) => each.item === 'X-Ray reservoir')?.usd).toBe(0);
    expect(line(defaults, 'X-Ray traces').perMillionRequests).toBeGreaterThan(0);
  });

  it('tracing every request costs X-Ray its list price per million requests', () => {
    const after = costLines(settingsWith({ xraySampleRate: '1' }));
    expect(line(after, 'X-Ray traces').perMillionRequests).toBe(PRICES.xrayTracesPerMillion.usd);
  });

  it('no authorizer cache: a check per request, so more Lambda and DynamoDB reads, nothing else', () => {
    const after = costLines(settingsWith({ authorizerCacheSeconds: '0' }));
    expect(changedItems(defaults, after)).toEqual([
      'Lambda requests',
      'Lambda duration (Arm)',
      'DynamoDB reads (on demand)',
      'CloudWatch Logs: function logs',
    ]);
    for (const item of changedItems(defaults, after)) {
      expect(line(after, item).perMillionRequests).toBeGreaterThan(line(defaults, item).perMillionRequests);
    }
  });

  it('logLevel WARN drops the info lines: the function logs line falls, nothing else moves', () => {
    const after = costLines(settingsWith({ logLevel: 'WARN' }));
    expect(changedItems(defaults, after)).toEqual(['CloudWatch Logs: function logs']);
    const item = 'CloudWatch Logs: function logs';
    expect(line(after, item).perMillionRequests).toBeLessThan(line(defaults, item).perMillionRequests);
  });

  it('fewer access-log fields: the access log line falls, nothing else moves', () => {
    const after = costLines(settingsWith({ accessLogFields: 'requestId,status,teamId' }));
    expect(changedItems(defaults, after)).toEqual(['CloudWatch Logs: access log']);
    const item = 'CloudWatch Logs: access log';
    expect(line(after, item).perMillionRequests).toBeLessThan(line(defaults, item).perMillionRequests);
  });

  it('PITR off removes its monthly line; the per-request table does not move', () => {
    const settings = settingsWith({ pointInTimeRecovery: 'false' });
    expect(changedItems(defaults, costLines(settings))).toEqual([]);
    const pitr = (s: Settings) => monthlyLines(s).find((each) => each.item === 'DynamoDB PITR')?.usd;
    expect(pitr(settings)).toBe(0);
    expect(pitr(DEFAULT_SETTINGS)).toBeGreaterThan(0);
  });

  it("counts no fewer write units than the bench records (between one delivery's and the assumption: they vary by run) and its KMS calls per delivery (bench/results/latest.json)", () => {
    const bench = JSON.parse(readFileSync(join(ROOT, 'bench/results/latest.json'), 'utf8'));
    const measured = bench.webhook_delivery_scale.unitsPerDelivery;
    expect(measured.load).toBeGreaterThanOrEqual(measured.single);
    expect(measured.load).toBeLessThanOrEqual(ASSUMPTIONS.deliveryWriteUnits);
    const { deliveries, Decrypt } = bench.webhook_delivery_ms.kmsCalls;
    expect(ASSUMPTIONS.kmsDecryptsPerDelivery).toBe(Decrypt / deliveries);
  });

  it('names every price with the page it is listed on', () => {
    for (const price of Object.values(PRICES)) expect(price.source).toMatch(/^https:\/\/aws\.amazon\.com\//);
  });
});

describe('npm run cost: the settings that move it', () => {
  it('refuses, naming the key, values the deploy would fail on', () => {
    expect(() => settingsWith({ xraySampleRate: '1.5' })).toThrow(/context xraySampleRate/);
    expect(() => settingsWith({ accessLogFields: 'requestId,body' })).toThrow(
      /context accessLogFields: "body"/,
    );
    expect(() => settingsWith({ functionMemory: '{"apiRoute":64}' })).toThrow(
      /context functionMemory.apiRoute/,
    );
    expect(() => settingsWith({ functionMemory: '{"api":512}' })).toThrow(
      /context functionMemory.api: unknown/,
    );
    expect(() => settingsWith({ pointInTimeRecovery: 'maybe' })).toThrow(/context pointInTimeRecovery/);
  });

  it(
    'the stack reads them: memory, tracing, access-log fields, PITR',
    () => {
      const synth = synthesize({
        context: {
          functionMemory: '{"apiRoute":1024,"authorizer":256,"webhookDeliverer":128}',
          xraySampleRate: '0',
          accessLogFields: 'requestId,status',
          pointInTimeRecovery: 'false',
        },
      });
      try {
        type LambdaResource = { Properties: { MemorySize: number; TracingConfig?: { Mode: string } } };
        const resources = synth.template.toJSON().Resources as Record<string, LambdaResource>;
        const { stack } = synth;
        const resourceOf = (fn: { node: { defaultChild?: unknown } }) =>
          resources[stack.getLogicalId(fn.node.defaultChild as never)] as LambdaResource;
        const memoryOf = (fn: { node: { defaultChild?: unknown } }) => resourceOf(fn).Properties.MemorySize;
        const apiFunctions = stack.node.findAll().filter((each) => each instanceof ApiFunction);
        const byId = (id: string) => apiFunctions.filter((fn) => fn.node.id === id);
        expect(byId('Authorizer').map(memoryOf)).toEqual([256]);
        expect(byId('Deliverer').map(memoryOf)).toEqual([128]);
        expect(byId('Sweeper').map(memoryOf)).toEqual([256]);
        expect(byId('Consumer').map(memoryOf)).toEqual([256]);
        // Every route's function: apiRoute 1024, auto-configure its default 1024.
        const routeIds = new Set(routes.map((route) => functionId(route.method, route.path)));
        const routeFunctions = apiFunctions.filter((fn) => routeIds.has(fn.node.id));
        expect(routeFunctions.length).toBe(routes.length);
        for (const fn of routeFunctions) expect(memoryOf(fn)).toBe(1024);
        const functions = apiFunctions.map(resourceOf);
        for (const fn of functions) {
          expect(fn.Properties.TracingConfig?.Mode).toBe('PassThrough');
        }
        expect(synth.template.findResources('AWS::XRay::SamplingRule')).toEqual({});
        const stage = Object.values(synth.template.findResources('AWS::ApiGateway::Stage'))[0] as {
          Properties: { TracingEnabled?: boolean; AccessLogSetting: { Format: string } };
        };
        expect(stage.Properties.TracingEnabled).toBe(false);
        expect(Object.keys(JSON.parse(stage.Properties.AccessLogSetting.Format))).toEqual([
          'requestId',
          'status',
        ]);
        const table = Object.values(synth.template.findResources('AWS::DynamoDB::GlobalTable'))[0] as {
          Properties: {
            Replicas: Array<{ PointInTimeRecoverySpecification?: { PointInTimeRecoveryEnabled: boolean } }>;
          };
        };
        expect(
          table.Properties.Replicas[0]?.PointInTimeRecoverySpecification?.PointInTimeRecoveryEnabled,
        ).toBe(false);
      } finally {
        rmSync(synth.outdir, { recursive: true, force: true });
      }
    },
    HANG_MS,
  );

  it(
    'at the defaults: every field in the access log, a sampling rule at 1% on the stage, PITR on',
    () => {
      const synth = synthesize({});
      try {
        const stage = Object.values(synth.template.findResources('AWS::ApiGateway::Stage'))[0] as {
          Properties: { TracingEnabled?: boolean; AccessLogSetting: { Format: string } };
        };
        expect(stage.Properties.TracingEnabled).toBe(true);
        expect(Object.keys(JSON.parse(stage.Properties.AccessLogSetting.Format))).toEqual(
          ACCESS_LOG_FIELD_NAMES,
        );
        const rules = Object.values(synth.template.findResources('AWS::XRay::SamplingRule')) as Array<{
          Properties: { SamplingRule: { FixedRate: number; ServiceType: string } };
        }>;
        expect(rules.map((rule) => rule.Properties.SamplingRule)).toMatchObject([
          { FixedRate: DEFAULT_SETTINGS.xraySampleRate, ServiceType: 'AWS::ApiGateway::Stage' },
        ]);
      } finally {
        rmSync(synth.outdir, { recursive: true, force: true });
      }
    },
    HANG_MS,
  );
});

describe('npm run cost: what it prints', () => {
  it(
    'prints the table at cdk.json settings, and follows -c',
    () => {
      const run = (...args: string[]) =>
        execFileSync(process.execPath, ['--import', 'tsx', 'bin/cost.ts', ...args], {
          cwd: ROOT,
          encoding: 'utf8',
          timeout: HANG_MS,
        });
      expect(run()).toBe(costTable(DEFAULT_SETTINGS));
      expect(run('-c', 'xraySampleRate=0')).toBe(costTable(settingsWith({ xraySampleRate: '0' })));
    },
    HANG_MS,
  );

  it('the cost page (docs/cost.md) shows the table the script prints at the defaults', () => {
    const page = readFileSync(join(ROOT, 'docs/cost.md'), 'utf8');
    const section = page.match(/^# Cost\n[\s\S]*?<!-- npm run cost -->\n([\s\S]*?)<!-- \/npm run cost -->/m);
    expect(section?.[1]).toBe(costTable(DEFAULT_SETTINGS));
  });
});
