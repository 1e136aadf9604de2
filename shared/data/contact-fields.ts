import { ConditionalCheckFailedException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  ANSWERED_CONTACT_FIELDS,
  CONTACT_FIELD_NAMES,
  type ContactField,
  type ContactFieldDefinition,
  type ContactFieldListView,
  type ContactFieldName,
  type ContactFieldView,
  contactFieldKind,
  emptyContactFieldValue,
  LISTED_CONTACT_FIELDS,
  type NewContactField,
} from '../domain/contact-field.ts';
import type { BlindRevision } from '../domain/contact-field-input.ts';
import { type ContactType, DEFAULT_MAX_LENGTH } from '../domain/contact-field-types.ts';
import { ForbiddenError, PreconditionFailedError, ValidationError } from '../domain/errors.ts';
import type { ListPage, PageOptions } from '../domain/pagination.ts';
import { dynamo, nowIso, type TransactItem, tableName } from './dynamo.ts';
import { nextId } from './ids.ts';
import { deletionStamp, queryUntil, requestStamp, requestStampUpdate, throwMissing } from './items.ts';
import { FIELD_PREFIX, fieldKey, idIndexKeys, tagKey, teamPk } from './keys.ts';
import { releaseQuota, takeQuota, throwIfQuotaReached } from './quotas.ts';
import {
  beforeRetry,
  type GuardedItem,
  LabelledTransaction,
  type PlainItem,
  plainItem,
} from './transactions.ts';

/**
 * Contact fields. A field's tag is unique per team across both contact types: a `FIELDTAG#<tag>` item
 * naming the field is written in the same transaction as the field, and swapped in one transaction on a
 * rename, so two racing writes cannot both claim one tag. Each field item carries a `version`, and every
 * update or delete is conditioned on what it read, so a concurrent change makes it re-read instead of
 * overwriting (the rules of a definition hold for the whole stored result).
 */
export const TAG_TAKEN = 'The tag has already been taken.';
export const MANAGED_FIELD_UPDATE = 'The field is managed by an integration and cannot be modified.';
export const MANAGED_FIELD_DELETE = 'The field is managed by an integration and cannot be deleted.';

/** The full field as the API (and the admin CLI) shows it. */
export const contactFieldView = (field: ContactField): ContactFieldView =>
  pickFields(field, ANSWERED_CONTACT_FIELDS);

/** The list shape (spec 2.3): no options, no allow_multiple. */
export const contactFieldListView = (field: ContactField): ContactFieldListView =>
  pickFields(field, LISTED_CONTACT_FIELDS);

/** The named fields, in the order named. */
const pickFields = <F extends ContactFieldName>(field: ContactField, names: readonly F[]) =>
  Object.fromEntries(names.map((name) => [name, field[name]])) as Pick<ContactField, F>;

const toItem = (field: ContactField, version: number) => ({
  ...fieldKey(field.team_id, field.id),
  ...idIndexKeys('FIELD', field.id),
  ...field,
  ...requestStamp(),
  version,
});

/** A field's representation from its stored item, as GET answers it (change events render it so). */
export const contactFieldOfItem = (item: Record<string, unknown>) => contactFieldView(fromItem(item));

/** The stored field in the declaration's order, with the defaults of what older items lack. */
function fromItem(item: Record<string, unknown>): ContactField {
  const field: Record<string, unknown> = {};
  for (const name of CONTACT_FIELD_NAMES) {
    const empty = emptyContactFieldValue(contactFieldKind(name));
    field[name] = empty === undefined ? item[name] : (item[name] ?? empty);
  }
  return field as ContactField;
}

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

/** Frees a tag, only while it still names this field. */
function releaseTag(teamId: number, tag: string, fieldId: number): TransactItem {
  return {
    Delete: {
      TableName: tableName(),
      Key: tagKey(teamId, tag),
      ConditionExpression: 'field_id = :fieldId',
      ExpressionAttributeValues: { ':fieldId': fieldId },
    },
  };
}

/**
 * The team's fields, ordered by id, optionally of one contact type; a page of them when `page` says so.
 * The sort key holds the id, so a page starts right after the cursor's id (the paging helper's start) and reads
 * one item more than it returns, to know whether another page follows. One Query per page; more only
 * when the contact type filter (applied after DynamoDB's Limit) or the 1 MB read cap leaves a page short.
 */
export async function listContactFields(
  teamId: number,
  contactType?: ContactType,
  { limit, after }: PageOptions<number> = {},
): Promise<ListPage<ContactField, number>> {
  const items = await queryUntil(
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ...(contactType && { FilterExpression: 'contact_type = :contactType' }),
      ExpressionAttributeValues: {
        ':pk': teamPk(teamId),
        ':prefix': FIELD_PREFIX,
        ...(contactType && { ':contactType': contactType }),
      },
      ConsistentRead: true,
    },
    (read) => limit !== undefined && read.length > limit,
    {
      ...(after !== undefined && { start: fieldKey(teamId, after) }),
      ...(limit !== undefined && { limit: limit + 1 }),
    },
  );
  const fields = items.map(fromItem);
  if (limit === undefined || fields.length <= limit) return { items: fields };
  const page = fields.slice(0, limit);
  return { items: page, next: (page[page.length - 1] as ContactField).id };
}

/** One of the team's fields and the version it was read at; 403 if it is another team's, 404 if none's. */
async function readContactField(
  teamId: number,
  id: number,
): Promise<{ field: ContactField; version: number }> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: fieldKey(teamId, id), ConsistentRead: true }),
  );
  if (!Item) return throwMissing('FIELD', 'ContactField', id);
  return { field: fromItem(Item), version: (Item.version as number | undefined) ?? 0 };
}

/** One of the team's fields with its version (its ETag). One GetItem. */
export async function getContactField(teamId: number, id: number): Promise<VersionedField> {
  return readContactField(teamId, id);
}

/** A field and the version it was read or written at (what its ETag names). */
export interface VersionedField {
  field: ContactField;
  version: number;
}

/** `expected` (an If-Match) names another version than the stored one: 412, nothing written. */
function checkExpected(expected: number | undefined, version: number): void {
  if (expected !== undefined && expected !== version) throw new PreconditionFailedError();
}

/**
 * Creates a field and claims its tag in one transaction (plus any `extraItems`, such as an idempotency
 * record's completion). A taken tag is a 422. One round trip (more only when DynamoDB reports a conflict
 * with a concurrent transaction, which wrote nothing of ours).
 */
export async function createContactField(
  teamId: number,
  input: NewContactField,
  extraItems: (field: ContactField) => GuardedItem[] = () => [],
): Promise<ContactField> {
  const now = nowIso();
  const field: ContactField = {
    id: await nextId('field'),
    team_id: teamId,
    name: input.name,
    tag: input.tag,
    type: input.type,
    contact_type: input.contact_type,
    max_length: input.max_length ?? DEFAULT_MAX_LENGTH,
    options: input.options ?? null,
    allow_multiple: input.allow_multiple ?? false,
    integration_id: input.integration_id ?? null,
    created_at: now,
    updated_at: now,
  };
  const transaction = new LabelledTransaction()
    .add('field', {
      Put: {
        TableName: tableName(),
        Item: toItem(field, 1),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    })
    .add('tag', claimTag(teamId, field.tag, field.id));
  takeQuota(transaction, teamId, 'contact_fields');
  transaction.guard(extraItems(field));
  for (let attempt = 1; ; attempt++) {
    const cancellation = await transaction.commit();
    if (!cancellation) return field;
    throwIfQuotaReached(cancellation, 'contact_fields');
    if (cancellation.conditionFailed('tag')) throw ValidationError.single('tag', TAG_TAKEN);
    // Met another transaction on the tag: nothing was written, so the same items are sent again.
    if (!cancellation.conflicted()) throw cancellation.error;
    await beforeRetry(attempt, 'field');
  }
}

/**
 * Updates a field with the definition `revise` makes of the stored one (it validates and may throw).
 * Integration fields are refused. When the body can be applied without reading (`blind`, no tag change),
 * it is one conditional UpdateItem whose condition carries the team, the integration check and what the
 * body requires of the stored field; a refused condition returns the field as it was, which then serves as
 * the read. Otherwise (a tag change, a 422, a race): read, revise, write conditioned on the version read;
 * a tag change releases the old tag and claims the new one in the same transaction as the field.
 */
export async function updateContactField(
  teamId: number,
  id: number,
  revise: (current: ContactFieldDefinition) => ContactFieldDefinition,
  blind?: BlindRevision,
  expected?: number,
): Promise<VersionedField> {
  let read = blind && (await updateInPlace(teamId, id, blind, expected));
  if (read?.written) return read;
  for (let attempt = 1; ; attempt++) {
    const { field: current, version } = read ?? (await readContactField(teamId, id));
    read = undefined;
    // The write below is conditioned on the version read, so this check holds until it commits.
    checkExpected(expected, version);
    if (current.integration_id !== null) throw new ForbiddenError(MANAGED_FIELD_UPDATE);
    const revised = revise(current);
    const field: ContactField = { ...current, ...revised, updated_at: nowIso() };
    if (sameDefinition(current, field)) return { field: current, version };
    const outcome = await writeRevision(current, field, version);
    if (outcome === 'written') return { field, version: version + 1 };
    if (outcome === 'tag taken') throw ValidationError.single('tag', TAG_TAKEN);
    await beforeRetry(attempt, 'field');
  }
}

type InPlaceOutcome = { field: ContactField; version: number; written: boolean };

/**
 * The blind revision as one conditional UpdateItem: the new field, the stored one when refused, or nothing
 * when it met a concurrent transaction.
 */
async function updateInPlace(
  teamId: number,
  id: number,
  blind: BlindRevision,
  expected: number | undefined,
): Promise<InPlaceOutcome | undefined> {
  const stamp = requestStampUpdate();
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {
    ':now': nowIso(),
    ':zero': 0,
    ':one': 1,
    ':null': 'NULL',
    ...stamp.values,
  };
  const sets = ['updated_at = :now', 'version = if_not_exists(version, :zero) + :one', ...stamp.set];
  for (const [name, value] of Object.entries(blind.set)) {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  const conditions = [
    'attribute_exists(pk)',
    '(attribute_not_exists(integration_id) OR attribute_type(integration_id, :null))',
  ];
  if (blind.tag !== undefined) {
    conditions.push('tag = :tag');
    values[':tag'] = blind.tag;
  }
  if (blind.pickList !== undefined) {
    names['#storedType'] = 'type';
    values[':pickList'] = 'pick_list';
    conditions.push(blind.pickList ? '#storedType = :pickList' : '#storedType <> :pickList');
  }
  if (blind.hasOptions) {
    names['#storedOptions'] = 'options';
    values[':list'] = 'L';
    conditions.push('attribute_type(#storedOptions, :list)');
  }
  if (expected === 0)
    conditions.push('attribute_not_exists(version)'); // a field from before versions
  else if (expected !== undefined) {
    values[':expected'] = expected;
    conditions.push('version = :expected');
  }
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: fieldKey(teamId, id),
        UpdateExpression: `SET ${sets.join(', ')}${stamp.remove}`,
        ConditionExpression: conditions.join(' AND '),
        ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const item = Attributes as Record<string, unknown>;
    return { field: fromItem(item), version: item.version as number, written: true };
  } catch (error) {
    // Met a concurrent transaction on the field: read it and go the long way.
    if (error instanceof TransactionConflictException) return undefined;
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    if (!error.Item) return throwMissing('FIELD', 'ContactField', id);
    const item = plainItem(error.Item) as PlainItem;
    return { field: fromItem(item), version: (item.version as number | undefined) ?? 0, written: false };
  }
}

/** Deletes a field and frees its tag in one transaction; contact data stays. Two round trips. */
export async function deleteContactField(teamId: number, id: number, expected?: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const { field, version } = await readContactField(teamId, id);
    checkExpected(expected, version);
    if (field.integration_id !== null) throw new ForbiddenError(MANAGED_FIELD_DELETE);
    const cancellation = await new LabelledTransaction()
      .add('field', {
        Delete: {
          TableName: tableName(),
          Key: fieldKey(teamId, id),
          // A concurrent rename would otherwise leave its new tag claimed by a deleted field; with an
          // If-Match, any change since the read sends us back to the check above.
          ConditionExpression:
            expected === undefined
              ? 'tag = :tag'
              : `tag = :tag AND ${version > 0 ? 'version = :version' : 'attribute_not_exists(version)'}`,
          ExpressionAttributeValues: {
            ':tag': field.tag,
            ...(expected !== undefined && version > 0 && { ':version': version }),
          },
        },
      })
      .add('tag', releaseTag(teamId, field.tag, id))
      .add('quota release', releaseQuota(teamId, 'contact_fields'))
      .add('tombstone', ...deletionStamp(fieldKey(teamId, id), teamId))
      .commit();
    if (!cancellation) return;
    await beforeRetry(attempt, 'field');
  }
}

/**
 * Writes the revised field conditioned on the version read; a rename also swaps the tag items in the same
 * transaction. 'stale' when the field changed since it was read (or met a concurrent write).
 */
async function writeRevision(
  current: ContactField,
  field: ContactField,
  version: number,
): Promise<'written' | 'stale' | 'tag taken'> {
  const put = {
    TableName: tableName(),
    Item: toItem(field, version + 1),
    ConditionExpression: `tag = :tag AND ${version > 0 ? 'version = :version' : 'attribute_not_exists(version)'}`,
    ExpressionAttributeValues: { ':tag': current.tag, ...(version > 0 && { ':version': version }) },
  };
  if (field.tag === current.tag) {
    // One item: a conditional Put costs half a one-item transaction.
    return dynamo()
      .send(new PutCommand(put))
      .then(
        () => 'written',
        (error: unknown) => {
          if (
            error instanceof ConditionalCheckFailedException ||
            error instanceof TransactionConflictException
          ) {
            return 'stale';
          }
          throw error;
        },
      );
  }
  const cancellation = await new LabelledTransaction()
    .add('field', { Put: put })
    .add('old tag', releaseTag(field.team_id, current.tag, field.id))
    .add('new tag', claimTag(field.team_id, field.tag, field.id))
    .commit();
  if (!cancellation) return 'written';
  // The field was as read, but the new tag's claim failed: the tag is taken.
  return cancellation.conditionFailed('new tag') && !cancellation.conditionFailed('field')
    ? 'tag taken'
    : 'stale';
}

function sameDefinition(a: ContactFieldDefinition, b: ContactFieldDefinition): boolean {
  const definition = ({ name, tag, type, max_length, options, allow_multiple }: ContactFieldDefinition) =>
    JSON.stringify([name, tag, type, max_length, options, allow_multiple]);
  return definition(a) === definition(b);
}
