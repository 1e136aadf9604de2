import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { partitionPattern } from '../../shared/data/keys.ts';
import { SIGNING_SECRET_PURPOSE } from '../../shared/data/secret-envelope.ts';
import { authorizer, type FileAccess, type Route, type TableAccess } from '../../shared/routes.ts';
import type { ApiFunction } from './api-function.ts';
import { objectStatements } from './object-grants.ts';
import {
  AUTHORIZER_UPDATABLE_ATTRIBUTES,
  BOUNDED_RETURN_VALUES,
  tableStatements,
  updatableWith,
} from './partition-boundaries.ts';

/** What the route table's access levels refer to. */
export interface RouteResources {
  table: TableV2;
  privateFiles: Bucket;
  publicFiles: Bucket;
  /** `deliversWebhooks`: the routes that start deliveries may invoke its deliverer. */
  webhookDeliveries: { allowStart(fn: ApiFunction): void };
  /** `signingSecrets`: the key webhook signing secrets are sealed under. */
  signingSecrets: IKey;
}

/** Objects a grant covers: one key prefix (ending in `*`) of one bucket. */
export interface ObjectGrant {
  bucket: Bucket;
  keys: string;
}

/**
 * Exactly what the route table row declares, as explicit actions on explicit resources. Returns the object
 * prefixes granted (the wildcards cdk-nag asks about), in grant order.
 */
export function grantRouteAccess(fn: ApiFunction, route: Route, resources: RouteResources): ObjectGrant[] {
  grantTableAccess(fn, resources.table, route.table);
  if (route.deliversWebhooks) resources.webhookDeliveries.allowStart(fn);
  if (route.signingSecrets) grantSigningSecrets(fn, resources.signingSecrets, route.signingSecrets);
  return grantObjectAccess(fn, route.files, resources);
}

/**
 * Exactly the function's file access (object-grants.ts): each statement's actions on one key prefix of one
 * bucket, or on the bucket. Returns the object prefixes granted.
 */
export function grantObjectAccess(
  fn: ApiFunction,
  files: readonly FileAccess[] | undefined,
  buckets: Partial<Pick<RouteResources, 'privateFiles' | 'publicFiles'>>,
): ObjectGrant[] {
  const objects: ObjectGrant[] = [];
  for (const statement of objectStatements(files)) {
    const bucket = statement.bucket === 'private' ? buckets.privateFiles : buckets.publicFiles;
    if (!bucket)
      throw new Error(`${fn.node.path} is granted the ${statement.bucket} bucket, which it is not given`);
    const resource = statement.keys ? bucket.arnForObjects(statement.keys) : bucket.bucketArn;
    fn.addToRolePolicy(new PolicyStatement({ actions: [...statement.actions], resources: [resource] }));
    if (statement.keys) objects.push({ bucket, keys: statement.keys });
  }
  return objects;
}

/**
 * Exactly the function's table access (partition-boundaries.ts): each statement's actions on the table,
 * bounded to its kinds of partition, or Query on one index (IAM names each index apart from its table).
 * ForAllValues: every key a request names (a batch's, a transaction's) must match; the actions bounded so
 * name their keys (no Scan is granted, which names none and would pass).
 */
export function grantTableAccess(fn: ApiFunction, table: TableV2, access: TableAccess | undefined): void {
  for (const statement of tableStatements(access)) {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: [...statement.actions],
        resources: [statement.index ? `${table.tableArn}/index/${statement.index}` : table.tableArn],
        conditions: statement.partitions && leadingKeys(statement.partitions),
      }),
    );
  }
}

const leadingKeys = (partitions: readonly string[]) => ({
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions] },
});

/**
 * The TOKEN authorizer: GetItem on tokens only, and UpdateItem on tokens only, naming only the key and
 * `last_used_on` and answering none of the item's other attributes. No index: it never tells 403 from 404.
 */
export function grantTokenAccess(fn: ApiFunction, table: TableV2): void {
  const tokens = authorizer.table.reads.map(partitionPattern);
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['dynamodb:GetItem'],
      resources: [table.tableArn],
      conditions: leadingKeys(tokens),
    }),
  );
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: {
        ...leadingKeys(tokens),
        'ForAllValues:StringEquals': {
          'dynamodb:Attributes': updatableWith(AUTHORIZER_UPDATABLE_ATTRIBUTES),
        },
        StringEqualsIfExists: { 'dynamodb:ReturnValues': BOUNDED_RETURN_VALUES },
      },
    }),
  );
}

/**
 * Starts webhook deliveries: `lambda:InvokeFunction` on the deliverer's ARN (the function itself, none of
 * its versions or aliases) and nothing else, and its name in `WEBHOOK_DELIVERER_FUNCTION` (shared/config.ts).
 */
export function grantDeliveryStart(fn: ApiFunction, deliverer: IFunction): void {
  fn.addToRolePolicy(
    new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [deliverer.functionArn] }),
  );
  fn.addEnvironment('WEBHOOK_DELIVERER_FUNCTION', deliverer.functionName);
}

/** What each use of the signing secrets' key may do: make data keys (seal), decrypt them (open). */
const SIGNING_SECRET_ACTIONS = {
  seal: ['kms:GenerateDataKey'],
  open: ['kms:Decrypt'],
  both: ['kms:GenerateDataKey', 'kms:Decrypt'],
} as const;

/**
 * The signing secrets' key for one use, and only for data keys of that purpose (the encryption context
 * shared/data/secret-envelope.ts sends), and its ARN in `SIGNING_SECRETS_KEY` (shared/config.ts). The
 * key's own policy names the same roles for the same uses (signing-secrets-key.ts): IAM alone opens nothing.
 */
export function grantSigningSecrets(
  fn: ApiFunction,
  key: IKey,
  use: keyof typeof SIGNING_SECRET_ACTIONS,
): void {
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: [...SIGNING_SECRET_ACTIONS[use]],
      resources: [key.keyArn],
      conditions: { StringEquals: { 'kms:EncryptionContext:purpose': SIGNING_SECRET_PURPOSE } },
    }),
  );
  fn.addEnvironment('SIGNING_SECRETS_KEY', key.keyArn);
}
