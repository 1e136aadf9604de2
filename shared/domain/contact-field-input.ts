import * as z from 'zod/mini';
import { LIMITS } from '../limits.ts';
import {
  CONTACT_FIELD_FIELDS,
  type ContactFieldDefinition,
  type ContactFieldKind,
  CREATE_ONLY_CONTACT_FIELDS,
  READ_ONLY_CONTACT_FIELDS,
  UPDATED_CONTACT_FIELDS,
  type UpdatedContactField,
  WRITTEN_CONTACT_FIELDS,
  type WrittenContactField,
} from './contact-field.ts';
import { CONTACT_FIELD_TYPE_VALUES, CONTACT_TYPES, DEFAULT_MAX_LENGTH } from './contact-field-types.ts';
import { bodyKeysOf, misspelledKeys, requestBody } from './misspelled-keys.ts';
import { validate } from './validation.ts';

/**
 * The rules of a contact field definition (spec 2.3, 4.3). They hold for the RESULT of a write: a create's
 * body, or an update's body merged onto the stored field, so an update can never leave a pick_list without
 * options or options on a text field.
 */

export const TAG_PATTERN = /^[a-z][a-z0-9_]*$/;
const TAG_FORMAT =
  'The tag field must start with a lowercase letter and contain only lowercase letters, digits and underscores.';

const nameSchema = z.string().check(z.trim(), z.minLength(1), z.maxLength(LIMITS.textLength));
// The pattern is a refinement (for its message); the metadata says it in the OpenAPI document.
const tagSchema = z
  .string()
  .check(
    z.minLength(1, { abort: true }),
    z.maxLength(LIMITS.textLength),
    z.refine((tag) => TAG_PATTERN.test(tag), { message: TAG_FORMAT }),
  )
  .register(z.globalRegistry, { pattern: TAG_PATTERN.source });
// A string first: zod reports a missing enum as an invalid value, not as a missing field.
const typeSchema = z.pipe(z.string(), z.enum(CONTACT_FIELD_TYPE_VALUES));
const maxLengthSchema = z.int().check(z.minimum(1));
// Count, length and total bytes together keep a field item below DynamoDB's 400 KB (limits.ts).
const optionsSchema = z
  .array(z.string().check(z.trim(), z.minLength(1), z.maxLength(LIMITS.contactFieldOptionLength)))
  .check(
    z.maxLength(LIMITS.contactFieldOptions),
    z.superRefine((options, ctx) => {
      const bytes = options.reduce((sum, option) => sum + Buffer.byteLength(option), 0);
      if (bytes > LIMITS.contactFieldOptionsBytes) {
        ctx.addIssue({
          code: 'custom',
          message: `The options field must not be greater than ${LIMITS.contactFieldOptionsBytes} bytes in all, UTF-8 encoded.`,
        });
      }
      options.forEach((option, index) => {
        if (options.indexOf(option) !== index)
          ctx.addIssue({
            code: 'custom',
            path: [index],
            message: `The options.${index} field has a duplicate value.`,
          });
      });
    }),
  );

/** An empty options array means "no options", like null. */
const noneIfEmpty = (options: string[] | null | undefined) => (options?.length ? options : null);

function checkTypeRules(
  field: Pick<ContactFieldDefinition, 'type' | 'options' | 'allow_multiple'>,
  ctx: z.core.$RefinementCtx,
): void {
  const fail = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (field.type === 'pick_list') {
    if (!field.options) fail('options', 'The options field is required when type is pick_list.');
    return;
  }
  if (field.options) fail('options', 'The options field is only allowed when type is pick_list.');
  if (field.allow_multiple)
    fail('allow_multiple', 'The allow multiple field may only be true when type is pick_list.');
}

/**
 * The rules of each kind a body writes (domain/contact-field.ts declares each field's kind): the POST
 * body's, and the PUT body's for a kind a PUT may change.
 */
const KIND_RULES = {
  name: { create: () => nameSchema, update: () => z.optional(nameSchema) },
  tag: { create: () => tagSchema, update: () => z.optional(tagSchema) },
  type: { create: () => typeSchema, update: () => z.optional(typeSchema) },
  contact_type: { create: () => z.pipe(z.string(), z.enum(CONTACT_TYPES)) },
  max_length: {
    create: () =>
      z.pipe(
        z.nullish(maxLengthSchema),
        z.transform((value) => value ?? DEFAULT_MAX_LENGTH),
      ),
    update: () => z.nullish(maxLengthSchema),
  },
  options: {
    create: () => z.pipe(z.nullish(optionsSchema), z.transform(noneIfEmpty)),
    update: () => z.nullish(optionsSchema),
  },
  flag: { create: () => z._default(z.boolean(), false), update: () => z.optional(z.boolean()) },
} satisfies Partial<Record<ContactFieldKind, { create: () => z.ZodMiniType; update?: () => z.ZodMiniType }>>;

type RulesOf<F extends WrittenContactField> = (typeof KIND_RULES)[(typeof CONTACT_FIELD_FIELDS)[F]['kind']];
type CreateShape = { [F in WrittenContactField]: ReturnType<RulesOf<F>['create']> };
type UpdateShape = {
  [F in UpdatedContactField]: RulesOf<F> extends { update: () => infer S } ? S : never;
};

function shapeOf(rule: 'create' | 'update', fields: readonly WrittenContactField[]) {
  const shape: Record<string, z.ZodMiniType> = {};
  for (const field of fields) {
    const rules: { create: () => z.ZodMiniType; update?: () => z.ZodMiniType } =
      KIND_RULES[CONTACT_FIELD_FIELDS[field].kind as keyof typeof KIND_RULES];
    const make = rules[rule];
    if (make) shape[field] = make();
  }
  return shape;
}

/** POST body; defaults applied (max_length 255, allow_multiple false). */
export const newContactFieldSchema = requestBody(
  z.object(shapeOf('create', WRITTEN_CONTACT_FIELDS) as CreateShape).check(z.superRefine(checkTypeRules)),
  READ_ONLY_CONTACT_FIELDS,
);

/** PUT body: any subset; `contact_type` and read-only fields are not part of it (and so are ignored). */
export const contactFieldPatchSchema = requestBody(
  z.object(shapeOf('update', UPDATED_CONTACT_FIELDS) as UpdateShape),
  [...READ_ONLY_CONTACT_FIELDS, ...CREATE_ONLY_CONTACT_FIELDS],
);

const typeRulesSchema = z
  .object({ type: typeSchema, options: z.nullable(z.array(z.string())), allow_multiple: z.boolean() })
  .check(z.superRefine(checkTypeRules));

/**
 * What a PUT body writes when it can be applied without reading the stored field first, and what it then
 * requires of that field (the write's condition): the same result `reviseContactField` would compute,
 * valid whatever else the field holds. Undefined when the body is not a valid patch (the field is read
 * first, so that 403 and 404 come before 422) or when its result depends on more than these conditions.
 */
export interface BlindRevision {
  set: Partial<ContactFieldDefinition>;
  /** The stored tag must be this one (a tag change needs a transaction). */
  tag?: string;
  /** The stored type must be pick_list, or must not be. */
  pickList?: boolean;
  /** The stored field must have options (it stays a pick list without new ones). */
  hasOptions?: boolean;
}

export function blindRevision(body: unknown): BlindRevision | undefined {
  const parsed = contactFieldPatchSchema.safeParse(body ?? {});
  if (!parsed.success) return undefined;
  const keys = bodyKeysOf(contactFieldPatchSchema);
  if (keys && misspelledKeys(body, keys).length > 0) return undefined; // a 422, after the read
  const patch = parsed.data;
  const options = patch.options === undefined ? undefined : noneIfEmpty(patch.options);
  const set: Partial<ContactFieldDefinition> = {};
  const revision: BlindRevision = { set };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.max_length !== undefined) set.max_length = patch.max_length ?? DEFAULT_MAX_LENGTH;
  if (patch.tag !== undefined) revision.tag = patch.tag;
  if (patch.type !== undefined && patch.type !== 'pick_list') {
    // Leaving (or staying off) a pick list drops options and multiple choice; sending them is a 422.
    if (options || patch.allow_multiple) return undefined;
    Object.assign(set, { type: patch.type, options: null, allow_multiple: false });
    return revision;
  }
  if (patch.type === 'pick_list') set.type = 'pick_list';
  else if (options !== undefined) revision.pickList = options !== null;
  if (options === null && patch.type === 'pick_list') return undefined; // a pick list without options
  if (options !== undefined) set.options = options;
  else if (patch.type === 'pick_list') revision.hasOptions = true;
  if (patch.allow_multiple !== undefined) {
    set.allow_multiple = patch.allow_multiple;
    if (patch.allow_multiple && patch.type === undefined) {
      if (revision.pickList === false) return undefined;
      revision.pickList = true;
    }
  }
  return revision;
}

/**
 * Applies a PUT body to the stored definition and checks the result. A type change away from pick_list
 * drops the options and the multiple choice that belonged to the old type, unless the body sends options
 * (then it is a 422). `max_length: null` restores the default.
 */
export function reviseContactField(current: ContactFieldDefinition, body: unknown): ContactFieldDefinition {
  const patch = validate(contactFieldPatchSchema, body ?? {});
  const leavesPickList = patch.type !== undefined && patch.type !== 'pick_list';
  const revised: ContactFieldDefinition = {
    name: patch.name ?? current.name,
    tag: patch.tag ?? current.tag,
    type: patch.type ?? current.type,
    max_length:
      patch.max_length === undefined ? current.max_length : (patch.max_length ?? DEFAULT_MAX_LENGTH),
    options:
      patch.options !== undefined ? noneIfEmpty(patch.options) : leavesPickList ? null : current.options,
    allow_multiple: patch.allow_multiple ?? (leavesPickList ? false : current.allow_multiple),
  };
  validate(typeRulesSchema, revised);
  return revised;
}
