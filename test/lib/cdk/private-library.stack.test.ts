import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../../shared/routes.ts';
import { functionOfRoute, logicalId, type Synthesized, synthesize } from '../../support/synth.ts';
import { actions, all, idOf, ofType, statementsOfRole, stringify } from '../../support/template.ts';

/**
 * What S3 keeps of a team is bounded by its upload quotas (docs/tenant-isolation.md, "Storage per team"):
 * each upload URL writes one version at most, because every write under `teams/` must be conditioned on
 * the key holding no object (the bucket's policy), and what versions there are expire as the lifecycle says.
 */
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ full: false });
});
afterAll(() => {
  if (synth) rmSync(synth.outdir, { recursive: true, force: true });
});

const privateBucket = () => idOf(synth, synth.stack.privateFiles);

describe('the private library: a file is written once', () => {
  it("the bucket's policy refuses every PutObject under teams/ without If-None-Match, whoever sends it", () => {
    const [, policy] = ofType(synth, 'AWS::S3::BucketPolicy').find(
      ([, each]) => each.Properties.Bucket.Ref === privateBucket(),
    ) ?? [undefined, undefined];
    const statements = policy?.Properties.PolicyDocument.Statement as Array<Record<string, unknown>>;
    expect(statements.filter((statement) => statement.Sid === 'LibraryFilesAreWrittenOnce')).toEqual([
      {
        Sid: 'LibraryFilesAreWrittenOnce',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:PutObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [privateBucket(), 'Arn'] }, '/teams/*']] },
        Condition: { Null: { 's3:if-none-match': 'true' } },
      },
    ]);
    // Nothing in the bucket's policy allows a write: the upload function's own role does (below).
    expect(statements.filter((statement) => statement.Effect === 'Allow')).toEqual([]);
  });

  it('only POST /files (which signs If-None-Match into its URLs) may write the private bucket', () => {
    const writers = routes.filter((route) =>
      statementsOfRole(
        synth,
        logicalId(synth.stack, functionOfRoute(synth.stack, route).role?.node.defaultChild),
      )
        .filter((statement) => actions(statement).some((action) => /^s3:(PutObject|\*)$/.test(action)))
        .some((statement) => stringify(statement.Resource).includes(`"${privateBucket()}"`)),
    );
    expect(writers.map((route) => `${route.method} ${route.path}`)).toEqual(['POST /api/v1/files']);
  });

  it('keeps versions (a deleted file can be recovered for 30 days) and aborts multipart uploads after a day', () => {
    const bucket = all(synth)[privateBucket()];
    expect(bucket?.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket?.Properties.LifecycleConfiguration).toEqual({
      Rules: [
        {
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          NoncurrentVersionExpiration: { NoncurrentDays: 30 },
          Status: 'Enabled',
        },
      ],
    });
  });
});
