import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ContactFieldType, ContactType } from '../domain/contact-field-types.ts';
import { ValidationError } from '../http/errors.ts';
import { dynamo, nowIso, padId, type TransactItem, tableName, teamPk } from './dynamo.ts';
import { nextId } from './ids.ts';
import { idIndexKeys } from './items.ts';

/**
 * Contact fields. A field's tag is unique per team across both contact types: a `FIELDTAG#<tag>` item is
 * written in the same transaction as the field, so two racing creates cannot both claim one tag.
 */
export interface ContactField {
  id: number;
  team_id: number;
  name: string;
  tag: string;
  type: ContactFieldType;
  contact_type: ContactType;
  max_length: number | null;
  options: string[] | null;
  allow_multiple: boolean;
  integration_id: number | null;
  created_at: string;
  updated_at: string;
}

export type NewContactField = Pick<ContactField, 'name' | 'tag' | 'type' | 'contact_type'> &
  Partial<Pick<ContactField, 'max_length' | 'options' | 'allow_multiple' | 'integration_id'>>;

export const FIELD_PREFIX = 'FIELD#';
export const fieldKey = (teamId: number, fieldId: number) => ({
  pk: teamPk(teamId),
  sk: `${FIELD_PREFIX}${padId(fieldId)}`,
});
export const tagKey = (teamId: number, tag: string) => ({ pk: teamPk(teamId), sk: `FIELDTAG#${tag}` });

export const TAG_TAKEN = 'The tag has already been taken.';

/** The transaction items that claim a tag for a field; the claim fails if the tag is taken. */
export function claimTag(teamId: number, tag: string, fieldId: number): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...tagKey(teamId, tag), field_id: fieldId },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * Creates a field and claims its tag in one transaction (plus any `extraItems`, such as an idempotency
 * record's completion). A taken tag is a 422.
 */
export async function createContactField(
  teamId: number,
  input: NewContactField,
  extraItems: (field: ContactField) => TransactItem[] = () => [],
): Promise<ContactField> {
  const now = nowIso();
  const field: ContactField = {
    id: await nextId('field'),
    team_id: teamId,
    name: input.name,
    tag: input.tag,
    type: input.type,
    contact_type: input.contact_type,
    max_length: input.max_length ?? 255,
    options: input.options ?? null,
    allow_multiple: input.allow_multiple ?? false,
    integration_id: input.integration_id ?? null,
    created_at: now,
    updated_at: now,
  };
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: { ...fieldKey(teamId, field.id), ...idIndexKeys('FIELD', field.id), ...field },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    claimTag(teamId, field.tag, field.id),
    ...extraItems(field),
  ];
  try {
    await dynamo.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    if (
      error instanceof TransactionCanceledException &&
      error.CancellationReasons?.[1]?.Code === 'ConditionalCheckFailed'
    ) {
      throw ValidationError.single('tag', TAG_TAKEN);
    }
    throw error;
  }
  return field;
}
