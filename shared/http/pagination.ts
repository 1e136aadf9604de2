import { ValidationError } from '../domain/errors.ts';
import type { ListPage, PageOptions } from '../domain/pagination.ts';
import { LIMITS } from '../limits.ts';
import { type CursorScope, decodeCursor, encodeCursor, type Filters, givenFilters } from './cursors.ts';
import { type ApiRequest, type ApiResponse, ok, requestUrl } from './handler.ts';
import type { Dictionary } from './request-data.ts';

/**
 * `limit` and `cursor` of the paged lists (README, "Pagination"): the page a request asks for, and the
 * answer with a `Link: <…>; rel="next"` to the page after it. The next page's URL is the request's own
 * (scheme, host, stage and path as the caller used them) and repeats the filters and the limit, so
 * following it verbatim continues the same walk.
 */
export interface Paging<K> {
  scope: CursorScope;
  options: PageOptions<K>;
  /** Whether the request gave `limit` (the Link then repeats it; a default page size is not repeated). */
  limitGiven: boolean;
}

/**
 * The page asked for: `filters` in their canonical form (what the Link repeats and the cursor is bound
 * to), and the request's `limit` and `cursor`. A cursor that is not this list's, team's and filters' is a
 * 400. Without `limit` a list answers all of it, unless it has a `defaultLimit` (the events: a log is
 * never answered whole), which is then the page size, with a Link while more follow.
 */
export function requestedPage<K>(
  req: ApiRequest,
  list: string,
  filters: Filters,
  isPosition: (position: unknown) => position is K,
  defaultLimit?: number,
): Paging<K> {
  const query = pageQuery(req.query);
  const scope = { list, teamId: req.teamId, filters };
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, scope, isPosition);
  return {
    scope,
    options: { limit: query.limit ?? defaultLimit, after },
    limitGiven: query.limit !== undefined,
  };
}

/** 200 with the page's items as an array (the spec's body), and a Link when another page follows. */
export function pageResponse<T, K>(
  req: ApiRequest,
  { scope, options, limitGiven }: Paging<K>,
  page: ListPage<T, K>,
  view: (item: T) => unknown = (item) => item,
): ApiResponse {
  const response = ok(page.items.map(view));
  if (page.next === undefined || options.limit === undefined) return response;
  const query = new URLSearchParams();
  for (const [name, values] of givenFilters(scope.filters))
    for (const value of values) query.append(name, value);
  if (limitGiven) query.set('limit', String(options.limit));
  query.set('cursor', encodeCursor(scope, page.next));
  // The caller's own path (`…/webhook-endpoints/42/attempts`), not the route's `{id}` template.
  const next = `${requestUrl(req)}?${query}`;
  return { ...response, headers: { Link: `<${next}>; rel="next"` } };
}

/**
 * `limit` (an integer from 1 to the page size, given once) and `cursor` (given once; twice is no cursor
 * this API issued, read as an empty one, which the cursor check refuses). Read without zod, so that a list
 * with no filters (brands) does not load it: the cold start budget.
 */
function pageQuery(query: Dictionary<string[]>): { limit?: number; cursor?: string } {
  const cursor = query.cursor && (query.cursor.length === 1 ? (query.cursor[0] as string) : '');
  if (query.limit === undefined) return { cursor };
  const [text = ''] = query.limit;
  const limit = Number(text);
  if (query.limit.length !== 1 || !/^[0-9]+$/.test(text) || limit < 1 || limit > LIMITS.listPageSize) {
    throw ValidationError.single(
      'limit',
      `The limit field must be an integer from 1 to ${LIMITS.listPageSize}.`,
    );
  }
  return { limit, cursor };
}
