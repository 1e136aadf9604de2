import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type App, type CfnElement, type NestedStack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { afterAll, beforeAll } from 'vitest';
import type { ApiFunction } from '../../lib/cdk/api-function.ts';
import { NESTED_STACK_ID } from '../../lib/cdk/monitoring.ts';
import { RouteArea } from '../../lib/cdk/route-areas.ts';
import {
  type CfnTemplate,
  type OfflineSynthOptions,
  synthesizeOffline,
} from '../../lib/cdk/synth-offline.ts';
import type { TeamMessagingStack } from '../../lib/cdk/team-messaging-stack.ts';

export { CDK_JSON_CONTEXT } from '../../lib/cdk/synth-offline.ts';

export interface Synthesized {
  app: App;
  stack: TeamMessagingStack;
  /**
   * The stack's template with its route areas' nested stacks (lib/cdk/route-areas.ts) read into it: their
   * resources beside its own, their parameters replaced by what the stack passes them and the stack's reads
   * of their outputs by the outputs' values, so it reads as one template, as before the routes moved.
   * `main` is the stack's own.
   */
  template: Template;
  /** The stack's own template, the nested stacks as resources. */
  main: Template;
  /**
   * The template of the monitoring's nested stack (the alarms and the dashboard, lib/cdk/monitoring.ts),
   * each of its parameters replaced by what the stack passes it (`{"Ref": "<function's logical id>"}`, ...):
   * it reads as if its resources were the stack's own. `inMonitoring(s)` reads it as `s.template`.
   */
  monitoring: Template;
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

/** `synthesizeOffline` (lib/cdk/synth-offline.ts), with the templates for `aws-cdk-lib/assertions`. */
export function synthesize(options: OfflineSynthOptions): Synthesized {
  const synth = synthesizeOffline(options);
  const nested = synth.stack.monitoring.nestedStack;
  const resource = synth.template.Resources?.[NESTED_STACK_ID];
  if (resource?.Type !== 'AWS::CloudFormation::Stack') throw new Error(`no nested stack ${NESTED_STACK_ID}`);
  const { Parameters = {} } = resource.Properties as { Parameters?: Record<string, unknown> };
  const monitoring = withParameters(readTemplate(nestedTemplatePath(synth, nested)), Parameters);
  return {
    ...synth,
    template: Template.fromJSON(
      withRouteAreas(synth.stack, synth.template, (area) => readTemplate(nestedTemplatePath(synth, area))),
    ),
    main: Template.fromJSON(synth.template),
    monitoring: Template.fromJSON(monitoring),
  };
}

/**
 * The stack's template with its route areas read into it (`Synthesized.template`), each area's template as
 * `areaTemplate` reads it (from the assembly, or `Template.fromStack`).
 */
export function withRouteAreas(
  stack: TeamMessagingStack,
  main: CfnTemplate,
  areaTemplate: (area: RouteArea) => CfnTemplate,
): CfnTemplate {
  const areas = stack.node.children.filter((child): child is RouteArea => child instanceof RouteArea);
  const resources = { ...main.Resources };
  const outputs = new Map<string, unknown>();
  for (const area of areas) {
    const id = stack.resolve((area.nestedStackResource as CfnElement).logicalId) as string;
    const { Parameters = {} } = (resources[id]?.Properties ?? {}) as { Parameters?: Record<string, unknown> };
    const template = withParameters(areaTemplate(area), Parameters);
    Object.assign(resources, template.Resources);
    for (const [name, output] of Object.entries(template.Outputs ?? {}))
      outputs.set(`${id}.Outputs.${name}`, (output as { Value: unknown }).Value);
  }
  const isOutputRead = (value: unknown): value is { 'Fn::GetAtt': [string, string] } => {
    const att = (value as { 'Fn::GetAtt'?: unknown } | null)?.['Fn::GetAtt'];
    return Array.isArray(att) && outputs.has(att.join('.'));
  };
  return JSON.parse(JSON.stringify({ ...main, Resources: resources }), (_key, value) =>
    isOutputRead(value) ? outputs.get(value['Fn::GetAtt'].join('.')) : value,
  ) as CfnTemplate;
}

/** A route's function, from the area stack it is in. */
export function functionOfRoute(
  stack: TeamMessagingStack,
  route: { method: string; path: string },
): ApiFunction {
  const found = stack.routeFunctions.find(
    (each) => each.route.method === route.method && each.route.path === route.path,
  );
  if (!found) throw new Error(`no function for ${route.method} ${route.path}`);
  return found.fn;
}

/** The monitoring's nested template read as `s.template`, for the helpers that read that. */
export const inMonitoring = (s: Synthesized): Synthesized => ({ ...s, template: s.monitoring });

/** Where the assembly holds a nested stack's template (an asset of its parent's). */
export const nestedTemplatePath = (s: { assembly: cxapi.CloudAssembly }, nested: NestedStack) =>
  join(s.assembly.directory, nested.templateFile);

const readTemplate = (path: string): CfnTemplate => JSON.parse(readFileSync(path, 'utf8')) as CfnTemplate;

/** The template with each `{"Ref": parameter}` of `parameters` replaced by its value. */
export function withParameters(template: CfnTemplate, parameters: Record<string, unknown>): CfnTemplate {
  const isParameterRef = (value: unknown): value is { Ref: string } => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const keys = Object.keys(value);
    const ref = (value as { Ref?: unknown }).Ref;
    return keys.length === 1 && typeof ref === 'string' && Object.hasOwn(parameters, ref);
  };
  const { Parameters: _given, ...rest } = template;
  return JSON.parse(JSON.stringify(rest), (_key, value) =>
    isParameterRef(value) ? parameters[value.Ref] : value,
  ) as CfnTemplate;
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

/** The element's logical id in the template, an overridden one (the monitoring's nested stack) included. */
export const logicalId = (stack: TeamMessagingStack, element: unknown) =>
  stack.resolve((element as CfnElement).logicalId) as string;
