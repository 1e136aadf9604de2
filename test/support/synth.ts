import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, type CfnElement, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { afterAll, beforeAll } from 'vitest';
import { createApp, TeamMessagingStack } from '../../lib/cdk/stack.ts';

/** cdk.json's context: the settings and the feature flags every `cdk` command passes to the app. */
export const CDK_JSON_CONTEXT: Record<string, unknown> = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'cdk.json'), 'utf8'),
).context;

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

/**
 * Synthesizes the app as `cdk synth` does (`createApp`, with the AwsSolutions checks, which throw on any
 * unacknowledged finding) into a temporary directory outside the repository (so a bundle cannot borrow the
 * repository's node_modules). `full` bundles every function with esbuild and runs CDK's built-in CloudFormation
 * validation, as `npx cdk synth` does (~30 s). Without it the template is the same apart from asset hashes
 * (~1 s); `validate` still runs the validator, which reads the template, not the code: with
 * `@aws-cdk/core:validateAgainstDefaultRules` its errors throw here, its warnings are in the validation report
 * (reportedViolations). The context is cdk.json's, feature flags included, as the CLI passes it; `context`
 * stands for `-c key=value` over it (`dev` too). `alter` changes the app before it is synthesized: a test's
 * way to break it on purpose.
 */
export function synthesize(options: {
  dev?: boolean;
  full?: boolean;
  validate?: boolean;
  context?: Record<string, unknown>;
  alter?: (app: App) => void;
}): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'tm-cdk-'));
  const context: Record<string, unknown> = {
    ...CDK_JSON_CONTEXT,
    ...options.context,
    dev: options.dev ?? options.context?.dev ?? false,
  };
  if (!options.full) context['aws:cdk:bundling-stacks'] = [];
  try {
    const builtinCloudFormationValidation = Boolean(options.full || options.validate);
    const app = createApp({ outdir, context, builtinCloudFormationValidation });
    options.alter?.(app);
    const assembly = app.synth();
    const stack = app.node.children.find((child) => child instanceof TeamMessagingStack);
    if (!stack) throw new Error('the app has no TeamMessagingStack');
    const templatePath = assembly.getStackArtifact(stack.artifactId).templateFullPath;
    const template = Template.fromJSON(JSON.parse(readFileSync(templatePath, 'utf8')));
    return { app, stack, template, assembly, outdir };
  } catch (error) {
    rmSync(outdir, { recursive: true, force: true });
    throw error;
  }
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
