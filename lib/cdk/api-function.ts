import { resolve } from 'node:path';
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type ILogGroup, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

const ROOT = resolve(import.meta.dirname, '..', '..');

export interface ApiFunctionProps {
  /** Handler module relative to the repository root (a route table row's `handler`). */
  entry: string;
  environment: Record<string, string>;
  /** @default 10 seconds: a request does a few DynamoDB/S3 round trips. */
  timeout?: Duration;
  /** @default 512 */
  memorySize?: number;
  /**
   * Its class's share of the account's concurrency (lib/cdk/concurrency.ts): at most this many at once, and
   * no other function can take them. @default none: the account's unreserved pool
   */
  reservedConcurrentExecutions?: number;
  /**
   * Active tracing (a request is sampled by the stage's rule; an asynchronous invocation by Lambda's own
   * 5%), or, false (cdk.json `xraySampleRate` 0), only a trace a caller already started. @default true
   */
  traced?: boolean;
  /** Its log group when one exists already (a route's older one, in the main stack). @default its own */
  logGroup?: ILogGroup;
  /** What happens to its own log group when the stack is deleted. */
  logRemovalPolicy: RemovalPolicy;
}

/**
 * Every Lambda of the API (the routes, the authorizer, the change-event consumer): Node.js 22 on arm64, a
 * minified ESM bundle with source maps and the AWS SDK bundled (tree-shaken, not the runtime's copy), X-Ray
 * active tracing, its own log group with a retention, and its own role that starts with nothing but writing
 * to that log group and its traces (no managed policy): the stack adds exactly the grants the route table
 * row declares (the consumer's: change-events.ts).
 */
export class ApiFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    const logGroup =
      props.logGroup ??
      new LogGroup(scope, `${id}Logs`, {
        retention: RetentionDays.ONE_MONTH,
        removalPolicy: props.logRemovalPolicy,
      });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.entry}`,
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      entry: resolve(ROOT, props.entry),
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      // Every request is traced through API Gateway and its function (the stage traces too).
      tracing: props.traced === false ? Tracing.PASS_THROUGH : Tracing.ACTIVE,
      role,
      logGroup,
      projectRoot: ROOT,
      depsLockFilePath: resolve(ROOT, 'package-lock.json'),
      bundling: {
        format: OutputFormat.ESM,
        minify: true,
        sourceMap: true,
        target: 'node22',
        bundleAwsSDK: true,
        mainFields: ['module', 'main'],
        logLevel: LogLevel.WARNING,
        // ESM bundles of CommonJS dependencies need a real `require`.
        banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
      },
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is pinned on purpose: the bundles are built for it (esbuild target node22) and the ' +
        'pinned dependencies support it; moving to a newer runtime is a deliberate upgrade, not a side ' +
        'effect of a CDK release.',
    });
    // Active tracing adds `xray:PutTraceSegments` and `xray:PutTelemetryRecords` on `*` to the role.
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray has no resource-level permissions: the two write-only actions CDK adds for active tracing ' +
        '(PutTraceSegments, PutTelemetryRecords) can only be granted on `*`; they read nothing.',
    });
  }
}
