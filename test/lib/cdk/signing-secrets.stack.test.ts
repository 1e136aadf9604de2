import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiFunction } from '../../../lib/cdk/api-function.ts';
import { STATEFUL_TYPES } from '../../../lib/cdk/stateful-guard.ts';
import { SIGNING_SECRET_PURPOSE } from '../../../shared/data/secret-envelope.ts';
import { findRoute } from '../../../shared/routes.ts';
import {
  functionOfRoute,
  logicalId,
  reportedViolations,
  type Synthesized,
  synthesize,
} from '../../support/synth.ts';
import { actions, idOf, ofType, type Resource, stringify } from '../../support/template.ts';

/**
 * The AWS side of sealed signing secrets: one KMS key with rotation on, kept when the stack goes,
 * stateful to the guard; only the functions that sign (the deliverer: Decrypt) or create (the create:
 * GenerateDataKey and Decrypt for its replay; the rotation: GenerateDataKey) may use it, for data keys of
 * that purpose only, and only they are told its ARN.
 */
let s: Synthesized;
beforeAll(() => {
  s = synthesize({ full: false });
});
afterAll(() => {
  if (s) rmSync(s.outdir, { recursive: true, force: true });
});

const routeFunction = (method: string, path: string) => {
  const route = findRoute(method, path);
  if (!route) throw new Error(`no route ${method} ${path}`);
  return functionOfRoute(s.stack, route) as ApiFunction;
};
const roleOf = (fn: ApiFunction) => logicalId(s.stack, fn.role?.node.defaultChild);

/** Who may use the key and how: each role naming it, with the actions of the statements that name it. */
function keyGrants(keyId: string): Record<string, { actions: string[]; conditions: unknown[] }> {
  const grants: Record<string, { actions: string[]; conditions: unknown[] }> = {};
  for (const [, policy] of ofType(s, 'AWS::IAM::Policy')) {
    const statements = policy.Properties.PolicyDocument.Statement as Array<{
      Action: string | string[];
      Resource: unknown;
      Condition?: unknown;
    }>;
    for (const statement of statements.filter((st) => stringify(st.Resource).includes(`"${keyId}"`))) {
      for (const role of policy.Properties.Roles as Array<{ Ref: string }>) {
        const grant = (grants[role.Ref] ??= { actions: [], conditions: [] });
        grant.actions.push(...actions(statement as never));
        grant.conditions.push(statement.Condition);
        grant.actions.sort();
      }
    }
  }
  return grants;
}

describe('webhook signing secrets: the key', () => {
  it('is one KMS key with yearly rotation, retained when the production stack is deleted, stateful to the guard', () => {
    const keys = ofType(s, 'AWS::KMS::Key');
    expect(keys).toHaveLength(1);
    const [keyId, key] = keys[0] as [
      string,
      Resource & { DeletionPolicy?: string; UpdateReplacePolicy?: string },
    ];
    expect(keyId).toBe(idOf(s, s.stack.signingSecrets));
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');
    expect(key.UpdateReplacePolicy).toBe('Retain');
    expect(STATEFUL_TYPES).toContain('AWS::KMS::Key');
  });

  it('is granted only to the deliverer (Decrypt), the create (GenerateDataKey, Decrypt) and the rotation (GenerateDataKey), for its purpose only', () => {
    const keyId = idOf(s, s.stack.signingSecrets);
    const create = routeFunction('POST', '/api/v1/webhook-endpoints');
    const rotate = routeFunction('POST', '/api/v1/webhook-endpoints/{id}/secret/rotate');
    const purpose = { StringEquals: { 'kms:EncryptionContext:purpose': SIGNING_SECRET_PURPOSE } };
    expect(keyGrants(keyId)).toEqual({
      [roleOf(s.stack.webhookDeliveries.deliverer)]: { actions: ['kms:Decrypt'], conditions: [purpose] },
      [roleOf(create)]: { actions: ['kms:Decrypt', 'kms:GenerateDataKey'], conditions: [purpose] },
      [roleOf(rotate)]: { actions: ['kms:GenerateDataKey'], conditions: [purpose] },
    });
    // No role, and no function's other policy, names the key (its own policy names the same three for the
    // same uses: test/lib/cdk/signing-secrets-key.stack.test.ts).
    for (const [id, resource] of ofType(s, 'AWS::IAM::Role')) {
      expect(stringify(resource.Properties), id).not.toContain(`"${keyId}"`);
    }
  });

  it('names its ARN (SIGNING_SECRETS_KEY) to exactly those three functions', () => {
    const told = ofType(s, 'AWS::Lambda::Function')
      .filter(([, fn]) => fn.Properties.Environment?.Variables?.SIGNING_SECRETS_KEY !== undefined)
      .map(([id]) => id)
      .sort();
    const fns = [
      s.stack.webhookDeliveries.deliverer,
      routeFunction('POST', '/api/v1/webhook-endpoints'),
      routeFunction('POST', '/api/v1/webhook-endpoints/{id}/secret/rotate'),
    ];
    expect(told).toEqual(fns.map((fn) => idOf(s, fn)).sort());
  });

  it('passes the AwsSolutions (cdk-nag) checks', () => {
    expect(reportedViolations(s.assembly)).toEqual([]);
  });
});
