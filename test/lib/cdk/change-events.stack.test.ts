import { ResourceImpact } from '@aws-cdk/cloudformation-diff';
import { describe, expect, it } from 'vitest';
import { guardFailure } from '../../../lib/cdk/stateful-guard.ts';
import {
  attemptKey,
  brandKey,
  defaultBrandKey,
  deliveryKey,
  EVENT_PREFIX,
  fieldKey,
  idempotencyKey,
  LEGACY_DEFAULT_BRAND_SK,
  listKey,
  sequenceKey,
  tagKey,
  teamKey,
  tokenKey,
  webhookEndpointKey,
} from '../../../shared/data/keys.ts';
import { SDK_CALL_BUDGET_MS } from '../../../shared/limits.ts';
import { routes, streamConsumer } from '../../../shared/routes.ts';
import {
  acknowledgments,
  defaultAndOverridden,
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
 * Change events, the AWS side: the table's stream, the consumer reading it through an event
 * source mapping that AWS's recommendations for stream consumers shape, the on-failure queue and its
 * alarm, the EventBridge bus. The production stack with cdk.json's defaults and the dev stack with an
 * iterator-age threshold of its own, each synthesized once (without bundling; test/lib/cdk/bundles.services.test.ts loads
 * the consumer's bundle).
 */
const stacks = defaultAndOverridden({ alarms: '{"streamIteratorAgeSeconds": 120}' });

const consumerStatements = (s: Synthesized) =>
  statementsOfRole(s, logicalId(s.stack, s.stack.changeEvents.consumer.role?.node.defaultChild));

/**
 * Whether a Lambda event filter pattern matches a record, for the forms a pattern may use here: nested
 * objects, and arrays of exact values or `{prefix}` (any one of them matching). Any other operator throws,
 * so that a pattern this matcher cannot judge fails the test instead of passing it.
 */
function matches(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) {
    return pattern.some((rule) => {
      if (rule !== null && typeof rule === 'object') {
        const [operator, ...more] = Object.keys(rule);
        if (operator !== 'prefix' || more.length) throw new Error(`unsupported rule ${stringify(rule)}`);
        return typeof value === 'string' && value.startsWith((rule as { prefix: string }).prefix);
      }
      return rule === value;
    });
  }
  if (pattern === null || typeof pattern !== 'object')
    throw new Error(`unsupported pattern ${stringify(pattern)}`);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(pattern).every(([key, inner]) =>
    matches(inner, (value as Record<string, unknown>)[key]),
  );
}

/** A DynamoDB stream record of the item with these keys, as Lambda filters it (keys and both images). */
function streamRecord(eventName: 'INSERT' | 'MODIFY' | 'REMOVE', key: { pk: string; sk: string }) {
  const image = { pk: { S: key.pk }, sk: { S: key.sk }, name: { S: 'Acme' } };
  return {
    eventName,
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: { pk: { S: key.pk }, sk: { S: key.sk } },
      ...(eventName !== 'INSERT' && { OldImage: image }),
      ...(eventName !== 'REMOVE' && { NewImage: image }),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

/** The event source mapping's filters: Lambda invokes for a record that any of them matches. */
function invokes(s: Synthesized, eventName: 'INSERT' | 'MODIFY' | 'REMOVE', key: { pk: string; sk: string }) {
  const [, mapping] = only(s, 'AWS::Lambda::EventSourceMapping');
  const patterns = mapping.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) =>
    JSON.parse(f.Pattern),
  );
  return patterns.some((pattern: unknown) => matches(pattern, streamRecord(eventName, key)));
}

describe('change events: the table stream', () => {
  it('has the stream on, with both images of each change', () => {
    for (const s of [stacks.synth, stacks.overridden]) {
      const [, table] = only(s, 'AWS::DynamoDB::GlobalTable');
      expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    }
  });

  it('is an in-place update of the released table: the stateful guard passes', () => {
    const { findings, change } = tableOverReleased(stacks.synth);
    expect(findings, guardFailure(findings)).toEqual([]);
    expect(Object.keys(change?.propertyUpdates ?? {})).toContain('StreamSpecification');
    expect(change?.changeImpact).toBe(ResourceImpact.WILL_UPDATE);
  });
});

describe('change events: the event source mapping', () => {
  it('reads the table stream into the consumer from the oldest record, ten batches of a shard at once (in order per team)', () => {
    const [, mapping] = only(stacks.synth, 'AWS::Lambda::EventSourceMapping');
    const [tableId] = only(stacks.synth, 'AWS::DynamoDB::GlobalTable');
    expect(mapping.Properties).toMatchObject({
      EventSourceArn: getAtt(tableId, 'StreamArn'),
      FunctionName: { Ref: idOf(stacks.synth, stacks.synth.stack.changeEvents.consumer) },
      StartingPosition: 'TRIM_HORIZON',
      ParallelizationFactor: 10,
      BatchSize: 100,
    });
    expect(mapping.Properties.MaximumBatchingWindowInSeconds).toBeGreaterThan(0);
    expect(mapping.Properties.MaximumBatchingWindowInSeconds).toBeLessThanOrEqual(5);
  });

  it('never lets one bad record hold up its shard: split, bounded retries and age, per-record failures', () => {
    const [, mapping] = only(stacks.synth, 'AWS::Lambda::EventSourceMapping');
    const p = mapping.Properties;
    expect(p.BisectBatchOnFunctionError).toBe(true);
    expect(p.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    // -1 (the default) would retry until the stream drops the record, 24 hours later.
    expect(p.MaximumRetryAttempts).toBeGreaterThanOrEqual(5);
    expect(p.MaximumRetryAttempts).toBeLessThanOrEqual(10);
    expect(p.MaximumRecordAgeInSeconds).toBeGreaterThanOrEqual(60);
    expect(p.MaximumRecordAgeInSeconds).toBeLessThanOrEqual(24 * 3600);
    const [queueId] = only(stacks.synth, 'AWS::SQS::Queue');
    expect(p.DestinationConfig).toEqual({ OnFailure: { Destination: getAtt(queueId, 'Arn') } });
  });

  it('filters on the sort key: brands, contact fields and webhook endpoints only, as exact patterns', () => {
    const [, mapping] = only(stacks.synth, 'AWS::Lambda::EventSourceMapping');
    expect(mapping.Properties.FilterCriteria.Filters).toEqual([
      {
        Pattern:
          '{"dynamodb":{"Keys":{"sk":{"S":[{"prefix":"BRAND#"},{"prefix":"FIELD#"},{"prefix":"WEBHOOK#"}]}}}}',
      },
    ]);
  });

  it.each(['INSERT', 'MODIFY', 'REMOVE'] as const)(
    'invokes the consumer for a %s of a brand, the default pointer, a field or a webhook endpoint, and of nothing else',
    (eventName) => {
      const changes = {
        brand: brandKey(1, 42),
        defaultPointer: defaultBrandKey(1),
        field: fieldKey(1, 7),
        webhookEndpoint: webhookEndpointKey(1, 3),
      };
      for (const [what, key] of Object.entries(changes))
        expect(invokes(stacks.synth, eventName, key), what).toBe(true);
      const others = {
        // What the consumer writes: an event item must never invoke it again.
        event: { pk: 'TEAM#1', sk: `${EVENT_PREFIX}001767225600#${'42'.padStart(40, '0')}#0` },
        idempotency: idempotencyKey(1, 'POST /api/v1/brands', 'f'.repeat(64)),
        tagClaim: tagKey(1, 'crm_id'),
        team: teamKey(1),
        list: listKey(1, 3),
        legacyPointer: { pk: 'TEAM#1', sk: LEGACY_DEFAULT_BRAND_SK },
        token: tokenKey('a'.repeat(64)),
        sequence: sequenceKey('brand'),
        // What the consumer and the deliverer write for webhooks: never the consumer's business.
        delivery: deliveryKey(1, 3, `001767225600#${'42'.padStart(40, '0')}#0`),
        attempt: attemptKey(1, 3, 1767225600000, `001767225600#${'42'.padStart(40, '0')}#0`),
      };
      for (const [what, key] of Object.entries(others))
        expect(invokes(stacks.synth, eventName, key), what).toBe(false);
    },
  );

  it('the matcher refuses an operator it cannot judge', () => {
    expect(() => matches({ sk: [{ 'anything-but': ['EVENT#'] }] }, { sk: 'BRAND#1' })).toThrow(/unsupported/);
    expect(matches({ a: { b: ['x', { prefix: 'y' }] } }, { a: { b: 'yes' } })).toBe(true);
    expect(matches({ a: { b: ['x'] } }, { a: {} })).toBe(false);
  });
});

describe('change events: the consumer', () => {
  it('is built like the route functions: Node.js 22 arm64, traced, its own log group, the common settings', () => {
    const s = stacks.synth;
    const consumer = all(s)[idOf(s, s.stack.changeEvents.consumer)] as Resource;
    expect(consumer.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      TracingConfig: { Mode: 'Active' },
      MemorySize: 256,
      Timeout: 60,
    });
    // Room for a few SDK calls that exhaust their retries, one after another, in one batch.
    expect(consumer.Properties.Timeout * 1000).toBeGreaterThan(3 * SDK_CALL_BUDGET_MS);
    const logGroup = all(s)[consumer.Properties.LoggingConfig.LogGroup.Ref];
    expect(logGroup?.Properties.RetentionInDays).toBe(30);
    const variables = consumer.Properties.Environment.Variables;
    expect(Object.keys(variables).sort()).toEqual(
      [
        'EVENT_BUS_NAME',
        'LOG_LEVEL',
        'METRICS_NAMESPACE',
        'NODE_OPTIONS',
        'PUBLIC_BASE_URL',
        // It marks brand images no brand names any longer (test/tenant-isolation/images.services.test.ts).
        'PUBLIC_BUCKET',
        'SERVICE_NAME',
        'TABLE_NAME',
        // It starts webhook deliveries (test/lib/cdk/webhook-deliveries.stack.test.ts).
        'WEBHOOK_DELIVERER_FUNCTION',
      ].sort(),
    );
    const [busId] = only(s, 'AWS::Events::EventBus');
    const [tableId] = only(s, 'AWS::DynamoDB::GlobalTable');
    expect(variables).toMatchObject({
      TABLE_NAME: { Ref: tableId },
      EVENT_BUS_NAME: { Ref: busId },
      NODE_OPTIONS: '--enable-source-maps',
      SERVICE_NAME: 'team-messaging-api',
    });
    expect(stringify(variables.PUBLIC_BASE_URL)).toContain('DomainName');
    expect(streamConsumer.handler).toBe('functions/events/stream-consumer.ts');
  });

  it('may read and write the table, read its stream, PutEvents only to the bus, send only to its queue, and invoke only the deliverer', () => {
    const s = stacks.synth;
    const [tableId] = only(s, 'AWS::DynamoDB::GlobalTable');
    const [busId] = only(s, 'AWS::Events::EventBus');
    const [queueId] = only(s, 'AWS::SQS::Queue');
    const publicBucketId = idOf(s, s.stack.publicFiles);
    const byResource = new Map<string, string[]>();
    for (const statement of consumerStatements(s)) {
      expect(statement.Effect).toBe('Allow');
      const key = stringify(statement.Resource);
      byResource.set(key, [...(byResource.get(key) ?? []), ...actions(statement)].sort());
    }
    expect(Object.fromEntries(byResource)).toEqual({
      [stringify(getAtt(tableId, 'Arn'))]: [
        'dynamodb:BatchGetItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ],
      [stringify(getAtt(tableId, 'StreamArn'))]: [
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
      ],
      [stringify(getAtt(busId, 'Arn'))]: ['events:PutEvents'],
      [stringify(getAtt(queueId, 'Arn'))]: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
      [stringify(getAtt(idOf(s, s.stack.webhookDeliveries.deliverer), 'Arn'))]: ['lambda:InvokeFunction'],
      // Its log group, and X-Ray's two write actions (granted on `*`, the only form X-Ray has).
      [stringify(
        getAtt(logicalId(s.stack, s.stack.changeEvents.consumer.logGroup.node.defaultChild), 'Arn'),
      )]: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      '"*"': ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
      // Marking brand images no brand names (test/tenant-isolation/images.services.test.ts).
      [stringify({ 'Fn::Join': ['', [getAtt(publicBucketId, 'Arn'), '/brands/*']] })]: [
        's3:GetObject',
        's3:PutObject',
        's3:PutObjectTagging',
      ],
      [stringify(getAtt(publicBucketId, 'Arn'))]: ['s3:ListBucket'],
    });
    // No other role of the stack may put events on the bus.
    const putters = ofType(s, 'AWS::IAM::Policy').filter(([, policy]) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).some((st) =>
        actions(st).some((a) => a.startsWith('events:')),
      ),
    );
    expect(putters.map(([id]) => id)).toEqual([
      logicalId(
        s.stack,
        s.stack.changeEvents.consumer.role?.node.tryFindChild('DefaultPolicy')?.node.defaultChild,
      ),
    ]);
  });
});

describe('change events: the on-failure queue and the alarms', () => {
  it('keeps the records given up on 14 days, encrypted, over TLS only', () => {
    const [queueId, queue] = only(stacks.synth, 'AWS::SQS::Queue');
    expect(queue.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    const [, policy] = only(stacks.synth, 'AWS::SQS::QueuePolicy');
    expect(policy.Properties.Queues).toEqual([{ Ref: queueId }]);
    expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 'sqs:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  it('alarms on any message in the queue, to the alarm topic', () => {
    const [queueId] = only(stacks.synth, 'AWS::SQS::Queue');
    const [topicId] = only(stacks.synth, 'AWS::SNS::Topic');
    const [alarm, ...others] = alarmsOn(stacks.synth, 'ApproximateNumberOfMessagesVisible', {
      QueueName: getAtt(queueId, 'QueueName'),
    });
    expect(others).toEqual([]);
    expect(alarm).toMatchObject({ namespace: 'AWS/SQS', stat: 'Maximum' });
    expect(alarm?.properties).toMatchObject({
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [{ Ref: topicId }],
      OKActions: [{ Ref: topicId }],
      AlarmName: 'TeamMessagingApi-Monitoring-ChangeEventsFailed-Queue-Message-Count-Max-Critical',
    });
  });

  it("alarms on the consumer's errors, throttles and iterator age (the setting's threshold)", () => {
    for (const [s, ageMs, prefix] of [
      [stacks.synth, 300_000, 'TeamMessagingApi'],
      [stacks.overridden, 120_000, 'TeamMessagingApiDev'],
    ] as const) {
      const on = { FunctionName: { Ref: idOf(s, s.stack.changeEvents.consumer) } };
      expect(alarmsOn(s, 'Errors', on)).toHaveLength(1);
      expect(alarmsOn(s, 'Throttles', on)).toHaveLength(1);
      const [age, ...others] = alarmsOn(s, 'IteratorAge', on);
      expect(others).toEqual([]);
      expect(age).toMatchObject({ namespace: 'AWS/Lambda', stat: 'Maximum' });
      expect(age?.properties).toMatchObject({
        Threshold: ageMs,
        TreatMissingData: 'notBreaching',
        AlarmName: `${prefix}-Monitoring-ChangeEventsFunction-Iterator-Age-Max-Critical`,
      });
    }
  });
});

describe('change events: the bus', () => {
  it('is one bus of the stack, named after it (dev and production apart), without an archive', () => {
    for (const [s, name] of [
      [stacks.synth, 'TeamMessagingApi-change-events'],
      [stacks.overridden, 'TeamMessagingApiDev-change-events'],
    ] as const) {
      const [, bus] = only(s, 'AWS::Events::EventBus');
      expect(bus.Properties.Name).toBe(name);
      expect(ofType(s, 'AWS::Events::Archive')).toEqual([]);
    }
  });

  it('is named by the EventBusName output, which says what to subscribe with', () => {
    const [busId] = only(stacks.synth, 'AWS::Events::EventBus');
    const output = stacks.synth.template.findOutputs('EventBusName').EventBusName;
    expect(output?.Value).toEqual({ Ref: busId });
    expect(output?.Description).toMatch(/subscribe with a rule/);
    expect(output?.Description).toContain('team-messaging-api');
  });
});

describe('change events: checks', () => {
  it('passes the AwsSolutions (cdk-nag) checks, the queue acknowledged as the dead-letter queue it is', () => {
    for (const s of [stacks.synth, stacks.overridden]) expect(reportedViolations(s.assembly)).toEqual([]);
    const queuePath = stacks.synth.stack.changeEvents.failedRecords.node.path;
    const onQueue = acknowledgments(stacks.synth.app).filter((a) => a.path === queuePath);
    expect(onQueue.map((a) => a.id)).toEqual(['AwsSolutions-SQS3']);
    expect(onQueue[0]?.reason).toMatch(/on-failure destination/);
  });

  it('adds one function to the routes, the authorizer and the webhook deliverer and sweeper', () => {
    const functions = ofType(stacks.synth, 'AWS::Lambda::Function').filter(
      ([id]) => !id.startsWith('LogRetention'),
    );
    expect(functions).toHaveLength(routes.length + 4);
    expect(functions.map(([id]) => id)).toContain(
      idOf(stacks.synth, stacks.synth.stack.changeEvents.consumer),
    );
  });
});
