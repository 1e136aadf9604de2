import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import { type ItemPage, queryAll, queryPage, queryPages } from '../../../shared/data/items.ts';
import { roundTrips } from '../../support/round-trips.ts';

/**
 * The paging helper every paged read goes through: pages from a start, each at its Limit (which may grow,
 * or end the reading), read only when asked for, so that a caller that stops early reads no more.
 */
const pk = `PAGING#${randomUUID()}`;
const ITEMS = 10;
const sortKey = (n: number) => `ITEM#${String(n).padStart(2, '0')}`;
const query = {
  get TableName() {
    return tableName();
  },
  KeyConditionExpression: 'pk = :pk',
  ExpressionAttributeValues: { ':pk': pk },
  ConsistentRead: true,
};
const sortKeys = (page: ItemPage) => page.items.map((item) => item.sk);

async function collect(pages: AsyncGenerator<ItemPage>): Promise<ItemPage[]> {
  const all: ItemPage[] = [];
  for await (const page of pages) all.push(page);
  return all;
}

beforeAll(async () => {
  await dynamo().send(
    new BatchWriteCommand({
      RequestItems: {
        [tableName()]: Array.from({ length: ITEMS }, (_, n) => ({
          PutRequest: { Item: { pk, sk: sortKey(n) } },
        })),
      },
    }),
  );
});

describe('the paging helper', () => {
  it('reads every page at the Limit given, one Query each, and says where the next starts', async () => {
    const { result: pages, calls } = await roundTrips(() => collect(queryPages(query, { limit: 3 })));
    expect(pages.map((page) => page.items.length)).toEqual([3, 3, 3, 1]);
    expect(pages.map((page) => page.next?.sk)).toEqual([sortKey(2), sortKey(5), sortKey(8), undefined]);
    expect(calls).toEqual(Array(4).fill('QueryCommand'));
  });

  it('reads no further page once the caller stops', async () => {
    const { result, calls } = await roundTrips(async () => {
      for await (const page of queryPages(query, { limit: 2 })) return sortKeys(page);
    });
    expect(result).toEqual([sortKey(0), sortKey(1)]);
    expect(calls).toEqual(['QueryCommand']);
  });

  it('grows each page by nextLimit, and ends the reading when it gives 0', async () => {
    const growing = await collect(queryPages(query, { limit: 1, nextLimit: (limit) => limit * 2 }));
    expect(growing.map((page) => page.items.length)).toEqual([1, 2, 4, 3]);
    // A budget of 5 items read: the pages stop there, the last one saying where to go on.
    const budgeted = await collect(
      queryPages(query, { limit: 2, nextLimit: (limit, read) => Math.min(limit * 2, 5 - read) }),
    );
    expect(budgeted.map(sortKeys)).toEqual([
      [sortKey(0), sortKey(1)],
      [sortKey(2), sortKey(3), sortKey(4)],
    ]);
    expect(budgeted.at(-1)?.next?.sk).toBe(sortKey(4));
  });

  it('starts after `start`, one page of a list or all that follows', async () => {
    const start = { pk, sk: sortKey(6) };
    expect(sortKeys(await queryPage(query, { start, limit: 2 }))).toEqual([sortKey(7), sortKey(8)]);
    expect((await queryAll(query, { start })).map((item) => item.sk)).toEqual([
      sortKey(7),
      sortKey(8),
      sortKey(9),
    ]);
  });

  it('hands over what a page counted and read', async () => {
    const [counted] = await collect(queryPages({ ...query, Select: 'COUNT' }));
    expect(counted).toMatchObject({ items: [], count: ITEMS, scanned: ITEMS });
  });
});
