/** The ten contact field types, in the spec's order (section 2.3), with their display names. */
export const CONTACT_FIELD_TYPES = [
  { value: 'text', name: 'Text' },
  { value: 'email', name: 'Email' },
  { value: 'phone', name: 'Phone' },
  { value: 'number', name: 'Number' },
  { value: 'date', name: 'Date' },
  { value: 'datetime', name: 'Datetime' },
  { value: 'boolean', name: 'True / False' },
  { value: 'url', name: 'URL' },
  { value: 'pick_list', name: 'Pick List' },
  { value: 'related', name: 'Related Contact/Organization' },
] as const;

export type ContactFieldType = (typeof CONTACT_FIELD_TYPES)[number]['value'];

export const CONTACT_FIELD_TYPE_VALUES = CONTACT_FIELD_TYPES.map((type) => type.value) as [
  ContactFieldType,
  ...ContactFieldType[],
];

export const CONTACT_TYPES = ['person', 'organization'] as const;
export type ContactType = (typeof CONTACT_TYPES)[number];

/** A field's max_length when none is given (spec section 8). */
export const DEFAULT_MAX_LENGTH = 255;
