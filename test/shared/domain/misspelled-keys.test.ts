import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { OPERATIONS } from '../../../lib/openapi/operations.ts';
import { createBrandSchema, updateBrandSchema } from '../../../shared/domain/brand-input.ts';
import {
  blindRevision,
  contactFieldPatchSchema,
  newContactFieldSchema,
} from '../../../shared/domain/contact-field-input.ts';
import {
  type BodyKeys,
  bodyKeysOf,
  editDistance,
  editsAllowed,
  FIELD_SYNONYMS,
  misspelledKeys,
  normalFieldName,
  probableField,
} from '../../../shared/domain/misspelled-keys.ts';
import { autoConfigureRequest, uploadRequest } from '../../../shared/domain/requests.ts';
import { validate } from '../../../shared/domain/validation.ts';
import { refusal } from '../../support/validation.ts';

/**
 * The misspelled-key detector (shared/domain/misspelled-keys.ts) on its own and through `validate` with
 * every request body schema: another case or separator, or an edit or two, of a field is a 422 naming the
 * key and the field; a known key, or one far from every field, is ignored as before.
 */

/** Every request body the API validates, with a valid instance of it. */
const BODIES = [
  ['brand create', createBrandSchema, { name: 'Acme' }],
  ['brand update', updateBrandSchema, {}],
  [
    'contact field create',
    newContactFieldSchema,
    { name: 'C', tag: 'c', type: 'text', contact_type: 'person' },
  ],
  ['contact field update', contactFieldPatchSchema, {}],
  ['auto-configure', autoConfigureRequest, { url: 'https://acme.example' }],
  ['upload', uploadRequest, { path: 'logos/a.png', content_type: 'image/png', size: 68 }],
] as const;

const keysOf = (schema: z.core.$ZodType): BodyKeys => {
  const keys = bodyKeysOf(schema);
  if (!keys) throw new Error('not a registered request body');
  return keys;
};
const BRAND = keysOf(createBrandSchema);

/** The optimal string alignment distance by its definition, without the early exit (the test's reference). */
function referenceDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

describe('the edit distance', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['color', 'colour', 1],
    ['colour', 'color', 1],
    ['nmae', 'name', 1], // a swap of neighbours is one edit
    ['primarycolor', 'primraycolor', 1],
    ['ca', 'abc', 3], // optimal string alignment: a swapped pair is not edited again
    ['github', 'gitlab', 2],
    ['kitten', 'sitting', 3],
  ])('of %j and %j is %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });

  it('is the reference distance, or max + 1 for anything above max', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), maxLength: 9 });
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 4 }), (a, b, max) => {
        const reference = referenceDistance(a, b);
        expect(editDistance(a, b)).toBe(reference);
        expect(editDistance(a, b, max)).toBe(Math.min(reference, max + 1));
      }),
      { seed: 2028, numRuns: 3000 },
    );
  });

  it('answers a body of 1 MiB of near keys, none of them a misspelling', () => {
    // Keys near enough to logo_image that the distance is worked out, none within two edits.
    const body: Record<string, number> = {};
    for (let i = 100; i < 60_100; i++) body[`logo_imag${i}`] = 0;
    expect(misspelledKeys(body, BRAND)).toEqual([]);
  });

  it('answers for a key far longer than any field (the distance stops past the allowance)', () => {
    expect(editDistance('x'.repeat(1_000_000), 'primarycolor', 2)).toBe(3);
    expect(probableField('primary_color'.repeat(50_000), BRAND)).toBeUndefined();
  });
});

describe('the normal form and the allowance', () => {
  it.each([
    ['primaryColor', 'primarycolor'],
    ['primary-color', 'primarycolor'],
    ['PRIMARY_COLOR', 'primarycolor'],
    ['Primary Color', 'primarycolor'],
    ['primary.color', 'primarycolor'],
    ['__primary__color__', 'primarycolor'],
  ])('of %j is %j', (key, form) => {
    expect(normalFieldName(key)).toBe(form);
  });

  it.each([
    ['x', 0],
    ['id', 0],
    ['url', 0],
    ['tag', 0],
    ['name', 1],
    ['phoneid', 1],
    ['options', 1],
    ['isdefault', 2],
    ['primarycolor', 2],
  ])('allows %j %i edits', (field, edits) => {
    expect(editsAllowed(field)).toBe(edits);
  });
});

describe('a probable misspelling of a brand field', () => {
  it.each([
    ['primaryColor', 'primary_color'],
    ['primary-color', 'primary_color'],
    ['PrimaryColor', 'primary_color'],
    ['primary color', 'primary_color'],
    ['primary_colour', 'primary_color'],
    ['primery_colour', 'primary_color'],
    ['primray_color', 'primary_color'],
    ['secondaryColour', 'secondary_color'],
    ['Name', 'name'],
    ['nmae', 'name'],
    ['names', 'name'],
    ['tag', 'tags'],
    ['isDefault', 'is_default'],
    ['default', 'is_default'],
    ['logoImage', 'logo_image'],
    ['logoImagePath', 'logo_image_path'],
    ['websiteUrl', 'website_url'],
    ['email_address', 'email_address_id'],
    ['phoneId', 'phone_id'],
    ['socialLinks', 'social_links'],
  ])('%j is taken for %j', (key, field) => {
    expect(probableField(key, BRAND)).toBe(field);
  });

  it.each([
    // Known: the schema's keys and the representation's read-only ones.
    'name',
    'primary_color',
    'logo_image_path',
    'id',
    'team_id',
    'created_at',
    'updated_at',
    'is_default',
    // Nearest to a read-only field: ignored as that field is.
    'ID',
    'teamId',
    'createdAt',
    'updated',
    // Far from every field, or short.
    'ip',
    'x',
    'foo',
    'metadata',
    'colors',
    'phone',
    'email',
    'type',
    'note',
    'short_desc',
    '',
    '_',
    '__proto__',
    'constructor',
  ])('%j is not', (key) => {
    expect(probableField(key, BRAND)).toBeUndefined();
  });
});

describe('a synonym of a field (FIELD_SYNONYMS)', () => {
  it.each([
    ['color', 'primary_color'],
    ['Colour', 'primary_color'],
    ['brand-color', 'primary_color'],
    ['logo', 'logo_image'],
    ['logoUrl', 'logo_image'],
    ['logo_image_url', 'logo_image'],
    ['description', 'short_description'],
    ['website', 'website_url'],
    ['url', 'website_url'],
  ])('%j is taken for %s on a brand', (key, field) => {
    expect(probableField(key, BRAND)).toBe(field);
  });

  it('is a synonym only of a field the body has: a known key stays known', () => {
    const endpoint = { writable: ['url', 'event_types', 'description'], readOnly: ['id'] };
    expect(probableField('description', endpoint)).toBeUndefined();
    expect(probableField('summary', endpoint)).toBeUndefined();
    expect(probableField('events', endpoint)).toBe('event_types');
    const field = { writable: ['name', 'type', 'allow_multiple', 'options'], readOnly: ['id'] };
    expect(probableField('multiple', field)).toBe('allow_multiple');
    expect(probableField('color', field)).toBeUndefined();
  });

  it('names only fields: every synonym belongs to one field at most per body, none is a field of its own', () => {
    const fields = new Set(Object.keys(FIELD_SYNONYMS));
    for (const [field, synonyms] of Object.entries(FIELD_SYNONYMS)) {
      for (const synonym of synonyms) {
        expect(normalFieldName(synonym), `${field}: ${synonym}`).not.toBe(normalFieldName(field));
      }
    }
    expect(fields.size).toBeGreaterThan(0);
  });
});

describe('the other bodies', () => {
  const SCHEMAS = {
    'field create': newContactFieldSchema,
    'field update': contactFieldPatchSchema,
    'auto-configure': autoConfigureRequest,
    upload: uploadRequest,
  } as const;

  it.each([
    ['field create', 'contactType', 'contact_type'],
    ['field create', 'maxLength', 'max_length'],
    ['field create', 'max-lenght', 'max_length'],
    ['field create', 'option', 'options'],
    ['field create', 'allowMultiple', 'allow_multiple'],
    ['field create', 'Tag', 'tag'],
    ['field create', 'tpye', 'type'],
    ['field update', 'allow_multiples', 'allow_multiple'],
    ['auto-configure', 'URL', 'url'],
    ['upload', 'contentType', 'content_type'],
    ['upload', 'Path', 'path'],
    ['upload', 'paths', 'path'],
  ])('%s takes %j for %j', (body, key, field) => {
    expect(probableField(key, keysOf(SCHEMAS[body as keyof typeof SCHEMAS]))).toBe(field);
  });

  it.each([
    ['field create', 'tags'], // `tag` allows no edit
    ['field create', 'id'],
    ['field create', 'integration_id'],
    ['field create', 'integrationId'],
    ['field create', 'required'],
    ['field update', 'contact_type'], // read-only on PUT, as the field answers it
    ['field update', 'contactType'],
    ['auto-configure', 'uri'],
    ['auto-configure', 'suggestions'],
    ['upload', 'upload_url'],
    ['upload', 'uploadUrl'],
    ['upload', 'file'],
  ])('%s ignores %j', (body, key) => {
    expect(probableField(key, keysOf(SCHEMAS[body as keyof typeof SCHEMAS]))).toBeUndefined();
  });
});

describe('every request body', () => {
  it('is registered, and knows every key of the representation its route answers', () => {
    const bodies = Object.entries(OPERATIONS).filter(([, operation]) => operation.body);
    expect(bodies.map(([route]) => route).sort()).toEqual([
      'POST /api/v1/brands',
      'POST /api/v1/brands/auto-configure',
      'POST /api/v1/contact-fields',
      'POST /api/v1/events/{id}/redeliver',
      'POST /api/v1/files',
      'POST /api/v1/webhook-endpoints',
      'POST /api/v1/webhook-endpoints/{id}/recover',
      'PUT /api/v1/brands/{id}',
      'PUT /api/v1/contact-fields/{id}',
      'PUT /api/v1/webhook-endpoints/{id}',
    ]);
    // What these answer is a receipt of work started (202), not a representation a client sends back.
    const actions = ['POST /api/v1/events/{id}/redeliver', 'POST /api/v1/webhook-endpoints/{id}/recover'];
    for (const [route, { body, success }] of bodies.filter(([route]) => !actions.includes(route))) {
      const keys = keysOf(body as z.core.$ZodType);
      expect(success, route).toBeInstanceOf(z.ZodObject);
      const representation = Object.keys((success as z.ZodObject).shape);
      const known = [...keys.writable, ...keys.readOnly];
      expect(
        representation.filter((key) => !known.includes(key)),
        route,
      ).toEqual([]);
      // Nothing of the representation is flagged, nor taken for another field.
      expect(misspelledKeys(Object.fromEntries(representation.map((key) => [key, 1])), keys)).toEqual([]);
    }
  });

  it.each(BODIES)('%s: refuses a misspelling alongside its other errors', (_name, schema) => {
    const keys = keysOf(schema);
    const field = keys.writable[0] as string;
    const key = field.toUpperCase();
    const result = refusal(() => validate(schema, { [key]: 'x', [field]: 5 }));
    expect(result.errors[key]).toEqual([`Unknown field ${key}: did you mean ${field}?`]);
    expect(result.errors[field]).toBeDefined();
    expect(result.message).toMatch(/^Unknown field .*: did you mean .*\? \(and \d+ more errors?\)$/);
  });
});

/** A field written another way: each word in another case, joined by another separator (or none). */
const respelled = (field: string) =>
  fc
    .tuple(
      fc.array(fc.constantFrom('lower', 'upper', 'capital'), {
        minLength: field.split('_').length,
        maxLength: field.split('_').length,
      }),
      fc.constantFrom('', '-', ' ', '_', '.', '__'),
      fc.boolean(),
    )
    .map(([cases, separator, camel]) =>
      field
        .split('_')
        .map((word, i) => {
          const style = camel ? (i === 0 ? 'lower' : 'capital') : cases[i];
          if (style === 'upper') return word.toUpperCase();
          if (style === 'capital') return word.charAt(0).toUpperCase() + word.slice(1);
          return word;
        })
        .join(camel ? '' : separator),
    )
    .filter((key) => key !== field);

/** One typo in a field of 4 characters or more: a letter added, dropped, changed, or two swapped. */
const typo = (field: string) =>
  fc
    .tuple(
      fc.constantFrom('insert', 'delete', 'substitute', 'swap'),
      fc.nat({ max: field.length - 1 }),
      fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
    )
    .map(([edit, at, letter]) => {
      if (edit === 'insert') return field.slice(0, at) + letter + field.slice(at);
      if (edit === 'delete') return field.slice(0, at) + field.slice(at + 1);
      if (edit === 'substitute') return field.slice(0, at) + letter + field.slice(at + 1);
      const i = Math.min(at, field.length - 2);
      return field.slice(0, i) + field.charAt(i + 1) + field.charAt(i) + field.slice(i + 2);
    });

describe('properties over every body', () => {
  const body = fc.constantFrom(...BODIES);
  const withField = body.chain(([name, schema, valid]) =>
    fc.constantFrom(...keysOf(schema).writable).map((field) => ({ name, schema, valid, field })),
  );

  it('refuses any change of case or separators of a field, naming the key and the field', () => {
    fc.assert(
      fc.property(
        withField.chain((c) => respelled(c.field).map((key) => ({ ...c, key }))),
        ({ schema, valid, field, key }) => {
          expect(probableField(key, keysOf(schema))).toBe(field);
          const result = refusal(() => validate(schema, { ...valid, [key]: null }));
          expect(result.errors[key]).toEqual([`Unknown field ${key}: did you mean ${field}?`]);
        },
      ),
      { seed: 28, numRuns: 2000 },
    );
  });

  it('takes one typo of a field of 4 characters or more for that field or one as near', () => {
    fc.assert(
      fc.property(
        withField
          .filter((c) => normalFieldName(c.field).length >= 4)
          .chain((c) => typo(c.field).map((key) => ({ ...c, key }))),
        ({ schema, field, key }) => {
          const keys = keysOf(schema);
          if (keys.writable.includes(key) || keys.readOnly.includes(key)) return;
          const taken = probableField(key, keys);
          expect(taken, key).toBeDefined();
          const form = normalFieldName(key);
          expect(editDistance(form, normalFieldName(taken as string))).toBeLessThanOrEqual(
            editDistance(form, normalFieldName(field)),
          );
        },
      ),
      { seed: 2802, numRuns: 2000 },
    );
  });

  it('ignores a key far from every field as before: the same output as without it', () => {
    const farKey = (keys: BodyKeys) =>
      fc
        .string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz_-ABCXYZ 0123'), maxLength: 20 })
        .filter((key) =>
          [...keys.writable, ...keys.readOnly].every((field) => {
            const fieldForm = normalFieldName(field);
            return referenceDistance(normalFieldName(key), fieldForm) > editsAllowed(fieldForm);
          }),
        );
    fc.assert(
      fc.property(
        body.chain(([, schema, valid]) => farKey(keysOf(schema)).map((key) => ({ schema, valid, key }))),
        fc.jsonValue({ maxDepth: 2 }),
        ({ schema, valid, key }, value) => {
          expect(probableField(key, keysOf(schema))).toBeUndefined();
          const input = JSON.parse(JSON.stringify({ ...valid, [key]: value }));
          expect(validate(schema, input)).toEqual(validate(schema, valid));
        },
      ),
      { seed: 2803, numRuns: 2000 },
    );
  });
});

describe('the size of the answer', () => {
  it('takes no key of more than 64 characters for a misspelling, however it normalises', () => {
    expect(probableField(`primary${'_'.repeat(52)}color`, BRAND)).toBe('primary_color');
    expect(probableField(`primary${'_'.repeat(53)}color`, BRAND)).toBeUndefined();
  });

  it('names the first 20 misspellings of a body, and of a social links map', () => {
    // Every spelling of `name` in upper and lower case letters: 16, and as many of `tags`.
    const cases = (field: string) =>
      Array.from({ length: 2 ** field.length }, (_, bits) =>
        [...field].map((c, i) => ((bits >> i) & 1 ? c.toUpperCase() : c)).join(''),
      ).slice(1);
    const keys = [...cases('name'), ...cases('tags')];
    expect(keys).toHaveLength(30);
    const result = refusal(() => validate(createBrandSchema, Object.fromEntries(keys.map((k) => [k, 'x']))));
    expect(Object.keys(result.errors)).toEqual([...keys.slice(0, 20), 'name']);
    const links = Object.fromEntries(cases('github').map((k) => [k, 'https://github.com/acme']));
    const nested = refusal(() => validate(createBrandSchema, { name: 'A', social_links: links }));
    expect(Object.keys(nested.errors).filter((key) => key.startsWith('social_links.'))).toHaveLength(20);
  });
});

describe('the blind contact field update', () => {
  it('is not taken for a body with a misspelled key, which the read-then-validate path refuses', () => {
    expect(blindRevision({ name: 'New' })).toBeDefined();
    expect(blindRevision({ name: 'New', foo: 1, contactType: 'person' })).toBeDefined();
    expect(blindRevision({ name: 'New', maxLength: 10 })).toBeUndefined();
    expect(blindRevision({ Name: 'New' })).toBeUndefined();
  });
});
