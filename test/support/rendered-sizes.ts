import type { Template } from 'aws-cdk-lib/assertions';
import { environmentBytes } from '../../lib/cdk/settings.ts';

/**
 * Sizes AWS measures on what a template renders to once deployed (test/lib/cdk/deploy-limits.stack.test.ts,
 * test/lib/cdk/room-to-grow.stack.test.ts): every intrinsic function replaced by a string of its longest rendered length.
 */

/** IAM: a role's inline policies together, white space not counted (IAM and AWS STS quotas). */
export const IAM_ROLE_POLICY_CHARACTERS = 10_240;

// biome-ignore lint/suspicious/noExplicitAny: tests read synthesized CloudFormation loosely and assert on it.
export type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

/**
 * What an intrinsic function renders to once deployed, at its longest: a table name is at most 255
 * characters, a bucket name 63, a log group name 512, an event bus name 256; an ARN adds `arn:aws-us-gov:<service>:ap-southeast-5:
 * <12-digit account>:` (~55) and the resource type; a CloudFront domain is 29 characters. An intrinsic not
 * listed fails the test, to be estimated when the stack first uses it.
 */
const ARN = 'arn:aws-us-gov:dynamodb:ap-southeast-5:123456789012:'.length;
const RENDERED_LENGTH: Record<string, number> = {
  'Ref AWS::DynamoDB::GlobalTable': 255,
  'Ref AWS::S3::Bucket': 63,
  'Fn::GetAtt AWS::DynamoDB::GlobalTable.Arn': ARN + 'table/'.length + 255,
  'Fn::GetAtt AWS::S3::Bucket.Arn': 'arn:aws-us-gov:s3:::'.length + 63,
  'Fn::GetAtt AWS::Logs::LogGroup.Arn': ARN + 'log-group:'.length + 512 + ':*'.length,
  'Fn::GetAtt AWS::CloudFront::Distribution.DomainName': 'd111111abcdef8.cloudfront.net'.length,
  // The change events: a bus name is at most 256 characters, a queue name 80, a stream label a timestamp.
  'Ref AWS::Events::EventBus': 256,
  'Fn::GetAtt AWS::Events::EventBus.Arn': ARN + 'event-bus/'.length + 256,
  'Fn::GetAtt AWS::SQS::Queue.Arn': ARN + 80,
  'Fn::GetAtt AWS::DynamoDB::GlobalTable.StreamArn':
    ARN + 'table/'.length + 255 + '/stream/2026-01-01T00:00:00.000'.length,
  // The webhook deliverer, which its invokers name: a function name is at most 64 characters.
  'Ref AWS::Lambda::Function': 64,
  'Fn::GetAtt AWS::Lambda::Function.Arn': ARN + 'function:'.length + 64,
  // The webhook signing secrets' key: its id is a UUID.
  'Ref AWS::KMS::Key': 36,
  'Fn::GetAtt AWS::KMS::Key.Arn': ARN + 'key/'.length + 36,
  // The dashboard's: pseudo parameters (the longest Region name, 14), the REST API's id (10 characters).
  'Ref AWS::Region': 'ap-southeast-5'.length,
  'Ref AWS::Partition': 'aws-us-gov'.length,
  'Ref AWS::AccountId': 12,
  'Ref AWS::URLSuffix': 'amazonaws.com.cn'.length,
  'Ref AWS::ApiGateway::RestApi': 10,
  // A queue's Ref is its URL; its name at most 80 characters. An alarm's name at most 255, a topic's 256.
  'Ref AWS::SQS::Queue': 'https://sqs.ap-southeast-5.amazonaws.com.cn/123456789012/'.length + 80,
  'Fn::GetAtt AWS::SQS::Queue.QueueName': 80,
  'Ref AWS::SNS::Topic': ARN + 256,
  'Ref AWS::CloudWatch::Alarm': 255,
  'Fn::GetAtt AWS::CloudWatch::Alarm.Arn': ARN + 'alarm:'.length + 255,
};

/** The value with every intrinsic function replaced by a string of its rendered length. */
export function rendered(value: unknown, resources: Resources): unknown {
  if (Array.isArray(value)) return value.map((item) => rendered(item, resources));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  const [key, args] = entries.length === 1 ? (entries[0] as [string, unknown]) : [];
  if (key === 'Fn::Join') {
    const [separator, parts] = args as [string, unknown[]];
    return parts.map((part) => rendered(part, resources)).join(separator);
  }
  if (key === 'Ref' || key === 'Fn::GetAtt') {
    const [id, attribute] = key === 'Ref' ? [args as string] : (args as [string, string]);
    const reference = `${key} ${resources[id]?.Type ?? id}${attribute ? `.${attribute}` : ''}`;
    const length = RENDERED_LENGTH[reference];
    if (length === undefined) throw new Error(`no rendered length for ${reference}`);
    return 'x'.repeat(length);
  }
  if (key?.startsWith('Fn::')) throw new Error(`no rendered length for ${key}`);
  return Object.fromEntries(entries.map(([name, item]) => [name, rendered(item, resources)]));
}

/** Each function's environment in bytes, as Lambda measures it (lib/cdk/settings.ts), by logical id. */
export function environmentSizes(template: Template): Record<string, number> {
  const resources = template.toJSON().Resources as Resources;
  const functions = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
  return Object.fromEntries(
    functions.map(([id, fn]) => [
      id,
      environmentBytes(
        rendered(fn.Properties.Environment?.Variables ?? {}, resources) as Record<string, unknown>,
      ),
    ]),
  );
}

/**
 * Each role's inline policies together (AWS::IAM::Policy resources and the role's own `Policies`), in
 * characters of their JSON without white space (IAM does not count it), by the role's logical id.
 */
export function rolePolicySizes(template: Template): Record<string, number> {
  const resources = template.toJSON().Resources as Resources;
  const sizes: Record<string, number> = {};
  const add = (role: string, document: unknown) => {
    sizes[role] = (sizes[role] ?? 0) + JSON.stringify(rendered(document, resources)).length;
  };
  for (const [id, resource] of Object.entries(resources)) {
    if (resource.Type === 'AWS::IAM::Role')
      for (const policy of resource.Properties.Policies ?? []) add(id, policy.PolicyDocument);
    if (resource.Type === 'AWS::IAM::Policy')
      for (const role of resource.Properties.Roles ?? [])
        add(role.Ref ?? role, resource.Properties.PolicyDocument);
  }
  return sizes;
}
