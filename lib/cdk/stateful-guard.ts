import { fullDiff, ResourceImpact } from '@aws-cdk/cloudformation-diff';
import type { CfnTemplate } from './synth-offline.ts';

/**
 * Resource types whose replacement or removal loses data (a log group's data is its logs; a key's, what it
 * sealed) or the CDN's domain.
 */
export const STATEFUL_TYPES = [
  'AWS::DynamoDB::Table',
  'AWS::DynamoDB::GlobalTable',
  'AWS::S3::Bucket',
  'AWS::CloudFront::Distribution',
  'AWS::Logs::LogGroup',
  // Webhook signing secrets open only under it.
  'AWS::KMS::Key',
];

/** What a deploy would do to a stateful resource, in the words of the failure message. */
const HARMFUL: Partial<Record<ResourceImpact, string>> = {
  [ResourceImpact.WILL_DESTROY]: 'removed (deleted)',
  [ResourceImpact.WILL_ORPHAN]: 'removed (orphaned: retained in the account, no longer in the stack)',
  [ResourceImpact.WILL_REPLACE]: 'replaced',
  [ResourceImpact.MAY_REPLACE]: 'may be replaced',
};

export interface Finding {
  logicalId: string;
  type: string;
  impact: ResourceImpact;
  /** removed, replaced or may be replaced, and by which properties. */
  why: string;
}

/**
 * The stateful resources of `oldTemplate` that deploying `newTemplate` over it would replace or remove,
 * as the CDK's own diff (`cdk diff`) judges it: a removed logical id (a renamed construct), a changed
 * type, or a property CloudFormation can only change by replacement (a key schema, a name).
 */
export function statefulChanges(oldTemplate: CfnTemplate, newTemplate: CfnTemplate): Finding[] {
  const findings: Finding[] = [];
  fullDiff(oldTemplate, newTemplate).resources.forEachDifference((logicalId, change) => {
    const type = change.oldResourceType;
    const impact = change.changeImpact;
    const harm = HARMFUL[impact];
    if (!type || !STATEFUL_TYPES.includes(type) || !harm) return;
    const causes = change.resourceTypeChanged
      ? [`type ${change.newResourceType}`]
      : Object.entries(change.propertyUpdates)
          .filter(([, property]) => property.changeImpact && HARMFUL[property.changeImpact])
          .map(([name]) => name);
    findings.push({ logicalId, type, impact, why: causes.length ? `${harm}: ${causes.join(', ')}` : harm });
  });
  return findings;
}

export const describeFinding = (f: Finding) => `${f.logicalId} (${f.type}): ${f.why}`;

/** The guard's failure message: each finding, and how to accept such a change deliberately. */
export function guardFailure(findings: Finding[]): string {
  return [
    `Deploying this stack over the released template would replace or remove ${findings.length} stateful resource(s):`,
    ...findings.map((f) => `  ${describeFinding(f)}`),
    'Their data would be lost or left behind. A renamed construct or a changed key schema does this.',
    'If the change is intended, plan the data migration, then run `npm run release-template` and commit',
    'lib/cdk/released/TeamMessagingApi.template.json with the change, saying why in the commit message.',
  ].join('\n');
}
