import { rmSync } from 'node:fs';
import { type App, NestedStack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiFunction } from '../../../lib/cdk/api-function.ts';
import { ID_INDEX } from '../../../shared/data/dynamo.ts';
import { BEARER_CHALLENGE, MESSAGES } from '../../../shared/http/messages.ts';
import { SDK_CALL_BUDGET_MS, TIMEOUTS } from '../../../shared/limits.ts';
import { functionTimeoutSeconds, type Route, routes } from '../../../shared/routes.ts';
import {
  acknowledgments,
  functionOfRoute,
  logicalId,
  reportedViolations,
  type Synthesized,
  synthesize,
} from '../../support/synth.ts';

/** The production stack (`npx cdk synth`), synthesized once; bundling is covered by test/lib/cdk/bundles.services.test.ts. */
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ full: false });
});
afterAll(() => {
  if (synth) rmSync(synth.outdir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: tests read synthesized CloudFormation loosely and assert on it.
type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Principal?: unknown };

const resources = (type: string) => synth.template.findResources(type) as Record<string, Resource>;
const routeFunction = (route: Route) => functionOfRoute(synth.stack, route) as ApiFunction;
const authorizerFunction = () => synth.stack.node.findChild('Authorizer') as ApiFunction;
const functionResource = (fn: ApiFunction) =>
  resources('AWS::Lambda::Function')[logicalId(synth.stack, fn.node.defaultChild)] as Resource;

/** Every statement of every policy attached to the function's role. */
function statementsOf(fn: ApiFunction): Statement[] {
  const role = logicalId(synth.stack, fn.role?.node.defaultChild);
  return Object.values(resources('AWS::IAM::Policy'))
    .filter((policy) => policy.Properties.Roles.some((ref: { Ref: string }) => ref.Ref === role))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}
const actionsOf = (fn: ApiFunction) => new Set(statementsOf(fn).flatMap((s) => [s.Action].flat()));
const stringify = (value: unknown) => JSON.stringify(value);

const LOGS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
/** What active tracing adds to every function's role; X-Ray grants them only on `*`. */
const TRACES = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];
const READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
const WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

/** The grants a route table row promises, written out independently of the stack's own constants. */
function expectedActions(route: Route): Set<string> {
  const files = route.files ?? [];
  return new Set([
    ...LOGS,
    ...TRACES,
    ...(route.table?.reads ? READ : []),
    ...(route.table?.indexes ? ['dynamodb:Query'] : []),
    ...(route.table?.writes ? WRITE : []),
    ...(files.includes('private:read') ? ['s3:GetObject', 's3:ListBucket'] : []),
    ...(files.includes('private:write') || files.includes('public:write') ? ['s3:PutObject'] : []),
    ...(route.deliversWebhooks ? ['lambda:InvokeFunction'] : []),
    ...(route.signingSecrets === 'seal' || route.signingSecrets === 'both' ? ['kms:GenerateDataKey'] : []),
    ...(route.signingSecrets === 'open' || route.signingSecrets === 'both' ? ['kms:Decrypt'] : []),
  ]);
}

/** `/api/v1/brands/{id}` for an `AWS::ApiGateway::Resource` logical id, by walking its parents. */
function resourcePath(id: string): string {
  const resource = resources('AWS::ApiGateway::Resource')[id];
  if (!resource) return '';
  return `${resourcePath(resource.Properties.ParentId.Ref ?? '')}/${resource.Properties.PathPart}`;
}

describe('CDK stack: functions', () => {
  it("has one Node.js 22 arm64 function per route table row plus the authorizer, the change-event consumer and the webhook deliverer and sweeper, besides CDK's own", () => {
    // CDK's LogRetention function (lib/cdk/service-logs.ts) runs only at deploy time.
    const all = Object.entries(resources('AWS::Lambda::Function'))
      .filter(([id]) => !id.startsWith('LogRetention'))
      .map(([, fn]) => fn);
    expect(all).toHaveLength(routes.length + 4);
    for (const fn of all) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
    }
  });

  it('gives each function its own log group with a retention, and a timeout fitting its route', () => {
    const logGroups = resources('AWS::Logs::LogGroup');
    const seen = new Set<string>();
    for (const [route, fn] of [
      ...routes.map((r) => [r, routeFunction(r)] as const),
      [undefined, authorizerFunction()] as const,
    ]) {
      const properties = functionResource(fn).Properties;
      const logGroup = properties.LoggingConfig.LogGroup.Ref as string;
      expect(logGroups[logGroup]?.Properties.RetentionInDays, fn.node.path).toBeGreaterThan(0);
      expect(seen.has(logGroup), `${fn.node.path} shares a log group`).toBe(false);
      seen.add(logGroup);
      const timeout = route === undefined ? TIMEOUTS.authorizerSeconds : functionTimeoutSeconds(route);
      expect(properties.Timeout, fn.node.path).toBe(timeout);
      // Room for one SDK call that exhausts its retries, and an answer before API Gateway's 29 s.
      expect(properties.Timeout * 1000, fn.node.path).toBeGreaterThan(SDK_CALL_BUDGET_MS);
      expect(properties.Timeout * 1000, fn.node.path).toBeLessThan(TIMEOUTS.gatewayMs);
    }
  });

  it('wires every route to its own function, through the TOKEN authorizer (results cached 5 minutes) unless public', () => {
    const [authorizerId, authorizer] = Object.entries(resources('AWS::ApiGateway::Authorizer'))[0] ?? [];
    expect(Object.keys(resources('AWS::ApiGateway::Authorizer'))).toHaveLength(1);
    expect(authorizer?.Properties).toMatchObject({
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 300,
    });
    expect(stringify(authorizer?.Properties.AuthorizerUri)).toContain(
      logicalId(synth.stack, authorizerFunction().node.defaultChild),
    );

    // Besides the routes' methods, each resource's ANY answers the others 405 (test/lib/cdk/method-not-allowed.stack.test.ts).
    const methods = Object.values(resources('AWS::ApiGateway::Method')).filter(
      (m) => m.Properties.HttpMethod !== 'ANY',
    );
    expect(methods).toHaveLength(routes.length);
    for (const route of routes) {
      const wired = methods.filter(
        (m) =>
          m.Properties.HttpMethod === route.method &&
          resourcePath(m.Properties.ResourceId.Ref) === route.path,
      );
      expect(wired, `${route.method} ${route.path}`).toHaveLength(1);
      expect(wired[0]?.Properties).toMatchObject(
        route.public
          ? { AuthorizationType: 'NONE', Integration: { Type: 'AWS_PROXY' } }
          : {
              AuthorizationType: 'CUSTOM',
              AuthorizerId: { Ref: authorizerId },
              Integration: { Type: 'AWS_PROXY' },
            },
      );
      if (route.public) expect(wired[0]?.Properties.AuthorizerId).toBeUndefined();
      expect(stringify(wired[0]?.Properties.Integration.Uri)).toContain(
        `"${logicalId(synth.stack, routeFunction(route).node.defaultChild)}"`,
      );
    }
  });

  it('grants each function exactly the IAM actions its route table row declares', () => {
    for (const route of routes) {
      const fn = routeFunction(route);
      expect([...actionsOf(fn)].sort(), `${route.method} ${route.path}`).toEqual(
        [...expectedActions(route)].sort(),
      );
    }
  });

  it('keeps read-only routes from writing, and routes without table access away from the table', () => {
    const readRoutes = routes.filter((route) => route.table && !route.table.writes);
    const noTableRoutes = routes.filter((route) => !route.table);
    expect(readRoutes.length).toBeGreaterThan(0);
    expect(noTableRoutes.length).toBeGreaterThan(0);
    for (const route of readRoutes) {
      const writes = [...actionsOf(routeFunction(route))].filter((a) =>
        /^dynamodb:.*(Put|Update|Delete|Write)/.test(a),
      );
      expect(writes, `${route.method} ${route.path}`).toEqual([]);
    }
    for (const route of noTableRoutes) {
      const tableActions = [...actionsOf(routeFunction(route))].filter((a) => a.startsWith('dynamodb:'));
      expect(tableActions, `${route.method} ${route.path}`).toEqual([]);
    }
  });

  it('has no wildcard actions, no `*` resources but X-Ray writes, and no managed policies on function roles', () => {
    for (const fn of [...routes.map(routeFunction), authorizerFunction()]) {
      for (const statement of statementsOf(fn)) {
        const actions = [statement.Action].flat();
        expect(
          actions.filter((a) => a.includes('*')),
          fn.node.path,
        ).toEqual([]);
        if ([statement.Resource].flat().includes('*'))
          expect(actions.sort(), fn.node.path).toEqual(TRACES.sort());
      }
      const role = resources('AWS::IAM::Role')[logicalId(synth.stack, fn.role?.node.defaultChild)];
      expect(role?.Properties.ManagedPolicyArns, fn.node.path).toBeUndefined();
    }
  });

  it('scopes grants to the table and its byId index, the private library and public brand images', () => {
    const table = logicalId(synth.stack, synth.stack.table.node.defaultChild);
    const privateBucket = logicalId(synth.stack, synth.stack.privateFiles.node.defaultChild);
    const publicBucket = logicalId(synth.stack, synth.stack.publicFiles.node.defaultChild);
    for (const route of routes) {
      for (const statement of statementsOf(routeFunction(route))) {
        const actions = [statement.Action].flat();
        const resource = stringify(statement.Resource);
        if (actions.some((a) => a.startsWith('dynamodb:'))) {
          expect(resource).toContain(`"${table}"`);
          if (resource.includes('/index/')) {
            expect(actions).toEqual(['dynamodb:Query']);
            expect(resource).toContain(`/index/${ID_INDEX}"`);
          }
        }
        if (actions.includes('s3:PutObject') && resource.includes(publicBucket)) {
          expect(resource).toContain('/brands/*"');
          expect(route.files).toContain('public:write');
        }
        if (actions.includes('s3:PutObject') && resource.includes(privateBucket)) {
          expect(resource).toContain('/teams/*"');
          expect(route.files).toContain('private:write');
        }
      }
    }
    const authorizer = [...actionsOf(authorizerFunction())].sort();
    // Tokens only (test/lib/cdk/least-privilege.stack.test.ts has its conditions): GetItem, and UpdateItem of last use.
    expect(authorizer).toEqual([...LOGS, ...TRACES, 'dynamodb:GetItem', 'dynamodb:UpdateItem'].sort());
    expect(
      Object.keys(functionResource(authorizerFunction()).Properties.Environment.Variables).sort(),
    ).toEqual(['LOG_LEVEL', 'METRICS_NAMESPACE', 'NODE_OPTIONS', 'SERVICE_NAME', 'TABLE_NAME']);
  });
});

describe('CDK stack: data', () => {
  it('keeps one on-demand table with PITR, the expires_at TTL, the KEYS_ONLY byId and byDueTime indexes and deletion protection', () => {
    synth.template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
        GlobalSecondaryIndexes: [
          {
            IndexName: ID_INDEX,
            KeySchema: [
              { AttributeName: 'gsi1pk', KeyType: 'HASH' },
              { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
          // Webhook deliveries that are due (test/lib/cdk/webhook-deliveries.stack.test.ts).
          {
            IndexName: 'byDueTime',
            KeySchema: [
              { AttributeName: 'gsi2pk', KeyType: 'HASH' },
              { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ],
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      }),
    });
    synth.template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
  });

  it('keeps both buckets private, encrypted, SSL-only and retained; the private one takes browser PUTs', () => {
    const buckets = resources('AWS::S3::Bucket');
    expect(Object.keys(buckets)).toHaveLength(2);
    for (const [id, bucket] of Object.entries(buckets)) {
      expect(bucket.DeletionPolicy, id).toBe('Retain');
      expect(bucket.Properties.PublicAccessBlockConfiguration, id).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(stringify(bucket.Properties.BucketEncryption), id).toContain('AES256');
      const policy = Object.values(resources('AWS::S3::BucketPolicy')).find(
        (p) => p.Properties.Bucket.Ref === id,
      );
      expect(policy?.Properties.PolicyDocument.Statement, id).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    }
    const privateBucket = buckets[logicalId(synth.stack, synth.stack.privateFiles.node.defaultChild)];
    expect(privateBucket?.Properties.CorsConfiguration.CorsRules).toEqual([
      expect.objectContaining({ AllowedMethods: ['PUT'], AllowedOrigins: ['*'], ExposedHeaders: ['ETag'] }),
    ]);
  });

  it('serves the public library only through CloudFront with origin access control, over HTTPS', () => {
    const publicBucket = logicalId(synth.stack, synth.stack.publicFiles.node.defaultChild);
    const [oacId] = Object.keys(resources('AWS::CloudFront::OriginAccessControl'));
    synth.template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: { OriginAccessControlOriginType: 's3', SigningBehavior: 'always' },
    });
    const [distributionId, distribution] =
      Object.entries(resources('AWS::CloudFront::Distribution'))[0] ?? [];
    const config = distribution?.Properties.DistributionConfig;
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(config.Origins).toEqual([
      expect.objectContaining({
        DomainName: { 'Fn::GetAtt': [publicBucket, 'RegionalDomainName'] },
        OriginAccessControlId: { 'Fn::GetAtt': [oacId, 'Id'] },
      }),
    ]);
    const policy = Object.values(resources('AWS::S3::BucketPolicy')).find(
      (p) => p.Properties.Bucket.Ref === publicBucket,
    );
    const allows = ((policy?.Properties.PolicyDocument.Statement ?? []) as Statement[]).filter(
      (s) => s.Effect === 'Allow',
    );
    expect(allows).toEqual([
      expect.objectContaining({ Action: 's3:GetObject', Principal: { Service: 'cloudfront.amazonaws.com' } }),
    ]);
    expect(stringify(allows[0])).toContain(`":distribution/",{"Ref":"${distributionId}"}`);

    const brandRoutes = routes.filter((route) => route.files?.includes('public:write'));
    expect(brandRoutes.length).toBeGreaterThan(0);
    for (const route of brandRoutes) {
      const url = functionResource(routeFunction(route)).Properties.Environment.Variables.PUBLIC_BASE_URL;
      expect(url).toEqual({
        'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]],
      });
    }
  });
});

describe('CDK stack: gateway', () => {
  it('answers gateway-made errors with the JSON {message} bodies of the local gateway and the request id', () => {
    const responses = Object.values(resources('AWS::ApiGateway::GatewayResponse'));
    const byType = (type: string) => responses.find((r) => r.Properties.ResponseType === type)?.Properties;
    const expected: Array<[string, string | undefined, string]> = [
      ['UNAUTHORIZED', '401', MESSAGES.unauthenticated],
      ['ACCESS_DENIED', '403', 'This action is unauthorized.'],
      ['MISSING_AUTHENTICATION_TOKEN', '404', MESSAGES.noSuchPath],
      ['RESOURCE_NOT_FOUND', '404', MESSAGES.noSuchPath],
      ['REQUEST_TOO_LARGE', '413', MESSAGES.tooLarge],
      ['THROTTLED', '429', 'Too Many Attempts.'],
      // A team over its rate limit plan (test/lib/cdk/rate-limits.stack.test.ts checks its Retry-After).
      ['WAF_FILTERED', '429', 'Too Many Attempts.'],
      ['AUTHORIZER_FAILURE', '503', MESSAGES.unavailable],
      ['AUTHORIZER_CONFIGURATION_ERROR', '503', MESSAGES.unavailable],
      ['INTEGRATION_TIMEOUT', '504', 'Endpoint request timed out'],
      // Lambda refused the invocation: the route's share of concurrency is full (tenant-isolation/concurrency).
      ['INTEGRATION_FAILURE', '503', MESSAGES.unavailable],
      ['DEFAULT_5XX', undefined, 'Server Error'],
    ];
    const retryAfter = [
      'THROTTLED',
      'AUTHORIZER_FAILURE',
      'AUTHORIZER_CONFIGURATION_ERROR',
      'INTEGRATION_FAILURE',
    ];
    for (const [type, status, message] of expected) {
      const response = byType(type);
      expect(response?.StatusCode, type).toBe(status);
      expect(JSON.parse(response?.ResponseTemplates['application/json']), type).toEqual({ message });
    }
    expect(byType('DEFAULT_4XX')?.ResponseTemplates['application/json']).toBe(
      '{"message":$context.error.messageString}',
    );
    expect(responses).toHaveLength(expected.length + 1);
    for (const response of responses.filter((r) => r.Properties.ResponseType !== 'WAF_FILTERED')) {
      expect(response.Properties.ResponseParameters).toEqual({
        'gatewayresponse.header.X-Request-Id': 'context.requestId',
        ...(retryAfter.includes(response.Properties.ResponseType) && {
          'gatewayresponse.header.Retry-After': `'${TIMEOUTS.retryAfterSeconds}'`,
        }),
        ...(response.Properties.ResponseType === 'UNAUTHORIZED' && {
          'gatewayresponse.header.WWW-Authenticate': `'${BEARER_CHALLENGE}'`,
        }),
      });
    }
  });

  it('throttles the stage, logs errors without bodies and writes JSON access logs to a log group', () => {
    const [stage] = Object.values(resources('AWS::ApiGateway::Stage'));
    expect(stage?.Properties.MethodSettings).toEqual([
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        ThrottlingRateLimit: 10000,
        ThrottlingBurstLimit: 5000,
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
      }),
    ]);
    const accessLogs = stage?.Properties.AccessLogSetting;
    // The log group's ARN without the `:*` of its Arn attribute (@aws-cdk/aws-apigateway:logGroupDestinationArnWithoutWildcard).
    const [, parts] = accessLogs.DestinationArn['Fn::Join'];
    expect(parts.slice(-2, -1)).toEqual([':log-group:']);
    expect(resources('AWS::Logs::LogGroup')[parts.at(-1).Ref]).toBeDefined();
    expect(JSON.parse(accessLogs.Format)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      teamId: '$context.authorizer.teamId',
    });
  });
});

describe('CDK stack: outputs and checks', () => {
  it('outputs the API URL, the CDN URL, the names the admin CLI targets, the access log, alarm topic, web ACL and event bus', () => {
    const outputs = synth.template.findOutputs('*');
    expect(Object.keys(outputs).sort()).toEqual(
      [
        'AccessLogGroupName',
        'AdminTarget',
        'AlarmTopicArn',
        'ApiUrl',
        'EventBusName',
        'PrivateBucketName',
        'PublicBaseUrl',
        'PublicBucketName',
        'SigningSecretsKeyArn',
        'TableName',
        'WebAclArn',
      ].sort(),
    );
    const ref = (construct: { node: { defaultChild?: unknown } }) => ({
      Ref: logicalId(synth.stack, construct.node.defaultChild),
    });
    expect(outputs.TableName?.Value).toEqual(ref(synth.stack.table));
    expect(outputs.PrivateBucketName?.Value).toEqual(ref(synth.stack.privateFiles));
    expect(outputs.PublicBucketName?.Value).toEqual(ref(synth.stack.publicFiles));
    expect(outputs.AccessLogGroupName?.Value).toEqual(ref(synth.stack.accessLogs));
    expect(outputs.AlarmTopicArn?.Value).toEqual({
      Ref: Object.keys(synth.template.findResources('AWS::SNS::Topic'))[0],
    });
    expect(stringify(outputs.AdminTarget?.Value)).toMatch(
      /--table.*--private-bucket.*--public-bucket.*--rest-api.*--default-plan [a-z].* --plans [a-z]/,
    );
  });

  it('passes the AwsSolutions (cdk-nag) checks, every acknowledged finding with its reason', () => {
    // synthesize() would have thrown on an unacknowledged error; the report must not list warnings either.
    expect(reportedViolations(synth.assembly)).toEqual([]);
    const acknowledged = acknowledgments(synth.app);
    expect(acknowledged.map((a) => a.id)).toEqual(
      expect.arrayContaining(['AwsSolutions-L1', 'AwsSolutions-APIG2', 'AwsSolutions-S1']),
    );
    for (const { path, id, reason } of acknowledged)
      expect(reason.length, `${path} ${id}`).toBeGreaterThan(40);
  });

  it.each([
    ['the monitoring', 'Monitoring/Stack'],
    ['a route area', 'BrandsRoutes'],
  ])("runs the AwsSolutions checks over %s's nested stack too", (_, path) => {
    // A topic that does not require TLS, as the stack's own alarm topic does (AwsSolutions-SNS3).
    const plainTopicInNested = (app: App) => {
      const nested = app.node
        .findAll()
        .find(
          (construct) =>
            NestedStack.isNestedStack(construct) && construct.node.path === `TeamMessagingApi/${path}`,
        );
      if (!nested) throw new Error(`no nested stack ${path}`);
      new Topic(nested, 'PlainTopic');
    };
    expect(() => synthesize({ alter: plainTopicInNested })).toThrow(
      new RegExp(`TeamMessagingApi/${path}/PlainTopic/Resource[\\s\\S]*AwsSolutions-SNS3`),
    );
  });
});
