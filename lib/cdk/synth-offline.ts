import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { createApp, TeamMessagingStack } from './team-messaging-stack.ts';

/** cdk.json's context: the settings and the feature flags every `cdk` command passes to the app. */
export const CDK_JSON_CONTEXT: Record<string, unknown> = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'cdk.json'), 'utf8'),
).context;

/** A synthesized CloudFormation template, as JSON. */
export type CfnTemplate = {
  Resources?: Record<string, { Type: string; [key: string]: unknown }>;
  [section: string]: unknown;
};

export interface OfflineSynthOptions {
  /** The disposable dev stack instead of the production one (`-c dev=true`). */
  dev?: boolean;
  /** Bundle the functions with esbuild and validate the template against CloudFormation's schema. */
  full?: boolean;
  /**
   * Validate without bundling: the validator reads the template, not the code. With
   * `@aws-cdk/core:validateAgainstDefaultRules` its errors throw, its warnings are in the validation report.
   */
  validate?: boolean;
  /** `-c key=value` over cdk.json's context (`dev` too). */
  context?: Record<string, unknown>;
  /** Changes the app before it is synthesized: a test's way to break it on purpose. */
  alter?: (app: App) => void;
}

export interface OfflineSynthesis {
  app: App;
  stack: TeamMessagingStack;
  assembly: CloudAssembly;
  template: CfnTemplate;
  /** Temporary cloud assembly directory; the caller removes it. */
  outdir: string;
}

/**
 * Synthesizes the app as `cdk synth` does (`createApp`, with the AwsSolutions checks, which throw on any
 * unacknowledged finding) into a temporary directory outside the repository (so a bundle cannot borrow the
 * repository's node_modules). Without `full` it skips esbuild bundling and CDK's built-in CloudFormation schema
 * validation (~1 s; ~30 s with): the template is the same apart from asset hashes, and cdk-nag still runs. The context is
 * cdk.json's, feature flags included, as the CLI passes it; `context` stands for `-c key=value` over it.
 */
export function synthesizeOffline(options: OfflineSynthOptions): OfflineSynthesis {
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
    const template = JSON.parse(readFileSync(templatePath, 'utf8')) as CfnTemplate;
    return { app, stack, assembly, template, outdir };
  } catch (error) {
    rmSync(outdir, { recursive: true, force: true });
    throw error;
  }
}
