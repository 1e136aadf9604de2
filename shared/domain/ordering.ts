let collator: Intl.Collator | undefined;

/**
 * Alphabetical as people read it (case- and accent-insensitive), ties by id. The collator is made on first
 * use: building one costs milliseconds that a cold start of a function which never sorts should not pay.
 */
export function byNameThenId(a: { name: string; id: number }, b: { name: string; id: number }): number {
  collator ??= new Intl.Collator('en', { sensitivity: 'base' });
  return collator.compare(a.name, b.name) || a.id - b.id;
}

/** Where an item stands in a list ordered by name then id: the cursor's position in such a list. */
export type NamePosition = [name: string, id: number];

export const namePositionOf = (item: { name: string; id: number }): NamePosition => [item.name, item.id];

/** Above zero when the item comes after the position in byNameThenId's order. */
export const compareToNamePosition = (item: { name: string; id: number }, [name, id]: NamePosition): number =>
  byNameThenId(item, { name, id });

export const isNamePosition = (position: unknown): position is NamePosition =>
  Array.isArray(position) &&
  position.length === 2 &&
  typeof position[0] === 'string' &&
  Number.isSafeInteger(position[1]);

/** A position in a list ordered by id: the id of the last item returned. */
export const isIdPosition = (position: unknown): position is number =>
  Number.isSafeInteger(position) && (position as number) > 0;
