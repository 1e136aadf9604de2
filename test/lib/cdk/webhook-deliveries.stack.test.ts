import { ResourceImpact } from '@aws-cdk/cloudformation-diff';
import { describe, expect, it } from 'vitest';
import type { ApiFunction } from '../../../lib/cdk/api-function.ts';
import { guardFailure } from '../../../lib/cdk/stateful-guard.ts';
import { TABLE_SCHEMA } from '../../../shared/data/table-schema.ts';
import { SDK_CALL_BUDGET_MS } from '../../../shared/limits.ts';
import { routes, streamConsumer, webhookDelivery } from '../../../shared/routes.ts';
import { DELIVERY_TIMEOUT_MS } from '../../../shared/webhooks/schedule.ts';
import {
  acknowledgments,
  defaultAndOverridden,
  functionOfRoute,
  inMonitoring,
  logicalId,
  reportedViolations,
  type Synthesized,
} from '../../support/synth.ts';
import {
  actions,
  alarmsOn,
  all,
  getAtt,
  idOf,
  ofType,
  only,
  type Resource,
  type Statement,
  statementsOfRole,
  stringify,
  tableOverReleased,
} from '../../support/template.ts';

/**
 * Webhook deliveries, the AWS side: the `byDueTime` index, the deliverer (invoked asynchronously
 * only) and the sweeper on its schedule, who may invoke the deliverer, the alarms. The production stack with
 * cdk.json's defaults and the dev stack with its own metrics namespace and service, each synthesized once
 * (without bundling; test/lib/cdk/bundles.services.test.ts loads the bundles).
 */
const stacks = defaultAndOverridden({ serviceName: 'messaging-eu', metricsNamespace: 'MessagingEu' });

const deliverer = (s: Synthesized) => s.stack.webhookDeliveries.deliverer;
const sweeper = (s: Synthesized) => s.stack.webhookDeliveries.sweeper;
const consumer = (s: Synthesized) => s.stack.changeEvents.consumer;
const routeFunction = (s: Synthesized, route: (typeof routes)[number]) =>
  functionOfRoute(s.stack, route) as ApiFunction;
const functionResource = (s: Synthesized, fn: ApiFunction) => all(s)[idOf(s, fn)] as Resource;

/** Every statement of the policies attached to a function's role. */
const statementsOf = (s: Synthesized, fn: ApiFunction): Statement[] =>
  statementsOfRole(s, logicalId(s.stack, fn.role?.node.defaultChild));
/** A function's grants: its actions by resource, each list sorted. */
function grantsOf(s: Synthesized, fn: ApiFunction): Record<string, string[]> {
  const byResource: Record<string, string[]> = {};
  for (const statement of statementsOf(s, fn)) {
    expect(statement.Effect).toBe('Allow');
    const key = stringify(statement.Resource);
    byResource[key] = [...(byResource[key] ?? []), ...actions(statement)].sort();
  }
  return byResource;
}

/** The stack's own functions, by logical id: the routes, the authorizer, the consumer, deliverer, sweeper. */
const apiFunctions = (s: Synthesized) =>
  ofType(s, 'AWS::Lambda::Function').filter(([id]) => !id.startsWith('LogRetention'));
/** The policy that lets the deliverer invoke its on-failure destination, the sweeper. */
const destinationPolicy = (s: Synthesized) =>
  only(s, 'AWS::IAM::Policy', (r) =>
    stringify(r.Properties.PolicyDocument.Statement).includes(stringify(getAtt(idOf(s, sweeper(s)), 'Arn'))),
  );
/** Who may start deliveries, by the route table and the stream consumer's declaration. */
const invokers = (s: Synthesized): ApiFunction[] => [
  ...(streamConsumer.deliversWebhooks ? [consumer(s)] : []),
  sweeper(s),
  ...routes.filter((route) => route.deliversWebhooks).map((route) => routeFunction(s, route)),
];

const TABLE_READ = [
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:GetItem',
  'dynamodb:Query',
];
const TABLE_WRITE = [
  'dynamodb:BatchWriteItem',
  'dynamodb:DeleteItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
];
const LOGS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
const TRACES = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
const logsOf = (s: Synthesized, fn: ApiFunction) =>
  stringify(getAtt(logicalId(s.stack, fn.logGroup.node.defaultChild), 'Arn'));
const { dueIndex, idIndex } = TABLE_SCHEMA;

describe('webhooks: the byDueTime index', () => {
  it('is a keys-only index of the table on gsi2pk and gsi2sk, both strings, beside byId', () => {
    for (const s of [stacks.synth, stacks.overridden]) {
      const [, table] = only(s, 'AWS::DynamoDB::GlobalTable');
      const indexes = table.Properties.GlobalSecondaryIndexes as Array<{ IndexName: string }>;
      expect(indexes.map((index) => index.IndexName)).toEqual([idIndex.name, dueIndex.name]);
      expect(indexes.find((index) => index.IndexName === dueIndex.name)).toEqual({
        IndexName: 'byDueTime',
        KeySchema: [
          { AttributeName: dueIndex.partitionKey, KeyType: 'HASH' },
          { AttributeName: dueIndex.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      });
      expect([dueIndex.partitionKey, dueIndex.sortKey]).toEqual(['gsi2pk', 'gsi2sk']);
      expect(table.Properties.AttributeDefinitions).toEqual(
        expect.arrayContaining([
          { AttributeName: 'gsi2pk', AttributeType: 'S' },
          { AttributeName: 'gsi2sk', AttributeType: 'S' },
        ]),
      );
    }
  });

  it('is an in-place update of the released table: the stateful guard passes', () => {
    const { findings, change, releasedTable } = tableOverReleased(stacks.synth);
    expect(findings, guardFailure(findings)).toEqual([]);
    expect(Object.keys(change?.propertyUpdates ?? {})).toEqual(
      expect.arrayContaining(['GlobalSecondaryIndexes', 'AttributeDefinitions']),
    );
    expect(change?.changeImpact).toBe(ResourceImpact.WILL_UPDATE);
    // CloudFormation creates one index per update: the released table has every index but this one.
    const releasedIndexes = (releasedTable?.Properties.GlobalSecondaryIndexes ?? []) as Array<{
      IndexName: string;
    }>;
    expect(releasedIndexes.map((index) => index.IndexName)).toEqual([idIndex.name]);
  });
});

describe('webhooks: the deliverer', () => {
  it('is built like the other functions, with time for its batch and the settings it reads', () => {
    const s = stacks.synth;
    const fn = functionResource(s, deliverer(s));
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      MemorySize: 256,
      Timeout: 120,
    });
    // Five rounds of ten deliveries (50), each up to 15 s of waiting and then its table writes.
    expect(fn.Properties.Timeout * 1000).toBeGreaterThanOrEqual(
      5 * (DELIVERY_TIMEOUT_MS + SDK_CALL_BUDGET_MS),
    );
    const [tableId] = only(s, 'AWS::DynamoDB::GlobalTable');
    const variables = fn.Properties.Environment.Variables;
    expect(Object.keys(variables).sort()).toEqual(
      [
        'LOG_LEVEL',
        'METRICS_NAMESPACE',
        'NODE_OPTIONS',
        'PUBLIC_BASE_URL',
        'SERVICE_NAME',
        'SIGNING_SECRETS_KEY',
        'TABLE_NAME',
      ].sort(),
    );
    expect(variables).toMatchObject({ TABLE_NAME: { Ref: tableId }, SERVICE_NAME: 'team-messaging-api' });
    expect(stringify(variables.PUBLIC_BASE_URL)).toContain('DomainName');
    const dev = functionResource(stacks.overridden, deliverer(stacks.overridden)).Properties.Environment;
    expect(dev.Variables).toMatchObject({ SERVICE_NAME: 'messaging-eu', METRICS_NAMESPACE: 'MessagingEu' });
    expect(webhookDelivery.deliverer.handler).toBe('functions/webhooks/deliverer.ts');
  });

  it('is invoked asynchronously only: Lambda retries a failed run twice, keeps a throttled one 6 hours, then hands it to the sweeper', () => {
    const s = stacks.synth;
    const [, config] = only(
      s,
      'AWS::Lambda::EventInvokeConfig',
      (r) => stringify(r.Properties.FunctionName) === stringify({ Ref: idOf(s, deliverer(s)) }),
    );
    expect(config.Properties).toEqual({
      FunctionName: { Ref: idOf(s, deliverer(s)) },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 6 * 3600,
      DestinationConfig: { OnFailure: { Destination: getAtt(idOf(s, sweeper(s)), 'Arn') } },
    });
    // Lambda checks the role may invoke the destination when the config is made: its policy comes first.
    const [policyId] = destinationPolicy(s);
    expect((config as Resource & { DependsOn?: string[] }).DependsOn).toContain(policyId);
    // Nothing invokes it through a resource policy, a rule or an event source: only the roles below.
    const named = (r: Resource) => stringify(r.Properties).includes(`"${idOf(s, deliverer(s))}"`);
    for (const type of ['AWS::Lambda::Permission', 'AWS::Lambda::EventSourceMapping', 'AWS::Events::Rule'])
      expect(
        ofType(s, type)
          .filter(([, r]) => named(r))
          .map(([id]) => id),
        type,
      ).toEqual([]);
    // Its share of the account's concurrency (cdk.json `concurrency`; tenant-isolation/concurrency.test.ts).
    expect(functionResource(s, deliverer(s)).Properties.ReservedConcurrentExecutions).toBe(50);
  });

  it('may read and write the table, invoke its on-failure destination (the sweeper) and open signing secrets; no index, no other function', () => {
    const s = stacks.synth;
    const [tableId] = only(s, 'AWS::DynamoDB::GlobalTable');
    expect(grantsOf(s, deliverer(s))).toEqual({
      [stringify(getAtt(tableId, 'Arn'))]: [...TABLE_READ, ...TABLE_WRITE].sort(),
      [stringify(getAtt(idOf(s, sweeper(s)), 'Arn'))]: ['lambda:InvokeFunction'],
      // It signs: it decrypts the data keys of the endpoints' signing secrets (test/lib/cdk/signing-secrets.stack.test.ts).
      [stringify(getAtt(idOf(s, s.stack.signingSecrets), 'Arn'))]: ['kms:Decrypt'],
      [logsOf(s, deliverer(s))]: LOGS,
      '"*"': TRACES,
    });
  });

  it('names none of its invokers but in the destination policy, which it does not depend on: no dependency cycle', () => {
    const s = stacks.synth;
    const [policyId, policy] = destinationPolicy(s);
    const own = [
      functionResource(s, deliverer(s)),
      ...statementsOf(s, deliverer(s)).filter(
        (statement) => !stringify(policy.Properties.PolicyDocument.Statement).includes(stringify(statement)),
      ),
      all(s)[logicalId(s.stack, deliverer(s).role?.node.defaultChild)],
    ];
    for (const invoker of invokers(s)) expect(stringify(own)).not.toContain(`"${idOf(s, invoker)}"`);
    expect(
      stringify((functionResource(s, deliverer(s)) as Resource & { DependsOn?: string[] }).DependsOn ?? []),
    ).not.toContain(policyId);
  });
});

describe('webhooks: the sweeper', () => {
  it('runs every minute from an EventBridge rule, not retried (the next run finds the same)', () => {
    const s = stacks.synth;
    expect(webhookDelivery.sweeper.everyMinutes).toBe(1);
    const [ruleId, rule] = only(s, 'AWS::Events::Rule');
    expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' });
    expect(rule.Properties.EventBusName).toBeUndefined();
    expect(rule.Properties.Targets).toEqual([
      {
        Id: 'Target0',
        Arn: getAtt(idOf(s, sweeper(s)), 'Arn'),
        RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
      },
    ]);
    // The rule, and only the rule, may invoke the sweeper (its resource policy).
    const [, permission] = only(s, 'AWS::Lambda::Permission', (r) =>
      stringify(r.Properties.FunctionName).includes(`"${idOf(s, sweeper(s))}"`),
    );
    expect(permission.Properties).toEqual({
      Action: 'lambda:InvokeFunction',
      FunctionName: getAtt(idOf(s, sweeper(s)), 'Arn'),
      Principal: 'events.amazonaws.com',
      SourceArn: getAtt(ruleId, 'Arn'),
    });
    const [, config] = only(
      s,
      'AWS::Lambda::EventInvokeConfig',
      (r) => stringify(r.Properties.FunctionName) === stringify({ Ref: idOf(s, sweeper(s)) }),
    );
    expect(config.Properties).toMatchObject({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 });
  });

  it('has a minute, and the settings it reads and the deliverer to invoke', () => {
    const s = stacks.synth;
    const fn = functionResource(s, sweeper(s));
    expect(fn.Properties).toMatchObject({ Timeout: 60, MemorySize: 256, TracingConfig: { Mode: 'Active' } });
    expect(Object.keys(fn.Properties.Environment.Variables).sort()).toEqual(
      [
        'LOG_LEVEL',
        'METRICS_NAMESPACE',
        'NODE_OPTIONS',
        'SERVICE_NAME',
        'TABLE_NAME',
        'WEBHOOK_DELIVERER_FUNCTION',
      ].sort(),
    );
    expect(webhookDelivery.sweeper.handler).toBe('functions/webhooks/sweeper.ts');
  });

  it('may write due records, Query the byDueTime index (not byId), and invoke the deliverer; nothing else', () => {
    const s = stacks.synth;
    const [tableId] = only(s, 'AWS::DynamoDB::GlobalTable');
    const index = (name: string) =>
      stringify({ 'Fn::Join': ['', [getAtt(tableId, 'Arn'), `/index/${name}`]] });
    const grants = grantsOf(s, sweeper(s));
    expect(grants).toEqual({
      // As the deliverer's on-failure destination it writes due records; it reads no item.
      [stringify(getAtt(tableId, 'Arn'))]: TABLE_WRITE,
      [index(dueIndex.name)]: ['dynamodb:Query'],
      [stringify(getAtt(idOf(s, deliverer(s)), 'Arn'))]: ['lambda:InvokeFunction'],
      [logsOf(s, sweeper(s))]: LOGS,
      '"*"': TRACES,
    });
    expect(Object.keys(grants)).not.toContain(index(idIndex.name));
  });
});

describe('webhooks: who may start deliveries', () => {
  it('is exactly the consumer, the sweeper and the deliversWebhooks routes (redeliver, recover)', () => {
    const s = stacks.synth;
    const flagged = routes.filter((route) => route.deliversWebhooks).map((r) => `${r.method} ${r.path}`);
    expect(flagged).toEqual([
      'POST /api/v1/events/{id}/redeliver',
      'POST /api/v1/webhook-endpoints/{id}/recover',
    ]);
    expect(streamConsumer.deliversWebhooks).toBe(true);
    // Every role with any lambda: action, by the role's logical id.
    const withLambdaActions = new Set(
      ofType(s, 'AWS::IAM::Policy')
        .filter(([, policy]) =>
          (policy.Properties.PolicyDocument.Statement as Statement[]).some((st) =>
            actions(st).some((a) => a.startsWith('lambda:')),
          ),
        )
        .flatMap(([, policy]) => policy.Properties.Roles.map((ref: { Ref: string }) => ref.Ref)),
    );
    // And the deliverer, whose one lambda: action is to invoke its on-failure destination (the sweeper).
    const expected = [...invokers(s), deliverer(s)].map((fn) =>
      logicalId(s.stack, fn.role?.node.defaultChild),
    );
    expect([...withLambdaActions].sort()).toEqual(expected.sort());
  });

  it('each of them may InvokeFunction on the deliverer ARN alone: not its versions, not another function', () => {
    for (const s of [stacks.synth, stacks.overridden]) {
      const delivererArn = getAtt(idOf(s, deliverer(s)), 'Arn');
      for (const fn of invokers(s)) {
        const invoking = statementsOf(s, fn).filter((st) => actions(st).some((a) => a.startsWith('lambda:')));
        expect(invoking, fn.node.path).toEqual([
          { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: delivererArn },
        ]);
      }
    }
  });

  it('no other route function has any lambda: action', () => {
    const s = stacks.synth;
    const others = routes.filter((route) => !route.deliversWebhooks);
    expect(others.length).toBe(routes.length - 2);
    for (const route of others) {
      const lambdaActions = statementsOf(s, routeFunction(s, route))
        .flatMap(actions)
        .filter((a) => a.startsWith('lambda:'));
      expect(lambdaActions, `${route.method} ${route.path}`).toEqual([]);
    }
  });

  it('WEBHOOK_DELIVERER_FUNCTION names the deliverer in exactly their environments', () => {
    for (const s of [stacks.synth, stacks.overridden]) {
      const expected = invokers(s).map((fn) => idOf(s, fn));
      const having = apiFunctions(s).filter(
        ([, fn]) => fn.Properties.Environment?.Variables?.WEBHOOK_DELIVERER_FUNCTION !== undefined,
      );
      expect(having.map(([id]) => id).sort()).toEqual(expected.sort());
      for (const [id, fn] of having)
        expect(fn.Properties.Environment.Variables.WEBHOOK_DELIVERER_FUNCTION, id).toEqual({
          Ref: idOf(s, deliverer(s)),
        });
    }
  });
});

describe('webhooks: alarms and dashboard', () => {
  it('alarms on any endpoint disabled (WebhookEndpointsDisabled of the service), at once, to the alarm topic', () => {
    for (const [s, namespace, service] of [
      [stacks.synth, 'TeamMessagingApi', 'team-messaging-api'],
      [stacks.overridden, 'MessagingEu', 'messaging-eu'],
    ] as const) {
      const [topicId] = only(s, 'AWS::SNS::Topic');
      const [alarm, ...others] = alarmsOn(s, 'WebhookEndpointsDisabled', { service });
      expect(others).toEqual([]);
      expect(alarm).toMatchObject({ namespace, stat: 'Sum' });
      expect(alarm?.properties).toMatchObject({
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        DatapointsToAlarm: 1,
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: topicId }],
        OKActions: [{ Ref: topicId }],
        AlarmName: `${s.stack.stackName}-Monitoring-Webhooks-EndpointsDisabled-Critical`,
      });
      expect(alarm?.properties.AlarmDescription).toMatch(/410/);
    }
  });

  it("alarms on the deliverer's and the sweeper's errors and throttles", () => {
    const s = stacks.synth;
    for (const [fn, name] of [
      [deliverer(s), 'WebhookDelivererFunction'],
      [sweeper(s), 'WebhookSweeperFunction'],
    ] as const) {
      const on = { FunctionName: { Ref: idOf(s, fn) } };
      const [errors, ...moreErrors] = alarmsOn(s, 'Errors', on);
      const [throttles, ...moreThrottles] = alarmsOn(s, 'Throttles', on);
      expect([...moreErrors, ...moreThrottles]).toEqual([]);
      expect(errors?.properties.AlarmName).toBe(`TeamMessagingApi-Monitoring-${name}-Fault-Count-Critical`);
      expect(throttles?.properties.AlarmName).toBe(
        `TeamMessagingApi-Monitoring-${name}-Throttled-Count-Critical`,
      );
    }
  });

  it('shows both functions and the disabled endpoints on the dashboard', () => {
    const s = stacks.overridden;
    const [, dashboard] = only(inMonitoring(s), 'AWS::CloudWatch::Dashboard');
    const body = stringify(dashboard.Properties.DashboardBody);
    for (const fn of [deliverer(s), sweeper(s)]) expect(body).toContain(stringify({ Ref: idOf(s, fn) }));
    expect(body).toContain(
      '\\"MessagingEu\\",\\"WebhookEndpointsDisabled\\",\\"service\\",\\"messaging-eu\\"',
    );
  });
});

describe('webhooks: checks', () => {
  it('passes the AwsSolutions (cdk-nag) checks with no acknowledgment beyond every function’s own', () => {
    for (const s of [stacks.synth, stacks.overridden]) expect(reportedViolations(s.assembly)).toEqual([]);
    const webhooks = `${stacks.synth.stack.webhookDeliveries.node.path}/`;
    const ids = acknowledgments(stacks.synth.app)
      .filter((a) => a.path.startsWith(webhooks))
      .map((a) => `${a.path.slice(webhooks.length)} ${a.id}`);
    // The ones ApiFunction makes for every function (the pinned runtime, X-Ray's `*`).
    expect(ids.sort()).toEqual(
      [
        'Deliverer AwsSolutions-L1',
        'DelivererRole AwsSolutions-IAM5[Resource::*]',
        'Sweeper AwsSolutions-L1',
        'SweeperRole AwsSolutions-IAM5[Resource::*]',
      ].sort(),
    );
  });
});
