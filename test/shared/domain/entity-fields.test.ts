import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { components } from '../../../client/index.ts';
import { shapeOf } from '../../../shared/data/brand-items.ts';
import { contactFieldListView, contactFieldView } from '../../../shared/data/contact-fields.ts';
import {
  BRAND_FIELD_NAMES,
  BRAND_FIELDS,
  type Brand,
  type BrandChanges,
  IMAGE_SLOTS,
  STORED_BRAND_FIELDS,
  SUGGESTED_FIELDS,
  WRITTEN_BRAND_FIELDS,
} from '../../../shared/domain/brand.ts';
import { createBrandSchema, updateBrandSchema } from '../../../shared/domain/brand-input.ts';
import {
  ANSWERED_CONTACT_FIELDS,
  CONTACT_FIELD_FIELDS,
  CONTACT_FIELD_NAMES,
  type ContactField,
  type ContactFieldListView,
  type ContactFieldView,
  LISTED_CONTACT_FIELDS,
  UPDATED_CONTACT_FIELDS,
  WRITTEN_CONTACT_FIELDS,
} from '../../../shared/domain/contact-field.ts';
import {
  contactFieldPatchSchema,
  newContactFieldSchema,
} from '../../../shared/domain/contact-field-input.ts';
import { ROOT } from '../../support/processes.ts';

/**
 * Each entity's fields are declared once (shared/domain/brand.ts, shared/domain/contact-field.ts) and the
 * rest is derived; these tests fail when a step of docs/adding-a-field.md was missed. The type checks run
 * in `tsc --noEmit`: a declaration and the generated client (`npm run openapi`) that disagree do not compile.
 */

type Schemas = components['schemas'];
type JsonSchema = { properties: Record<string, unknown> };
const document = JSON.parse(readFileSync(join(ROOT, 'shared/openapi/openapi.json'), 'utf8')) as {
  components: { schemas: Record<string, JsonSchema> };
};
const propertiesOf = (name: string) => Object.keys(document.components.schemas[name]?.properties ?? {});
const bodyKeysOf = (schema: { _zod: { def: { shape: object } } }) => Object.keys(schema._zod.def.shape);

/** Every test file's text but this one's: a field no other test names has no test. */
const otherTests = (function read(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : read(path);
    const own = relative(ROOT, path) === 'test/shared/domain/entity-fields.test.ts';
    return !own && /\.ts$/.test(entry.name) ? [readFileSync(path, 'utf8')] : [];
  });
})(join(ROOT, 'test'));
const untested = (fields: readonly string[]) =>
  fields.filter((field) => !otherTests.some((text) => text.includes(field)));

describe('a brand’s declared fields', () => {
  it('are the OpenAPI document’s Brand, in the order answered, with the same types', () => {
    expectTypeOf<Brand>().toEqualTypeOf<Schemas['Brand']>();
    expectTypeOf<BrandChanges>().toExtend<Partial<Schemas['Brand']>>();
    expect(propertiesOf('Brand')).toEqual([...BRAND_FIELD_NAMES]);
  });

  it('are what a brand answers from its item, stored fields as stored', () => {
    const item = Object.fromEntries(BRAND_FIELD_NAMES.map((field) => [field, `${field} value`]));
    const brand = shapeOf({ ...item, id: 7 }, 7) as unknown as Record<string, unknown>;
    expect(Object.keys(brand)).toEqual([...BRAND_FIELD_NAMES]);
    for (const field of STORED_BRAND_FIELDS) expect(brand[field]).toBe(`${field} value`);
    expect(brand.is_default).toBe(true);
  });

  it('are written by the create and update bodies when declared written, images also by path', () => {
    const written = [...WRITTEN_BRAND_FIELDS, ...IMAGE_SLOTS.map(({ path }) => path)];
    expect(bodyKeysOf(createBrandSchema).sort()).toEqual(written.sort());
    expect(bodyKeysOf(updateBrandSchema).sort()).toEqual(written.sort());
    expect(STORED_BRAND_FIELDS.every((field) => BRAND_FIELDS[field].written)).toBe(true);
  });

  it('are suggested by auto-configure as the document’s BrandSuggestions says', () => {
    const suggestions = document.components.schemas.BrandSuggestions?.properties.suggestions as JsonSchema;
    expect(Object.keys(suggestions.properties)).toEqual([...SUGGESTED_FIELDS, 'social_links']);
  });

  it('each have a test that names them', () => {
    expect(untested([...BRAND_FIELD_NAMES, ...IMAGE_SLOTS.map(({ path }) => path)])).toEqual([]);
  });
});

describe('a contact field’s declared fields', () => {
  it('are the OpenAPI document’s ContactField and ContactFieldListItem, with the same types', () => {
    expectTypeOf<ContactFieldView>().toEqualTypeOf<Schemas['ContactField']>();
    expectTypeOf<ContactFieldListView>().toEqualTypeOf<Schemas['ContactFieldListItem']>();
    expect(propertiesOf('ContactField').sort()).toEqual([...ANSWERED_CONTACT_FIELDS].sort());
    expect(propertiesOf('ContactFieldListItem')).toEqual([...LISTED_CONTACT_FIELDS]);
  });

  it('are answered in the declaration’s order, lists leaving out what they do not list', () => {
    const field = Object.fromEntries(
      CONTACT_FIELD_NAMES.map((name) => [name, `${name} value`]),
    ) as unknown as ContactField;
    expect(Object.keys(contactFieldView(field))).toEqual([...ANSWERED_CONTACT_FIELDS]);
    expect(Object.keys(contactFieldListView(field))).toEqual([...LISTED_CONTACT_FIELDS]);
  });

  it('are written by the POST body when declared written, by the PUT body unless set once', () => {
    expect(bodyKeysOf(newContactFieldSchema)).toEqual([...WRITTEN_CONTACT_FIELDS]);
    expect(bodyKeysOf(contactFieldPatchSchema)).toEqual([...UPDATED_CONTACT_FIELDS]);
    expect(Object.keys(CONTACT_FIELD_FIELDS)).toEqual([...CONTACT_FIELD_NAMES]);
  });

  it('each have a test that names them', () => {
    expect(untested(CONTACT_FIELD_NAMES)).toEqual([]);
  });
});
