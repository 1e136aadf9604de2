import { GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  byNameThenId,
  compareToNamePosition,
  type NamePosition,
  namePositionOf,
} from '../domain/ordering.ts';
import { type ListPage, type PageOptions, pageOfSorted } from '../domain/pagination.ts';
import { dynamo, nowIso, tableName } from './dynamo.ts';
import { nextId } from './ids.ts';
import { queryAll } from './items.ts';
import { idIndexKeys, PAGE_PREFIX, pageKey, siteKey, teamPk } from './keys.ts';
import { takeQuota, throwIfQuotaReached } from './quotas.ts';
import { beforeRetry, LabelledTransaction } from './transactions.ts';

/**
 * CMS pages (read-only in the API). Each page item carries its site's name and domain, so listing a team's
 * pages is one Query (sites are not renamed through any endpoint).
 */
export interface PageItem {
  id: number;
  team_id: number;
  site_id: number;
  site_name: string;
  site_domain: string;
  name: string;
  url: string;
  created_at: string;
  updated_at: string;
}

/** Creates a page on one of the team's sites; undefined when the team has no such site. */
export async function createPage(
  teamId: number,
  siteId: number,
  name: string,
  url: string,
): Promise<PageItem | undefined> {
  const { Item: site } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: siteKey(teamId, siteId), ConsistentRead: true }),
  );
  if (!site) return undefined;
  const now = nowIso();
  const page: PageItem = {
    id: await nextId('page'),
    team_id: teamId,
    site_id: siteId,
    site_name: site.name,
    site_domain: site.domain,
    name,
    url,
    created_at: now,
    updated_at: now,
  };
  const transaction = new LabelledTransaction().add('page', {
    Put: {
      TableName: tableName(),
      Item: { ...pageKey(teamId, page.id), ...idIndexKeys('PAGE', page.id), ...page },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });
  takeQuota(transaction, teamId, 'pages');
  for (let attempt = 1; ; attempt++) {
    const cancellation = await transaction.commit();
    if (!cancellation) return page;
    throwIfQuotaReached(cancellation, 'pages');
    await beforeRetry(attempt, 'page');
  }
}

/** A page as the API shows it (spec 2.2): the site's domain is folded into `full_url`. */
export interface Page {
  id: number;
  site_id: number;
  site_name: string;
  name: string;
  url: string;
  full_url: string;
  created_at: string;
  updated_at: string;
}

/** The domain and the page path joined with exactly one slash. */
export const fullUrl = (domain: string, url: string): string =>
  `${domain.replace(/\/+$/, '')}/${url.replace(/^\/+/, '')}`;

function fromItem(item: Record<string, unknown>): Page {
  const page = item as unknown as PageItem;
  return {
    id: page.id,
    site_id: page.site_id,
    site_name: page.site_name,
    name: page.name,
    url: page.url,
    full_url: fullUrl(page.site_domain, page.url),
    created_at: page.created_at,
    updated_at: page.updated_at,
  };
}

/**
 * The team's pages ordered by name (ties by id), optionally only those of the given sites (a site of
 * another team matches none of this team's pages); a page of them when `page` says so. One Query either
 * way: the order is by name, which no key holds, so every page reads all the team's pages and keeps those
 * after the cursor's position. The pages quota (10,000 by default, quotas.ts) bounds that read.
 */
export async function listPages(
  teamId: number,
  siteIds?: readonly number[],
  page: PageOptions<NamePosition> = {},
): Promise<ListPage<Page, NamePosition>> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': teamPk(teamId), ':prefix': PAGE_PREFIX },
    ConsistentRead: true,
  });
  const sites = siteIds && new Set(siteIds);
  const pages = items
    .map(fromItem)
    .filter((listed) => !sites || sites.has(listed.site_id))
    .sort(byNameThenId);
  return pageOfSorted(pages, page, namePositionOf, compareToNamePosition);
}
