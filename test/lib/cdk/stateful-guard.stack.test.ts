import { ResourceImpact } from '@aws-cdk/cloudformation-diff';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  normalizeTemplate,
  readReleasedTemplate,
  releasableTemplate,
} from '../../../lib/cdk/released-template.ts';
import { guardFailure, statefulChanges } from '../../../lib/cdk/stateful-guard.ts';
import type { CfnTemplate } from '../../../lib/cdk/synth-offline.ts';

/**
 * The stateful resources of the released template (lib/cdk/released/) survive a deploy of the current stack:
 * no table, bucket, distribution or log group is replaced or removed. Then the guard itself, on the current
 * template edited as a careless change would edit it. One synthesis, without bundling.
 */
let current: CfnTemplate;
beforeAll(() => {
  current = releasableTemplate();
});

// biome-ignore lint/suspicious/noExplicitAny: tests edit synthesized CloudFormation loosely.
type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, unknown> };
const resource = (template: CfnTemplate, logicalId: string) => template.Resources?.[logicalId] as Resource;

/** The first resource of `type` in the current template (the proofs hold for any of them). */
function firstOf(type: string): string {
  const found = Object.entries(current.Resources ?? {}).find(([, r]) => r.Type === type);
  if (!found) throw new Error(`no ${type} in the template`);
  return found[0];
}

/** A copy of `template` (the current one by default) with `edit` applied. */
function changed(edit: (template: CfnTemplate) => void, template = current): CfnTemplate {
  const copy = structuredClone(template);
  edit(copy);
  return copy;
}

/** A renamed construct: a new logical id, wherever the template names the resource. */
const renamed = (from: string, to: string): CfnTemplate =>
  JSON.parse(JSON.stringify(current).replaceAll(from, to));

const ORPHANED = 'removed (orphaned: retained in the account, no longer in the stack)';

describe('the stateful resources', () => {
  it('are neither replaced nor removed by deploying the current stack over the released template', () => {
    const findings = statefulChanges(readReleasedTemplate(), current);
    expect(findings, guardFailure(findings)).toEqual([]);
  });
});

describe('the released template', () => {
  it('holds no asset hash and no CDK metadata: it is normalized', () => {
    const released = readReleasedTemplate();
    expect(normalizeTemplate(released)).toEqual(released);
    expect(JSON.stringify(released)).not.toMatch(/[0-9a-f]{64}/);
  });

  it('is normalized of what the CLI and bundling change on every synth', () => {
    const fn = firstOf('AWS::Lambda::Function');
    const asCdkSynthWritesIt = changed((template) => {
      template.Resources = {
        ...template.Resources,
        CDKMetadata: { Type: 'AWS::CDK::Metadata', Properties: { Analytics: 'v2:deflate64:H4sI' } },
      };
      const code = resource(template, fn);
      code.Properties.Code.S3Key = `${'0123abcd'.repeat(8)}.zip`;
      code.Metadata = {
        ...code.Metadata,
        'aws:cdk:path': 'TeamMessagingApi/Fn/Resource',
        'aws:asset:path': 'asset.0123',
      };
      // The monitoring's nested stack: its template is an asset too, named by its hash.
      const nested = resource(template, firstOf('AWS::CloudFormation::Stack'));
      const url = nested.Properties.TemplateURL['Fn::Join'][1];
      url[url.length - 1] = `/${'0123abcd'.repeat(8)}.json`;
    });
    expect(normalizeTemplate(asCdkSynthWritesIt)).toEqual(current);
  });
});

describe('the guard', () => {
  it('reports a renamed table construct: the table is removed from the stack (retained, orphaned)', () => {
    const table = firstOf('AWS::DynamoDB::GlobalTable');
    expect(statefulChanges(current, renamed(table, 'MessagesTable1A2B3C4D'))).toEqual([
      {
        logicalId: table,
        type: 'AWS::DynamoDB::GlobalTable',
        impact: ResourceImpact.WILL_ORPHAN,
        why: ORPHANED,
      },
    ]);
  });

  it('reports a changed sort key: the table is replaced (CloudFormation cannot update a key schema)', () => {
    const table = firstOf('AWS::DynamoDB::GlobalTable');
    const sortKeyRenamed = changed((template) => {
      const { Properties } = resource(template, table);
      // biome-ignore lint/suspicious/noExplicitAny: a KeySchema element.
      Properties.KeySchema.find((key: any) => key.KeyType === 'RANGE').AttributeName = 'sort_key';
      Properties.AttributeDefinitions.push({ AttributeName: 'sort_key', AttributeType: 'S' });
    });
    expect(statefulChanges(current, sortKeyRenamed)).toEqual([
      {
        logicalId: table,
        type: 'AWS::DynamoDB::GlobalTable',
        impact: ResourceImpact.WILL_REPLACE,
        why: 'replaced: KeySchema',
      },
    ]);
  });

  it('reports a removed bucket (retained, orphaned) and a removed distribution (deleted)', () => {
    const [bucket, cdn] = [firstOf('AWS::S3::Bucket'), firstOf('AWS::CloudFront::Distribution')];
    const removed = changed((template) => {
      delete template.Resources?.[bucket];
      delete template.Resources?.[cdn];
    });
    const findings = statefulChanges(current, removed);
    expect(findings).toEqual([
      { logicalId: bucket, type: 'AWS::S3::Bucket', impact: ResourceImpact.WILL_ORPHAN, why: ORPHANED },
      {
        logicalId: cdn,
        type: 'AWS::CloudFront::Distribution',
        impact: ResourceImpact.WILL_DESTROY,
        why: 'removed (deleted)',
      },
    ]);
    const message = guardFailure(findings);
    expect(message).toContain(`${bucket} (AWS::S3::Bucket): ${ORPHANED}`);
    expect(message).toContain(`${cdn} (AWS::CloudFront::Distribution): removed (deleted)`);
    expect(message).toContain('npm run release-template');
  });

  it('reports a name given to a log group: it is replaced, its logs left in the old one', () => {
    const logs = firstOf('AWS::Logs::LogGroup');
    const named = changed((template) => {
      resource(template, logs).Properties.LogGroupName = '/team-messaging-api/named';
    });
    expect(statefulChanges(current, named)).toEqual([
      {
        logicalId: logs,
        type: 'AWS::Logs::LogGroup',
        impact: ResourceImpact.WILL_REPLACE,
        why: 'replaced: LogGroupName',
      },
    ]);
  });

  it('passes harmless changes: memory, a retention, a new policy, a renamed stateless construct', () => {
    // The alarm topic under a new logical id is replaced, which loses nothing.
    const topicRenamed = renamed(firstOf('AWS::SNS::Topic'), 'AlarmTopic1A2B3C4D');
    const harmless = changed((template) => {
      resource(template, firstOf('AWS::Lambda::Function')).Properties.MemorySize = 1024;
      resource(template, firstOf('AWS::Logs::LogGroup')).Properties.RetentionInDays = 365;
      const [policyId, policy] = Object.entries(template.Resources ?? {}).find(
        ([, r]) => r.Type === 'AWS::IAM::Policy',
      ) as [string, Resource];
      template.Resources = { ...template.Resources, [`${policyId}Extra`]: structuredClone(policy) };
    }, topicRenamed);
    expect(statefulChanges(current, harmless)).toEqual([]);
  });
});
