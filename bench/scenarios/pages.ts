import { createPage } from '../../shared/data/pages.ts';
import { createSite } from '../../shared/data/sites.ts';
import { newTeamId, once, onRoute, READS, type Scenario } from './common.ts';

export function pageScenarios(): Scenario[] {
  // A team with twenty pages, split over two sites; `siteId` is the first site.
  const pagesTeam = once(async () => {
    const teamId = await newTeamId('Bench pages');
    const sites = [
      await createSite(teamId, 'Main', 'https://example.com'),
      await createSite(teamId, 'Blog', 'https://blog.example.com'),
    ];
    for (let i = 0; i < 20; i++) {
      const site = sites[i % 2] as (typeof sites)[number];
      await createPage(teamId, site.id, `Page ${i}`, `/page-${i}`);
    }
    return { teamId, siteId: (sites[0] as (typeof sites)[number]).id };
  });

  return [
    onRoute(
      {
        name: 'pages list (20 pages, 2 sites)',
        endpoint: 'GET /api/v1/pages',
        budget: 2,
        expectedStatus: 200,
        warmup: 10,
        iterations: READS,
      },
      async () => ({ teamId: (await pagesTeam()).teamId }),
    ),
    onRoute(
      {
        name: 'pages list, ?site_id[]=',
        endpoint: 'GET /api/v1/pages',
        budget: 2,
        expectedStatus: 200,
        warmup: 10,
        iterations: READS,
      },
      async () => {
        const { teamId, siteId } = await pagesTeam();
        return { teamId, query: { 'site_id[]': [String(siteId)] } };
      },
    ),
  ];
}
