import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type App, type CfnElement, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { afterAll, beforeAll } from 'vitest';
import { type OfflineSynthOptions, synthesizeOffline } from '../../lib/cdk/synth-offline.ts';
import type { TeamMessagingStack } from '../../lib/cdk/team-messaging-stack.ts';

export { CDK_JSON_CONTEXT } from '../../lib/cdk/synth-offline.ts';

export interface Synthesized {
  app: App;
  stack: TeamMessagingStack;
  template: Template;
  assembly: cxapi.CloudAssembly;
  /** Temporary cloud assembly directory; the caller removes it. */
  outdir: string;
}

/**
 * What `cdk synth` adds to cdk.json's context (the aws-cdk CLI's contextFromSettings): resource metadata and
 * the AWS::CDK::Metadata resource, so a test's template has all the CLI's has. It stays region-agnostic
 * (the CLI gives the app its default region): its ARNs are joins, a little longer (445 KB against 435 KB).
 */
export const CLI_CONTEXT: Record<string, unknown> = {
  [cxapi.PATH_METADATA_ENABLE_CONTEXT]: true,
  [cxapi.ASSET_RESOURCE_METADATA_ENABLED_CONTEXT]: true,
  [cxapi.ANALYTICS_REPORTING_ENABLED_CONTEXT]: true,
};

/** `synthesizeOffline` (lib/cdk/synth-offline.ts), with the template for `aws-cdk-lib/assertions`. */
export function synthesize(options: OfflineSynthOptions): Synthesized {
  const synth = synthesizeOffline(options);
  return { ...synth, template: Template.fromJSON(synth.template) };
}

/**
 * For a test file about settings: the production stack with cdk.json's defaults and the dev stack with
 * `context` overrides (strings, as the CLI passes them), synthesized once each and removed after the file.
 */
export function defaultAndOverridden(context: Record<string, unknown>): {
  readonly synth: Synthesized;
  readonly overridden: Synthesized;
} {
  const stacks: Partial<{ synth: Synthesized; overridden: Synthesized }> = {};
  beforeAll(() => {
    stacks.synth = synthesize({ full: false });
    stacks.overridden = synthesize({ dev: true, full: false, context });
  });
  afterAll(() => {
    for (const s of [stacks.synth, stacks.overridden])
      if (s) rmSync(s.outdir, { recursive: true, force: true });
  });
  return stacks as { synth: Synthesized; overridden: Synthesized };
}

/**
 * Violations left in the synthesized validation report: cdk-nag findings that were not acknowledged,
 * annotations, and CloudFormation validator warnings (its errors have thrown before).
 */
export function reportedViolations(assembly: cxapi.CloudAssembly): unknown[] {
  const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as {
    pluginReports: Array<{ violations: unknown[] }>;
  };
  return report.pluginReports.flatMap((plugin) => plugin.violations);
}

/** Every `Validations.of(x).acknowledge({id, reason})` in the app, with the construct it applies to. */
export function acknowledgments(app: App): Array<{ path: string; id: string; reason: string }> {
  return app.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          // aws-cdk-lib records cdk-nag's plain rule ids under its `Annotation::` namespace.
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

export const logicalId = (stack: TeamMessagingStack, element: unknown) =>
  stack.getLogicalId(element as CfnElement);
