/**
 * Keyset pagination of the lists: a page is what follows a position in the list's order, so a walk stays
 * stable while others write (no item twice, none that existed throughout skipped). `K` is the sort key of
 * one item (its position); the caller gets the position of the last item it was given as the next cursor.
 */
export interface PageOptions<K> {
  /** At most this many items; undefined: all of them (the lists' answer without `limit`). */
  limit?: number;
  /** Only items after this position. */
  after?: K;
}

export interface ListPage<T, K> {
  items: T[];
  /** The position of the last item, when more items follow it. */
  next?: K;
}

/** The page of `sorted` (in the list's order) after `after`: `compare(item, key) > 0` means item is after key. */
export function pageOfSorted<T, K>(
  sorted: readonly T[],
  { limit, after }: PageOptions<K>,
  positionOf: (item: T) => K,
  compare: (item: T, position: K) => number,
): ListPage<T, K> {
  const start = after === undefined ? 0 : sorted.findIndex((item) => compare(item, after) > 0);
  const rest = start < 0 ? [] : sorted.slice(start);
  if (limit === undefined || rest.length <= limit) return { items: rest };
  const items = rest.slice(0, limit);
  return { items, next: positionOf(items[items.length - 1] as T) };
}
