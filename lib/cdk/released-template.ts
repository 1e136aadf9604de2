import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type CfnTemplate, synthesizeOffline } from './synth-offline.ts';

/**
 * The production stack's template as last released (cdk.json's defaults), kept in the repository so that
 * test/lib/cdk/stateful-guard.stack.test.ts can tell what a change would do to the deployed stateful resources.
 * `npm run release-template` (bin/release-template.ts) writes it.
 */
export const RELEASED_TEMPLATE_PATH = join(import.meta.dirname, 'released', 'TeamMessagingApi.template.json');

export const readReleasedTemplate = (): CfnTemplate =>
  JSON.parse(readFileSync(RELEASED_TEMPLATE_PATH, 'utf8')) as CfnTemplate;

/** The production stack's template now, normalized as the released one is; no bundling (~2 s). */
export function releasableTemplate(): CfnTemplate {
  const { template, outdir } = synthesizeOffline({ full: false });
  rmSync(outdir, { recursive: true, force: true });
  return normalizeTemplate(template);
}

const ASSET_HASH = /\b[0-9a-f]{64}\b/g;
/** The properties in which an asset's hash names its object: a function's code, a nested stack's template. */
const ASSET_PROPERTIES = new Set(['S3Key', 'TemplateURL']);
/** What `cdk synth` adds to each resource's Metadata: its construct path and its asset's local file. */
const CDK_METADATA_KEYS = /^aws:(cdk:path|asset:)/;

/**
 * Strips what changes on every code change or CLI run without being a change to a resource, so that the
 * released file's diff shows resource changes only:
 * - asset hashes in `S3Key` (`<sha256>.zip`): they change with a function's bundle, or its bundling options
 *   and aws-cdk-lib's own assets, and a synth without bundling (this one) hashes other things than
 *   `cdk synth` does; a new hash is a code update, never a replacement; and in a nested stack's
 *   `TemplateURL` (`.../<sha256>.json`), which changes with anything in its template: an update of the
 *   nested stack, whose own resources the diff of this template does not see;
 * - the `AWS::CDK::Metadata` resource and the `aws:cdk:path` / `aws:asset:*` resource metadata the CLI adds
 *   (version reporting, path metadata): bookkeeping, and absent when the app is synthesized without the CLI.
 */
export function normalizeTemplate(template: CfnTemplate): CfnTemplate {
  const resources = Object.entries(template.Resources ?? {})
    .filter(([, resource]) => resource.Type !== 'AWS::CDK::Metadata')
    .map(([id, resource]) => [id, withoutCdkMetadata(resource)]);
  return JSON.parse(
    JSON.stringify({ ...template, Resources: Object.fromEntries(resources) }),
    (key, value) =>
      ASSET_PROPERTIES.has(key)
        ? JSON.parse(JSON.stringify(value).replace(ASSET_HASH, '<asset hash>'))
        : value,
  );
}

type Resource = NonNullable<CfnTemplate['Resources']>[string];

function withoutCdkMetadata(resource: Resource): Resource {
  const { Metadata, ...rest } = resource;
  if (!Metadata || typeof Metadata !== 'object') return resource;
  const kept = Object.entries(Metadata).filter(([key]) => !CDK_METADATA_KEYS.test(key));
  return kept.length ? { ...rest, Metadata: Object.fromEntries(kept) } : rest;
}
