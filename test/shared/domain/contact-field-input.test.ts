import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContactFieldDefinition } from '../../../shared/domain/contact-field.ts';
import {
  type BlindRevision,
  blindRevision,
  newContactFieldSchema,
  reviseContactField,
} from '../../../shared/domain/contact-field-input.ts';
import { validate } from '../../../shared/domain/validation.ts';
import { refusal } from '../../support/validation.ts';

/**
 * The rules of a contact field definition, checked on the create schema and on the update's merge as the
 * handlers apply them. The HTTP tests (test/functions/contact-fields/contact-fields.services.test.ts) keep one case per class of rule, and the
 * rules that need the database (a tag unique per team).
 */
const valid = { name: 'Colour', tag: 'colour', type: 'text', contact_type: 'person' };

/** A valid body with one change, as it arrives after JSON parsing: a key set to undefined is no key. */
const bodyWith = (change: Record<string, unknown>): unknown =>
  JSON.parse(JSON.stringify({ ...valid, ...change }));

describe('the contact field create body', () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    ['a missing name', { name: undefined }, 'name', 'The name field is required.'],
    ['a blank name', { name: '   ' }, 'name', 'The name field is required.'],
    [
      'a long name',
      { name: 'n'.repeat(256) },
      'name',
      'The name field must not be greater than 255 characters.',
    ],
    ['a numeric name', { name: 5 }, 'name', 'The name field must be a string.'],
    ['a missing tag', { tag: undefined }, 'tag', 'The tag field is required.'],
    ['an empty tag', { tag: '' }, 'tag', 'The tag field is required.'],
    ['an uppercase tag', { tag: 'Colour' }, 'tag', 'must start with a lowercase letter'],
    ['a tag with a space', { tag: 'fav colour' }, 'tag', 'must start with a lowercase letter'],
    ['a tag with a hyphen', { tag: 'fav-colour' }, 'tag', 'must start with a lowercase letter'],
    ['a tag starting with a digit', { tag: '1colour' }, 'tag', 'must start with a lowercase letter'],
    ['a tag starting with _', { tag: '_colour' }, 'tag', 'must start with a lowercase letter'],
    ['a long tag', { tag: 't'.repeat(256) }, 'tag', 'The tag field must not be greater than 255 characters.'],
    ['a missing type', { type: undefined }, 'type', 'The type field is required.'],
    [
      'an unknown type',
      { type: 'color' },
      'type',
      'The selected type is invalid: the types are text, email, phone, number, date, datetime, boolean, url, pick_list, related.',
    ],
    [
      'a missing contact type',
      { contact_type: undefined },
      'contact_type',
      'The contact type field is required.',
    ],
    [
      'an unknown contact type',
      { contact_type: 'company' },
      'contact_type',
      'The selected contact type is invalid: the contact types are person, organization.',
    ],
    ['a zero max_length', { max_length: 0 }, 'max_length', 'The max length field must be at least 1.'],
    ['a negative max_length', { max_length: -5 }, 'max_length', 'The max length field must be at least 1.'],
    [
      'a fractional max_length',
      { max_length: 1.5 },
      'max_length',
      'The max length field must be an integer.',
    ],
    ['a string max_length', { max_length: '10' }, 'max_length', 'The max length field must be a number.'],
    [
      'options on a text field',
      { options: ['a'] },
      'options',
      'The options field is only allowed when type is pick_list.',
    ],
    [
      'a pick_list without options',
      { type: 'pick_list' },
      'options',
      'The options field is required when type is pick_list.',
    ],
    [
      'a pick_list with no options',
      { type: 'pick_list', options: [] },
      'options',
      'The options field is required when type is pick_list.',
    ],
    [
      'duplicate options',
      { type: 'pick_list', options: ['a', 'b', 'a'] },
      'options.2',
      'The options.2 field has a duplicate value.',
    ],
    [
      'a long option',
      { type: 'pick_list', options: ['o'.repeat(256)] },
      'options.0',
      'The options.0 field must not be greater than 255 characters.',
    ],
    [
      'a blank option',
      { type: 'pick_list', options: ['a', ' '] },
      'options.1',
      'The options.1 field is required.',
    ],
    [
      'a non-string option',
      { type: 'pick_list', options: [1] },
      'options.0',
      'The options.0 field must be a string.',
    ],
    [
      'options that are not a list',
      { type: 'pick_list', options: 'a,b' },
      'options',
      'The options field must be an array.',
    ],
    [
      'a non-boolean allow_multiple',
      { allow_multiple: 'yes' },
      'allow_multiple',
      'The allow multiple field must be true or false.',
    ],
    [
      'allow_multiple on a text field',
      { allow_multiple: true },
      'allow_multiple',
      'may only be true when type is pick_list',
    ],
  ])('refuses %s, naming the rule', (_case, change, field, message) => {
    const refused = refusal(() => validate(newContactFieldSchema, bodyWith(change)));
    expect(refused.message).toContain(message);
    expect(refused.errors[field]?.join(' ')).toContain(message);
  });

  it('names every missing field at once', () => {
    const refused = refusal(() => validate(newContactFieldSchema, undefined));
    expect(Object.keys(refused.errors).sort()).toEqual(['contact_type', 'name', 'tag', 'type']);
  });
});

describe('a contact field update', () => {
  const stored: ContactFieldDefinition = {
    name: 'Favourite colour',
    tag: 'favourite_colour',
    type: 'text',
    max_length: 255,
    options: null,
    allow_multiple: false,
  };

  it.each<[Record<string, unknown>, string]>([
    [{ name: '' }, 'name'],
    [{ name: null }, 'name'],
    [{ tag: 'Bad Tag' }, 'tag'],
    [{ tag: null }, 'tag'],
    [{ type: 'colour' }, 'type'],
    [{ max_length: 0 }, 'max_length'],
    [{ allow_multiple: 'no' }, 'allow_multiple'],
  ])('refuses %j, naming only that field', (body, field) => {
    expect(Object.keys(refusal(() => reviseContactField(stored, body)).errors)).toEqual([field]);
  });
});

describe('the blind revision of a PUT body (one conditional update, no read)', () => {
  const TYPES = ['text', 'number', 'pick_list', 'email'] as const;
  const optionList = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 3 });
  /** Stored definitions that keep the type rules: options and multiple choice only on a pick list. */
  const stored = fc.oneof(
    fc.record({
      name: fc.constant('Stored'),
      tag: fc.constant('stored'),
      type: fc.constantFrom('text', 'number', 'email'),
      max_length: fc.constantFrom(10, 255),
      options: fc.constant(null),
      allow_multiple: fc.constant(false),
    }),
    fc.record({
      name: fc.constant('Stored'),
      tag: fc.constant('stored'),
      type: fc.constant('pick_list'),
      max_length: fc.constantFrom(10, 255),
      options: optionList,
      allow_multiple: fc.boolean(),
    }),
  ) as fc.Arbitrary<ContactFieldDefinition>;
  const maybe = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
  const bodies = fc.record(
    {
      name: maybe(fc.constantFrom('New', '', 5)),
      tag: maybe(fc.constantFrom('stored', 'other')),
      type: maybe(fc.constantFrom(...TYPES, 'fax')),
      max_length: maybe(fc.constantFrom(null, 20, 0)),
      options: maybe(fc.oneof(fc.constant(null), fc.constant([]), optionList)),
      allow_multiple: maybe(fc.boolean()),
    },
    { requiredKeys: [] },
  );

  /** Whether the stored field meets what the blind revision requires (the write's condition). */
  const meets = (current: ContactFieldDefinition, blind: BlindRevision) =>
    (blind.tag === undefined || blind.tag === current.tag) &&
    (blind.pickList === undefined || blind.pickList === (current.type === 'pick_list')) &&
    (!blind.hasOptions || current.options !== null);

  it('writes exactly what the read-then-revise path would, and only when that path accepts the body', () => {
    fc.assert(
      fc.property(stored, bodies, (current, rawBody) => {
        const body = JSON.parse(JSON.stringify(rawBody));
        const blind = blindRevision(body);
        let revised: ContactFieldDefinition | undefined;
        try {
          revised = reviseContactField(current, body);
        } catch {
          revised = undefined;
        }
        if (!blind || !meets(current, blind)) return; // the long way: read, then revise
        expect(revised, JSON.stringify({ current, body })).toEqual({ ...current, ...blind.set });
      }),
      { seed: 20261125, numRuns: 3000 },
    );
  });
});
