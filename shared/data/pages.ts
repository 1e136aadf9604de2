import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, nowIso, padId, tableName, teamPk } from './dynamo.ts';
import { nextId } from './ids.ts';
import { idIndexKeys } from './items.ts';
import { siteKey } from './sites.ts';

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

export const PAGE_PREFIX = 'PAGE#';
export const pageKey = (teamId: number, pageId: number) => ({
  pk: teamPk(teamId),
  sk: `${PAGE_PREFIX}${padId(pageId)}`,
});

/** Creates a page on one of the team's sites; undefined when the team has no such site. */
export async function createPage(
  teamId: number,
  siteId: number,
  name: string,
  url: string,
): Promise<PageItem | undefined> {
  const { Item: site } = await dynamo.send(
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
  await dynamo.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...pageKey(teamId, page.id), ...idIndexKeys('PAGE', page.id), ...page },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return page;
}
