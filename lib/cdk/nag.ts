import { type App, Names, Stack, Validations } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import type { ApiFunction } from './api-function.ts';
import type { ObjectGrant } from './grants.ts';

/** The AwsSolutions checks on the whole app: any finding not acknowledged fails the synth. */
export function addAwsSolutionsChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}

/** Object keys are per team and per file, so object grants end in a prefix wildcard. */
export function acknowledgeObjectWildcards(fn: ApiFunction, objects: ObjectGrant[]): void {
  const wildcards = new Set(
    objects.map(({ bucket, keys }) => `Resource::<${bucketArn(fn, bucket)}>/${keys}`),
  );
  for (const wildcard of wildcards) {
    Validations.of(fn.role ?? fn).acknowledge({
      id: `AwsSolutions-IAM5[${wildcard}]`,
      reason:
        'Object keys are created per team and per file at run time; the grant is limited to one key prefix ' +
        'of one bucket and to the single action the route table row declares.',
    });
  }
}

/**
 * A bucket's ARN as cdk-nag prints it in the function's stack: its attribute in the bucket's own stack, the
 * parameter CDK passes it in (named after the bucket's path) in a nested one.
 */
function bucketArn(fn: ApiFunction, bucket: Bucket): string {
  const cfnBucket = bucket.node.defaultChild as CfnBucket;
  return Stack.of(fn) === Stack.of(bucket)
    ? `${Stack.of(bucket).getLogicalId(cfnBucket)}.Arn`
    : `referenceto${Names.nodeUniqueId(cfnBucket.node)}Arn`;
}

/** The on-failure queue of the change-event consumer (change-events.ts) is itself the end of the line. */
export function acknowledgeFailedRecordsQueue(failedRecords: Queue): void {
  Validations.of(failedRecords).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      "This queue is the on-failure destination of the table stream's event source mapping: a dead-letter " +
      'queue itself (cdk-nag recognizes only SQS redrive policies). It keeps pointers to records given up on, ' +
      'for 14 days; an alarm fires on any message, and a person reads them.',
  });
}

/** The singleton function behind CDK's LogRetention resources (service-logs.ts), as CDK names it. */
const LOG_RETENTION_PROVIDER = 'LogRetentionaae0aa3c5b4d4f87b02d85b201efdd8a';

/** CDK's LogRetention function: its role is CDK's own, made for exactly this job. */
export function acknowledgeLogRetentionProvider(stack: Stack): void {
  const provider = stack.node.tryFindChild(LOG_RETENTION_PROVIDER);
  if (!provider) return;
  Validations.of(provider).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason:
      "CDK's LogRetention function writes its own logs with the managed policy made for that; it is not " +
      'reachable from the API and runs only when the stack is deployed.',
  });
  Validations.of(provider).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'CDK grants its LogRetention function logs:PutRetentionPolicy/DeleteRetentionPolicy on `*`: it sets the ' +
      'retention of log groups AWS creates outside the template (API Gateway execution logs), by name.',
  });
}

/** A method of a `public` route (the API's description) has no authorizer, by design. */
export function acknowledgePublicMethod(
  scope: Construct,
  reason = 'The API describes itself to anyone (OpenAPI document, docs page): it holds no team data.',
): void {
  for (const id of ['AwsSolutions-APIG4', 'AwsSolutions-COG4'])
    Validations.of(scope).acknowledge({ id, reason });
}

/** Every finding AwsSolutions reports on the stack's resources that is a deliberate choice, with the reason. */
export function acknowledgeNagFindings(resources: {
  api: RestApi;
  privateFiles: Bucket;
  publicFiles: Bucket;
  cdn: Distribution;
}): void {
  const { api, privateFiles, publicFiles, cdn } = resources;
  const acknowledge = (scope: Construct, id: string, reason: string) =>
    Validations.of(scope).acknowledge({ id, reason });

  acknowledge(
    api,
    'AwsSolutions-APIG2',
    'Each handler validates its input (zod) and answers Laravel-style 422 bodies the clients rely on; a ' +
      'gateway request validator would answer 400 with a different body.',
  );
  acknowledge(
    api,
    'AwsSolutions-COG4',
    'Clients authenticate with team API tokens (bearer), verified by the Lambda TOKEN authorizer on every ' +
      'method; there are no Cognito users.',
  );
  acknowledge(
    api,
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    "The account-wide API Gateway logging role uses AWS's managed policy made for exactly that purpose.",
  );
  for (const bucket of [privateFiles, publicFiles]) {
    acknowledge(
      bucket,
      'AwsSolutions-S1',
      'All access goes through the API (access logs, one log group per function) or CloudFront; S3 server ' +
        'access logs would need another bucket. Enable CloudTrail data events where an audit needs them.',
    );
  }
  acknowledge(
    cdn,
    'AwsSolutions-CFR1',
    'Brand images are shown to recipients anywhere in the world; no geo restriction.',
  );
  acknowledge(
    cdn,
    'AwsSolutions-CFR2',
    'Read-only public images behind CloudFront caching; no WAF by default.',
  );
  acknowledge(
    cdn,
    'AwsSolutions-CFR3',
    'Public, cacheable brand images only; CloudFront access logs would need a log bucket with ACLs.',
  );
  acknowledge(
    cdn,
    'AwsSolutions-CFR4',
    'The default *.cloudfront.net certificate does not let the minimum TLS version be chosen; set a custom ' +
      'domain and certificate (TLSv1.2_2021) to change it.',
  );
}
