import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, nowIso, type TransactItem, tableName } from './dynamo.ts';
import { nextId } from './ids.ts';
import { identityKey } from './keys.ts';

/** Sender identities (From email addresses and phone numbers) that a brand may name once verified. */
export type IdentityKind = 'email' | 'phone';

export interface Identity {
  id: number;
  team_id: number;
  kind: IdentityKind;
  value: string;
  verified: boolean;
  created_at: string;
}

export async function createIdentity(
  teamId: number,
  kind: IdentityKind,
  value: string,
  verified: boolean,
): Promise<Identity> {
  const identity: Identity = {
    id: await nextId('identity'),
    team_id: teamId,
    kind,
    value,
    verified,
    created_at: nowIso(),
  };
  await dynamo().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...identityKey(teamId, identity.id), ...identity },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return identity;
}

/** A transaction item that holds only if the team has this identity, of this kind, verified. */
export function verifiedIdentityCheck(teamId: number, kind: IdentityKind, identityId: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: identityKey(teamId, identityId),
      ConditionExpression: 'attribute_exists(pk) AND kind = :kind AND verified = :true',
      ExpressionAttributeValues: { ':kind': kind, ':true': true },
    },
  };
}
