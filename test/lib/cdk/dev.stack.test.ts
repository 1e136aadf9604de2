import { rmSync } from 'node:fs';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportedViolations, type Synthesized, synthesize } from '../../support/synth.ts';

/** `npx cdk synth -c dev=true`: a separate, disposable stack, synthesized once (without bundling). */
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ dev: true, full: false });
});
afterAll(() => {
  if (synth) rmSync(synth.outdir, { recursive: true, force: true });
});

describe('CDK dev stack', () => {
  it('is a stack of its own, so a dev deploy can never turn the production stack disposable', () => {
    expect(synth.assembly.stacks.map((stack) => stack.stackName)).toEqual(['TeamMessagingApiDev']);
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'dev' });
  });

  it('deletes the table, the buckets (emptied first) and the log groups with the stack', () => {
    synth.template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })] }),
    });
    const buckets = synth.template.findResources('AWS::S3::Bucket');
    expect(Object.keys(buckets)).toHaveLength(2);
    for (const [id, bucket] of Object.entries(buckets)) expect(bucket.DeletionPolicy, id).toBe('Delete');
    const autoDeletes = Object.values(synth.template.findResources('Custom::S3AutoDeleteObjects'));
    expect(autoDeletes.map((resource) => resource.Properties.BucketName.Ref).sort()).toEqual(
      Object.keys(buckets).sort(),
    );
    for (const [id, logGroup] of Object.entries(synth.template.findResources('AWS::Logs::LogGroup'))) {
      expect(logGroup.DeletionPolicy, id).toBe('Delete');
    }
  });

  it('passes the AwsSolutions (cdk-nag) checks too', () => {
    expect(reportedViolations(synth.assembly)).toEqual([]);
  });
});
