/**
 * What the declarations of an entity's fields (brand.ts, contact-field.ts) share: each is a table of field
 * name to a spec of its kind and flags, in the order the API answers the fields.
 */

/** The names of the fields whose spec has `Flag`, of `Value` if given. */
export type FieldsWith<Fields, Flag extends PropertyKey, Value = unknown> = {
  [F in keyof Fields]: Fields[F] extends { readonly [K in Flag]: Value } ? F : never;
}[keyof Fields];

/** The value each field holds: its kind's, by the table of kinds to values. */
export type ValuesOf<Fields extends Record<string, { kind: keyof Values }>, Values> = {
  -readonly [F in keyof Fields]: Values[Fields[F]['kind']];
};

/** The names of the fields whose spec passes `test`, in the declaration's order. */
export function fieldsWhere<Name extends string, Spec, Picked extends Name = Name>(
  declaration: Record<Name, Spec>,
  test: (spec: Spec) => boolean,
): Picked[] {
  return (Object.entries(declaration) as Array<[Name, Spec]>)
    .filter(([, spec]) => test(spec))
    .map(([field]) => field as Picked);
}
