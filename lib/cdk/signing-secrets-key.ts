import { Aws, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AccountRootPrincipal,
  ArnPrincipal,
  type CfnRole,
  PolicyDocument,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { SIGNING_SECRET_PURPOSE } from '../../shared/data/secret-envelope.ts';
import type { ApiFunction } from './api-function.ts';

/**
 * The key webhook signing secrets are sealed under, and its policy: the policy, not IAM alone, says who
 * may use it. The account (its administrators, through IAM) may administer the key but not use it: no
 * `kms:*`, no Decrypt, no GenerateDataKey, no CreateGrant (a grant would hand out its use). Each function
 * that seals or opens secrets is named, for exactly its actions and only for the secrets' purpose, so an
 * account principal whose IAM allows `kms:Decrypt` on `*` opens no secret.
 */
export const KEY_ADMINISTRATION = [
  'kms:CancelKeyDeletion',
  'kms:CreateAlias',
  'kms:DeleteAlias',
  'kms:DescribeKey',
  'kms:DisableKey',
  'kms:DisableKeyRotation',
  'kms:EnableKey',
  'kms:EnableKeyRotation',
  'kms:GetKeyPolicy',
  'kms:GetKeyRotationStatus',
  'kms:ListGrants',
  'kms:ListKeyPolicies',
  'kms:ListKeyRotations',
  'kms:ListResourceTags',
  'kms:PutKeyPolicy',
  'kms:RevokeGrant',
  'kms:RotateKeyOnDemand',
  'kms:ScheduleKeyDeletion',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:UpdateAlias',
  'kms:UpdateKeyDescription',
];

/** What each use of the key may do (the route table's `signingSecrets`; lib/cdk/grants.ts grants the same). */
export const SIGNING_SECRETS_USES = {
  seal: ['kms:GenerateDataKey'],
  open: ['kms:Decrypt'],
  both: ['kms:Decrypt', 'kms:GenerateDataKey'],
} as const;
export type SigningSecretsUse = keyof typeof SIGNING_SECRETS_USES;

/**
 * The key, rotated yearly (what it sealed before still opens), its policy letting the account administer
 * it only; allowSigningSecretsUse adds each user.
 */
export function signingSecretsKey(scope: Construct, id: string, removalPolicy: RemovalPolicy): Key {
  return new Key(scope, id, {
    description: 'Seals the webhook signing secrets of the table (envelope encryption)',
    enableKeyRotation: true,
    removalPolicy,
    policy: new PolicyDocument({
      statements: [
        new PolicyStatement({
          sid: 'AccountAdministersTheKey',
          principals: [new AccountRootPrincipal()],
          actions: KEY_ADMINISTRATION,
          resources: ['*'],
        }),
      ],
    }),
  });
}

/**
 * Names a function's role in the key's policy, for its use of the key with the purpose IAM grants it
 * (grantSigningSecrets). The route functions are in nested stacks that take the key's ARN from this one,
 * so the policy cannot take their roles' ARNs back (a cycle); and KMS refuses a policy naming a principal
 * that does not exist yet. So the role is given a path of its own, `/<stack>/signing-secrets/<function>/`,
 * and the statement names the account's roles under that path (`aws:PrincipalArn`), a name the stack
 * knows before the role exists: only this function's role is there (making another needs IAM's
 * CreateRole, an administrator's).
 */
export function allowSigningSecretsUse(
  key: Key,
  fn: ApiFunction,
  use: SigningSecretsUse,
  name: string,
): void {
  const path = `/${Stack.of(key).stackName}/signing-secrets/${name}/`;
  (fn.role?.node.defaultChild as CfnRole).path = path;
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: `${name}${use === 'both' ? 'SealsAndOpens' : use === 'seal' ? 'Seals' : 'Opens'}`,
      principals: [new AccountRootPrincipal()],
      actions: [...SIGNING_SECRETS_USES[use]],
      resources: ['*'],
      conditions: {
        StringEquals: { 'kms:EncryptionContext:purpose': SIGNING_SECRET_PURPOSE },
        ArnLike: { 'aws:PrincipalArn': `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role${path}*` },
      },
    }),
  );
}

/**
 * The operators' roles that may seal secrets (`admin migrate` seals those an earlier version kept in clear,
 * with the operator's credentials): GenerateDataKey for the secrets' purpose, never Decrypt, so an
 * operator can seal a secret but open none. Named as principals: they exist before the key's policy does.
 */
export function allowOperatorsToSeal(key: Key, roleArns: readonly string[]): void {
  if (roleArns.length === 0) return;
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'OperatorsSeal',
      principals: roleArns.map((arn) => new ArnPrincipal(arn)),
      actions: [...SIGNING_SECRETS_USES.seal],
      resources: ['*'],
      conditions: { StringEquals: { 'kms:EncryptionContext:purpose': SIGNING_SECRET_PURPOSE } },
    }),
  );
}
