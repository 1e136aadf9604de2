import type { ContactFieldType, ContactType } from './contact-field-types.ts';
import { type FieldsWith, fieldsWhere as pick, type ValuesOf } from './entity-fields.ts';

/**
 * A contact field's fields, declared once, in the order of spec 2.3 (the order of every field the API
 * answers). The data module's item and views, the request bodies' rules (contact-field-input.ts), the
 * OpenAPI schemas (lib/openapi/representations.ts) and the types below are all derived from this table;
 * docs/adding-a-field.md says how to add a field.
 *
 * - `kind`: what the value is (each kind has one rule for requests and one schema for the document).
 * - `written`: `create` when only the POST body writes it, `true` when the PUT body may change it too;
 *   the others are the API's own (read-only).
 * - `answered`: the API answers it (`GET /contact-fields/{id}`); the others the item keeps for itself.
 * - `listed`: lists answer it too (a list leaves out what only a pick list has).
 */
export const CONTACT_FIELD_FIELDS = {
  id: { kind: 'id', answered: true, listed: true },
  team_id: { kind: 'id' },
  name: { kind: 'name', written: true, answered: true, listed: true },
  tag: { kind: 'tag', written: true, answered: true, listed: true },
  type: { kind: 'type', written: true, answered: true, listed: true },
  contact_type: { kind: 'contact_type', written: 'create', answered: true, listed: true },
  max_length: { kind: 'max_length', written: true, answered: true, listed: true },
  options: { kind: 'options', written: true, answered: true },
  allow_multiple: { kind: 'flag', written: true, answered: true },
  integration_id: { kind: 'integration', answered: true, listed: true },
  created_at: { kind: 'timestamp' },
  updated_at: { kind: 'timestamp' },
} as const satisfies Record<string, ContactFieldSpec>;

/** The value each kind holds in a stored contact field. */
export interface ContactFieldKindValues {
  id: number;
  name: string;
  tag: string;
  type: ContactFieldType;
  contact_type: ContactType;
  max_length: number | null;
  options: string[] | null;
  flag: boolean;
  integration: number | null;
  timestamp: string;
}

export type ContactFieldKind = keyof ContactFieldKindValues;

export interface ContactFieldSpec {
  kind: ContactFieldKind;
  written?: true | 'create';
  answered?: true;
  listed?: true;
}

type Fields = typeof CONTACT_FIELD_FIELDS;
type With<Flag extends keyof ContactFieldSpec, Value = unknown> = FieldsWith<Fields, Flag, Value>;

/** A contact field as it is stored. */
export type ContactField = ValuesOf<Fields, ContactFieldKindValues>;
export type ContactFieldName = keyof ContactField;
export type AnsweredContactField = With<'answered'>;
export type ListedContactField = With<'listed'>;
export type WrittenContactField = With<'written'>;
export type UpdatedContactField = With<'written', true>;
/** A contact field as the API answers it. */
export type ContactFieldView = Pick<ContactField, AnsweredContactField>;
/** A contact field as lists answer it. */
export type ContactFieldListView = Pick<ContactField, ListedContactField>;
/** What the team edits on a field: what a PUT body may change. */
export type ContactFieldDefinition = Pick<ContactField, UpdatedContactField>;
export type NewContactField = Pick<ContactField, 'name' | 'tag' | 'type' | 'contact_type'> &
  Partial<Pick<ContactField, 'max_length' | 'options' | 'allow_multiple' | 'integration_id'>>;

const fieldsWhere = <F extends ContactFieldName>(test: (spec: ContactFieldSpec) => boolean): F[] =>
  pick<ContactFieldName, ContactFieldSpec, F>(CONTACT_FIELD_FIELDS, test);

/** Every field, in the stored item's order. */
export const CONTACT_FIELD_NAMES: readonly ContactFieldName[] = fieldsWhere(() => true);
/** The fields the API answers, in its order. */
export const ANSWERED_CONTACT_FIELDS = fieldsWhere<AnsweredContactField>((spec) => spec.answered === true);
/** The fields lists answer, in their order. */
export const LISTED_CONTACT_FIELDS = fieldsWhere<ListedContactField>((spec) => spec.listed === true);
/** The fields a POST body writes. */
export const WRITTEN_CONTACT_FIELDS = fieldsWhere<WrittenContactField>((spec) => spec.written !== undefined);
/** The fields a PUT body may change. */
export const UPDATED_CONTACT_FIELDS = fieldsWhere<UpdatedContactField>((spec) => spec.written === true);
/** What the API answers that no POST body writes (a field read and sent back carries them). */
export const READ_ONLY_CONTACT_FIELDS = fieldsWhere(
  (spec) => spec.answered === true && spec.written === undefined,
);
/** What only the POST body writes: set once. */
export const CREATE_ONLY_CONTACT_FIELDS = fieldsWhere((spec) => spec.written === 'create');

/** The kind of a field. */
export const contactFieldKind = (field: ContactFieldName): ContactFieldKind =>
  CONTACT_FIELD_FIELDS[field].kind;

/** What a field answers for a value its item lacks; undefined for what every item has. */
export function emptyContactFieldValue(
  kind: ContactFieldKind,
): ContactFieldKindValues[ContactFieldKind] | undefined {
  if (kind === 'flag') return false;
  return kind === 'max_length' || kind === 'options' || kind === 'integration' ? null : undefined;
}
