import { rmSync } from 'node:fs';
import type { App } from 'aws-cdk-lib';
import { CfnStage } from 'aws-cdk-lib/aws-apigateway';
import { CfnLogGroup } from 'aws-cdk-lib/aws-logs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../lib/cdk/settings.ts';
import { LARGEST_SETTINGS } from '../../support/largest-settings.ts';
import { reportedViolations, type Synthesized, synthesize } from '../../support/synth.ts';

/**
 * Every stack a user can deploy passes CDK's built-in CloudFormation validation (cdk.json's
 * validateAgainstDefaultRules: its errors fail the synth, its warnings fill the validation report), so the
 * first `cdk deploy` does not stop on a property CloudFormation refuses: production, dev, and each documented
 * `-c` setting at a value other than its default, as the CLI passes it (a string). Without bundling: the
 * validator reads the template, not the code.
 */
const VARIANTS: Array<[string, Record<string, unknown>]> = [
  ['dev', { dev: 'true' }],
  ['uploadOrigins', { uploadOrigins: 'https://a.example,https://b.example' }],
  ['corsOrigins', { corsOrigins: 'https://a.example,https://b.example:8443' }],
  ['alarmEmail', { alarmEmail: 'ops@example.com' }],
  ['alarms', { alarms: '{"p99LatencyMs":2000}' }],
  ['quotas', { quotas: '{"brands":50}' }],
  ['concurrency', { concurrency: '{"accountQuota":3000,"apiRoute":25,"webhookDeliverer":200}' }],
  ['concurrency without reservations', { concurrency: '{"accountQuota":10,"reserve":false}' }],
  ['throttleRate', { throttleRate: '50' }],
  ['throttleBurst', { throttleBurst: '75' }],
  ['authorizerCacheSeconds', { authorizerCacheSeconds: '0' }],
  [
    'rateLimitPlans',
    {
      rateLimitPlans:
        '{"free":{"limit":100,"windowSeconds":60},"team":{"limit":1000,"windowSeconds":300},' +
        '"scale":{"limit":20000,"windowSeconds":600}}',
      defaultRateLimitPlan: 'free',
    },
  ],
  ['defaultRateLimitPlan', { defaultRateLimitPlan: 'bulk' }],
  ['serviceName', { serviceName: 'messaging-eu' }],
  ['metricsNamespace', { metricsNamespace: 'MessagingEu' }],
  ['logLevel', { logLevel: 'DEBUG' }],
  ['xraySampleRate', { xraySampleRate: '0' }],
  ['xraySampleRate, every request', { xraySampleRate: '1' }],
  ['accessLogFields', { accessLogFields: 'requestId,status,teamId' }],
  ['functionMemory', { functionMemory: '{"apiRoute":1769,"webhookDeliverer":128}' }],
  ['pointInTimeRecovery', { pointInTimeRecovery: 'false' }],
  ['every setting at its largest', LARGEST_SETTINGS],
  ['every setting at its largest, dev', { ...LARGEST_SETTINGS, dev: 'true' }],
];

/** Synthesizes, hands the result to `check`, and removes the assembly. */
function withSynth(options: Parameters<typeof synthesize>[0], check: (synth: Synthesized) => void): void {
  const synth = synthesize(options);
  try {
    check(synth);
  } finally {
    rmSync(synth.outdir, { recursive: true, force: true });
  }
}

let production: Synthesized;
beforeAll(() => {
  production = synthesize({ validate: true });
});
afterAll(() => {
  if (production) rmSync(production.outdir, { recursive: true, force: true });
});

describe('CDK stack variants: CloudFormation validation', () => {
  it('covers dev, uploadOrigins and every setting of cdk.json and lib/cdk/settings.ts', () => {
    const covered = new Set(VARIANTS.flatMap(([, context]) => Object.keys(context)));
    const documented = ['dev', 'uploadOrigins', 'alarmEmail', 'quotas', ...Object.keys(DEFAULT_SETTINGS)];
    expect(documented.filter((key) => !covered.has(key))).toEqual([]);
  });

  it('production (cdk.json as it is): no findings', () => {
    expect(reportedViolations(production.assembly)).toEqual([]);
  });

  it.each(VARIANTS)('%s: no findings, and the setting changed the template', (_, context) => {
    withSynth({ validate: true, context }, (variant) => {
      expect(reportedViolations(variant.assembly)).toEqual([]);
      expect(variant.template.toJSON()).not.toEqual(production.template.toJSON());
    });
  });

  // What `-c throttleBurst=1.5` made before lib/cdk/settings.ts refused it.
  const fractionalBurst = (app: App) => {
    const stage = app.node.findAll().find((construct) => construct instanceof CfnStage);
    stage?.addPropertyOverride('MethodSettings.0.ThrottlingBurstLimit', 1.5);
  };

  it('fails the synth on an error, naming the property and the resource', () => {
    expect(() => synthesize({ validate: true, alter: fractionalBurst })).toThrow(
      /ERROR MethodSettings\.0\.ThrottlingBurstLimit: 1\.5 is not of type 'integer' \(CloudFormation Validate\)\s+TeamMessagingApi\/Api\/DeploymentStage\.prod/,
    );
    // The validator runs only when asked: the quick synth of the other stack tests does not see it.
    withSynth({ alter: fractionalBurst }, (synth) => expect(reportedViolations(synth.assembly)).toEqual([]));
  });

  it('reports a warning in the validation report (CloudFormation would refuse this one too)', () => {
    const oddRetention = (app: App) => {
      const logGroup = app.node.findAll().find((construct) => construct instanceof CfnLogGroup);
      logGroup?.addPropertyOverride('RetentionInDays', 42);
    };
    withSynth({ validate: true, alter: oddRetention }, (synth) => {
      expect(reportedViolations(synth.assembly)).toEqual([
        expect.objectContaining({
          ruleName: 'W3030',
          severity: 'warning',
          description: expect.stringMatching(/^RetentionInDays: 42 is not one of/),
        }),
      ]);
    });
  });
});
