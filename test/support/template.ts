import { fullDiff } from '@aws-cdk/cloudformation-diff';
import { expect } from 'vitest';
import { readReleasedTemplate, releasableTemplate } from '../../lib/cdk/released-template.ts';
import { statefulChanges } from '../../lib/cdk/stateful-guard.ts';
import { inMonitoring, logicalId, type Synthesized } from './synth.ts';

/**
 * Reading a synthesized template in the stack tests of one part of the stack (test/lib/cdk/change-events.stack.test.ts,
 * test/lib/cdk/webhook-deliveries.stack.test.ts): its resources by type, a construct's logical id, the statements of a role, the
 * alarms on a metric, what deploying it over the released template does to the table. `inMonitoring(s)`
 * (./synth.ts) reads the monitoring's nested stack instead: the alarms and the dashboard.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read synthesized CloudFormation loosely and assert on it.
export type Resource = { Type: string; Properties: Record<string, any> };
export type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

export const all = (s: Synthesized) => s.template.toJSON().Resources as Record<string, Resource>;
export const ofType = (s: Synthesized, type: string) =>
  Object.entries(all(s)).filter(([, resource]) => resource.Type === type);
/** The one resource of `type` for which `where` holds; fails if there is none or more. */
export function only(
  s: Synthesized,
  type: string,
  where: (resource: Resource) => boolean = () => true,
): [string, Resource] {
  const found = ofType(s, type).filter(([, resource]) => where(resource));
  expect(
    found.map(([id]) => id),
    type,
  ).toHaveLength(1);
  return found[0] as [string, Resource];
}
export const idOf = (s: Synthesized, construct: { node: { defaultChild?: unknown } }) =>
  logicalId(s.stack, construct.node.defaultChild);
export const getAtt = (id: string, attribute: string) => ({ 'Fn::GetAtt': [id, attribute] });
export const stringify = (value: unknown) => JSON.stringify(value);

/** Every statement of the policies attached to a role (by the role's logical id). */
export const statementsOfRole = (s: Synthesized, role: string): Statement[] =>
  ofType(s, 'AWS::IAM::Policy')
    .filter(([, policy]) => policy.Properties.Roles.some((ref: { Ref: string }) => ref.Ref === role))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[]);
export const actions = (statement: Statement) => [statement.Action].flat();

export interface AlarmOn {
  properties: Record<string, unknown>;
  namespace: string;
  stat: string;
}
/**
 * The alarms of the stack (in the monitoring's nested stack, its parameters resolved) on `metric` with exactly
 * these dimensions (cdk-monitoring-constructs' form: `Metrics`).
 */
export const alarmsOn = (s: Synthesized, metric: string, dimensions: Record<string, unknown>): AlarmOn[] =>
  ofType(inMonitoring(s), 'AWS::CloudWatch::Alarm').flatMap(([, alarm]) =>
    // biome-ignore lint/suspicious/noExplicitAny: CloudFormation read loosely.
    (alarm.Properties.Metrics as any[])
      .filter(({ MetricStat }) => {
        const found = MetricStat?.Metric;
        if (found?.MetricName !== metric) return false;
        const given = Object.fromEntries(
          (found.Dimensions ?? []).map((d: { Name: string; Value: unknown }) => [d.Name, d.Value]),
        );
        return stringify(given) === stringify(dimensions);
      })
      .map(({ MetricStat }) => ({
        properties: alarm.Properties,
        namespace: MetricStat.Metric.Namespace,
        stat: MetricStat.Stat,
      })),
  );

/**
 * Deploying the production stack as it is now over the released template (lib/cdk/released/): the stateful
 * guard's findings, the change to the table (`s` names it), and the table as released.
 */
export function tableOverReleased(s: Synthesized) {
  const released = readReleasedTemplate();
  const current = releasableTemplate();
  const [tableId] = only(s, 'AWS::DynamoDB::GlobalTable');
  return {
    findings: statefulChanges(released, current),
    change: fullDiff(released, current).resources.get(tableId),
    releasedTable: released.Resources?.[tableId] as Resource | undefined,
  };
}
