import { expect } from 'vitest';
import { LIMITS } from '../../shared/limits.ts';
import type { ApiClient } from './api.ts';

/** The URL of a response's `Link: <…>; rel="next"`, if any. */
export function nextLink(headers: Headers): string | undefined {
  const link = headers.get('link');
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  if (!match) throw new Error(`not a next link: ${link}`);
  return match[1];
}

/** The test client takes a path: the Link's URL without its origin (which must be the API's). */
export function pathOf(apiUrl: string, url: string): string {
  expect(url.startsWith(`${apiUrl}/`), url).toBe(true);
  return url.slice(apiUrl.length);
}

/**
 * Follows the Link headers from `first` until the last page, running `during` after each page: every item
 * and the number of pages. Each page holds at most the limit (the page size without one), and only the
 * last may hold fewer.
 */
export async function walkPages<T>(
  apiUrl: string,
  client: ApiClient,
  first: string,
  during?: () => Promise<void>,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  const limit = Number(new URL(first, apiUrl).searchParams.get('limit') ?? LIMITS.listPageSize);
  let path: string | undefined = first;
  let pages = 0;
  while (path) {
    const response = await client.get(path);
    expect(response.status, response.text).toBe(200);
    expect(response.body.length).toBeLessThanOrEqual(limit);
    items.push(...response.body);
    pages++;
    const next = nextLink(response.headers);
    if (next) expect(response.body.length, 'only the last page may be short').toBe(limit);
    path = next && pathOf(apiUrl, next);
    await during?.();
  }
  return { items, pages };
}
