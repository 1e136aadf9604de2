import { type FieldsWith, fieldsWhere as pick, type ValuesOf } from './entity-fields.ts';
/**
 * A brand's fields, declared once, in the order of spec 2.1 (the order of every brand the API answers).
 * The data module's stored and image fields, the request bodies' rules (brand-input.ts), the OpenAPI
 * schemas (lib/openapi/representations.ts), auto-configure's suggestions and the types below are all
 * derived from this table; docs/adding-a-field.md says how to add a field.
 *
 * - `kind`: what the value is (each kind has one rule for requests and one schema for the document).
 * - `written`: a create or update body writes it; the others are the API's own (read-only).
 * - `stored`: the brand's item keeps it as written (`is_default` is written but kept by the pointer).
 * - `identity`: an identity id names a verified identity of this type, checked when written.
 * - `suggested`: auto-configure suggests it; the number is its place in the suggestions (the site's
 *   address, where everything else was read, comes first).
 */
export const BRAND_FIELDS = {
  id: { kind: 'id' },
  team_id: { kind: 'id' },
  name: { kind: 'name', written: true, stored: true, suggested: 2 },
  short_description: { kind: 'text', written: true, stored: true, suggested: 3 },
  website_url: { kind: 'url', written: true, stored: true, suggested: 1 },
  primary_color: { kind: 'color', written: true, stored: true, suggested: 4 },
  secondary_color: { kind: 'color', written: true, stored: true, suggested: 5 },
  is_default: { kind: 'flag', written: true },
  logo_image: { kind: 'image', written: true, stored: true, suggested: 6 },
  logo_square_image: { kind: 'image', written: true, stored: true, suggested: 7 },
  header_image: { kind: 'image', written: true, stored: true, suggested: 8 },
  footer_image: { kind: 'image', written: true, stored: true, suggested: 9 },
  social_share_image: { kind: 'image', written: true, stored: true, suggested: 10 },
  email_address_id: { kind: 'identity', written: true, stored: true, identity: 'email' },
  phone_id: { kind: 'identity', written: true, stored: true, identity: 'phone' },
  social_links: { kind: 'social_links', written: true, stored: true, suggested: 11 },
  tags: { kind: 'tags', written: true, stored: true },
  created_at: { kind: 'timestamp' },
  updated_at: { kind: 'timestamp' },
} as const satisfies Record<string, BrandFieldSpec>;

/** The value each kind holds in a brand as the API answers it. */
export interface BrandKindValues {
  id: number;
  name: string;
  text: string | null;
  url: string | null;
  color: string | null;
  flag: boolean;
  /** A URL; written also as a library path, by the `_path` twin of the field. */
  image: string | null;
  identity: number | null;
  social_links: Record<string, string> | null;
  tags: string[];
  timestamp: string;
}

export type BrandFieldKind = keyof BrandKindValues;

export interface BrandFieldSpec {
  kind: BrandFieldKind;
  written?: true;
  stored?: true;
  identity?: 'email' | 'phone';
  suggested?: number;
}

type Fields = typeof BRAND_FIELDS;
type With<Flag extends keyof BrandFieldSpec, Value = unknown> = FieldsWith<Fields, Flag, Value>;

/** A brand as the API answers it. */
export type Brand = ValuesOf<Fields, BrandKindValues>;
export type BrandField = keyof Brand;
export type StoredBrandField = With<'stored'>;
export type WrittenBrandField = With<'written'>;
export type ImageUrlField = With<'kind', 'image'>;
export type ImagePathField = `${ImageUrlField}_path`;
export type IdentityField = With<'identity'>;
export type SuggestedBrandField = With<'suggested'>;

/** What a client writes that the brand's item keeps. */
export type BrandFields = Pick<Brand, StoredBrandField>;
export type NewBrand = Pick<BrandFields, 'name'> & Partial<BrandFields> & { is_default?: boolean };
export type BrandChanges = Partial<Pick<Brand, WrittenBrandField>>;

const entries = Object.entries(BRAND_FIELDS) as Array<[BrandField, BrandFieldSpec]>;
const fieldsWhere = <F extends BrandField>(test: (spec: BrandFieldSpec) => boolean): F[] =>
  pick<BrandField, BrandFieldSpec, F>(BRAND_FIELDS, test);

/** Every field, in the answer's order. */
export const BRAND_FIELD_NAMES: readonly BrandField[] = entries.map(([field]) => field);
/** The fields a brand item stores as written; `is_default` is the pointer's, never the brand's. */
export const STORED_BRAND_FIELDS = fieldsWhere<StoredBrandField>((spec) => spec.stored === true);
/** The fields a create or update body writes. */
export const WRITTEN_BRAND_FIELDS = fieldsWhere<WrittenBrandField>((spec) => spec.written === true);
/** What a brand answers beyond what its bodies write: a brand read and sent back carries them. */
export const READ_ONLY_BRAND_FIELDS = fieldsWhere((spec) => spec.written !== true);
/** The image slots' URL fields: a key of the public library or a URL as stored, a URL as answered. */
export const IMAGE_FIELDS = fieldsWhere<ImageUrlField>((spec) => spec.kind === 'image');
/** The image slots: a URL stored as given, or a library path promoted to a public URL. */
export const IMAGE_SLOTS = IMAGE_FIELDS.map((url) => ({ url, path: `${url}_path` as ImagePathField }));
/** The identity ids, each with the type of verified identity it must name. */
export const IDENTITY_FIELDS = entries.flatMap(([field, spec]) =>
  spec.identity ? [{ field: field as IdentityField, identity: spec.identity }] : [],
);
/** Every field auto-configure suggests but social_links, in the answer's order. */
export const SUGGESTED_FIELDS = entries
  .filter(([, spec]) => spec.suggested !== undefined && spec.kind !== 'social_links')
  .sort(([, a], [, b]) => (a.suggested ?? 0) - (b.suggested ?? 0))
  .map(([field]) => field as Exclude<SuggestedBrandField, 'social_links'>);

/** The kind of a field. */
export const brandFieldKind = (field: BrandField): BrandFieldKind => BRAND_FIELDS[field].kind;

/** What a brand answers for a field its item lacks (a field added after the item was written). */
export function emptyBrandValue(kind: BrandFieldKind): BrandKindValues[BrandFieldKind] | undefined {
  if (kind === 'tags') return [];
  if (kind === 'flag') return false;
  // id, name and timestamps are always there: written with the brand.
  return kind === 'id' || kind === 'name' || kind === 'timestamp' ? undefined : null;
}
