import { nowIso, tableName } from './dynamo.ts';
import { nextId } from './ids.ts';
import { idIndexKeys, siteKey } from './keys.ts';
import { takeQuota, throwIfQuotaReached } from './quotas.ts';
import { beforeRetry, LabelledTransaction } from './transactions.ts';

/** CMS sites. Written by the admin CLI; the pages API reads their name and domain, copied onto each page. */
export interface Site {
  id: number;
  team_id: number;
  name: string;
  domain: string;
  created_at: string;
  updated_at: string;
}

export async function createSite(teamId: number, name: string, domain: string): Promise<Site> {
  const now = nowIso();
  const site: Site = {
    id: await nextId('site'),
    team_id: teamId,
    name,
    domain,
    created_at: now,
    updated_at: now,
  };
  const transaction = new LabelledTransaction().add('site', {
    Put: {
      TableName: tableName(),
      Item: { ...siteKey(teamId, site.id), ...idIndexKeys('SITE', site.id), ...site },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });
  takeQuota(transaction, teamId, 'sites');
  for (let attempt = 1; ; attempt++) {
    const cancellation = await transaction.commit();
    if (!cancellation) return site;
    throwIfQuotaReached(cancellation, 'sites');
    await beforeRetry(attempt, 'site');
  }
}
