import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiFunction } from '../../../lib/cdk/api-function.ts';
import { SIGNING_SECRET_PURPOSE } from '../../../shared/data/secret-envelope.ts';
import { routes } from '../../../shared/routes.ts';
import { functionOfRoute, logicalId, type Synthesized, synthesize } from '../../support/synth.ts';
import { actions, all, only, type Statement, statementsOfRole, stringify } from '../../support/template.ts';

/**
 * The signing secrets' key says in its own policy who may use it: the account administers it and uses it
 * for nothing; each function that seals or opens secrets is named (its role's path), for what IAM grants
 * it and the secrets' purpose only (docs/webhooks.md, "Who may use the key").
 */
let synth: Synthesized;
let withSealer: Synthesized;
const OPERATOR = 'arn:aws:iam::111122223333:role/operators';
beforeAll(() => {
  synth = synthesize({ full: false });
  withSealer = synthesize({ full: false, context: { signingSecretSealers: OPERATOR } });
});
afterAll(() => {
  for (const each of [synth, withSealer]) if (each) rmSync(each.outdir, { recursive: true, force: true });
});

type KeyStatement = Statement & {
  Sid?: string;
  Principal: unknown;
  Condition?: Record<string, Record<string, unknown>>;
};
const keyOf = (s: Synthesized) => only(s, 'AWS::KMS::Key');
const keyStatements = (s: Synthesized) => keyOf(s)[1].Properties.KeyPolicy.Statement as KeyStatement[];
const ACCOUNT_ROOT = {
  AWS: {
    'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']],
  },
};
const CRYPTO =
  /^kms:(\*|Decrypt|Encrypt|GenerateDataKey.*|ReEncrypt.*|CreateGrant|Sign|Verify|GenerateMac|VerifyMac|DeriveSharedSecret|Generate.*)$/;

/** The functions that seal or open secrets: the route table's `signingSecrets`, and the deliverer. */
function keyUsers(): Array<{ name: string; fn: ApiFunction; use: string }> {
  return [
    ...routes
      .filter((route) => route.signingSecrets)
      .map((route) => {
        const found = synth.stack.routeFunctions.find((each) => each.route === route);
        return {
          name: found?.id as string,
          fn: functionOfRoute(synth.stack, route),
          use: route.signingSecrets as string,
        };
      }),
    { name: 'WebhookDeliverer', fn: synth.stack.webhookDeliveries.deliverer, use: 'open' },
  ];
}

const roleOf = (fn: ApiFunction) => logicalId(synth.stack, fn.role?.node.defaultChild);
/** The statements of a role's IAM policies that name the key. */
const keyGrants = (role: string) =>
  statementsOfRole(synth, role).filter((statement) =>
    stringify(statement.Resource).includes(`"${keyOf(synth)[0]}"`),
  );
const principalArnPattern = (statement: KeyStatement) =>
  stringify(statement.Condition?.ArnLike?.['aws:PrincipalArn']);

describe('the signing secrets key policy', () => {
  it('lets the account administer the key and use it for nothing: no kms:*, no Decrypt, no GenerateDataKey, no grant', () => {
    const accountStatements = keyStatements(synth).filter(
      (statement) =>
        stringify(statement.Principal) === stringify(ACCOUNT_ROOT) && !statement.Condition?.ArnLike,
    );
    expect(accountStatements.map((statement) => statement.Sid)).toEqual(['AccountAdministersTheKey']);
    const administration = accountStatements.flatMap(actions);
    expect(administration.filter((action) => CRYPTO.test(action))).toEqual([]);
    expect(administration).toEqual(
      expect.arrayContaining([
        'kms:DescribeKey',
        'kms:EnableKey',
        'kms:DisableKey',
        'kms:EnableKeyRotation',
        'kms:PutKeyPolicy',
        'kms:ScheduleKeyDeletion',
        'kms:TagResource',
      ]),
    );
    // No statement anywhere allows every action, nor any principal at all.
    for (const statement of keyStatements(synth)) {
      expect(actions(statement), stringify(statement)).not.toContain('kms:*');
      expect(stringify(statement.Principal)).not.toBe('"*"');
      expect(statement.Effect).toBe('Allow');
    }
    expect(keyOf(synth)[1].Properties.EnableKeyRotation).toBe(true);
  });

  it('names each function that seals or opens, by its role, for exactly what IAM grants it and the purpose', () => {
    const users = keyUsers();
    expect(users.map(({ name, use }) => `${name} ${use}`)).toEqual([
      'PostApiV1WebhookEndpoints both',
      'PostApiV1WebhookEndpointsIdSecretRotate seal',
      'WebhookDeliverer open',
    ]);
    const named = keyStatements(synth).filter((statement) => statement.Condition?.ArnLike);
    expect(named).toHaveLength(users.length);
    const roles = all(synth);
    for (const { name, fn } of users) {
      const role = roleOf(fn);
      const path = roles[role]?.Properties.Path as string;
      expect(path).toBe(`/TeamMessagingApi/signing-secrets/${name}/`);
      // Its path is its own: no other role of the stack is there.
      expect(
        Object.entries(roles)
          .filter(([, each]) => each.Properties.Path === path)
          .map(([id]) => id),
      ).toEqual([role]);
      const statement = named.find((each) => principalArnPattern(each).includes(`:role${path}*`));
      const grants = keyGrants(role);
      expect(grants.length, name).toBeGreaterThan(0);
      expect([...actions(statement as KeyStatement)].sort()).toEqual(grants.flatMap(actions).sort());
      expect(statement?.Principal).toEqual(ACCOUNT_ROOT);
      expect(statement?.Condition).toEqual({
        StringEquals: { 'kms:EncryptionContext:purpose': SIGNING_SECRET_PURPOSE },
        ArnLike: {
          'aws:PrincipalArn': {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, `:role${path}*`],
            ],
          },
        },
      });
      // The IAM grant's condition is the same purpose.
      for (const grant of grants as KeyStatement[]) {
        expect(grant.Condition).toEqual({
          StringEquals: { 'kms:EncryptionContext:purpose': SIGNING_SECRET_PURPOSE },
        });
      }
    }
    // And no other role's IAM names the key.
    const grantees = Object.entries(roles)
      .filter(([, each]) => each.Type === 'AWS::IAM::Role')
      .map(([id]) => id)
      .filter((role) => keyGrants(role).length > 0)
      .sort();
    expect(grantees).toEqual(users.map(({ fn }) => roleOf(fn)).sort());
  });

  it("names the operators' roles of signingSecretSealers for sealing only (admin migrate), never opening", () => {
    expect(keyStatements(synth).map((statement) => statement.Sid)).not.toContain('OperatorsSeal');
    const sealers = keyStatements(withSealer).filter((statement) => statement.Sid === 'OperatorsSeal');
    expect(sealers).toEqual([
      {
        Sid: 'OperatorsSeal',
        Effect: 'Allow',
        Principal: { AWS: OPERATOR },
        Action: 'kms:GenerateDataKey',
        Resource: '*',
        Condition: { StringEquals: { 'kms:EncryptionContext:purpose': SIGNING_SECRET_PURPOSE } },
      },
    ]);
  });
});
