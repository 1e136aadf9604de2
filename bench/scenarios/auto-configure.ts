import { file, OWN_FIXTURES, startFixtureServer } from '../../test/shared/autoconfigure/fixture-server.ts';
import { once, onRoute, type Scenario, type Shared } from './common.ts';

export function autoConfigureScenarios({ writerTeam, onClose }: Shared): Scenario[] {
  // A local site with a brand page and its web manifest, started on first use and stopped by close().
  const fixtureSite = once(async () => {
    const site = await startFixtureServer({
      '/': file(OWN_FIXTURES, 'brand.html'),
      '/site.webmanifest': file(OWN_FIXTURES, 'brand.webmanifest', 'application/manifest+json'),
    });
    onClose(() => site.close());
    return site;
  });

  return [
    onRoute(
      {
        name: 'brands auto-configure (local fixture site)',
        endpoint: 'POST /api/v1/brands/auto-configure',
        // The team's slot: taken beside the page's fetch, let go beside the reading of it; a
        // team's first call ever makes its slots item first (one more write, also beside the fetch).
        budget: 2,
        expectedStatus: 200,
        warmup: 5,
        iterations: 50,
      },
      async () => ({ teamId: await writerTeam(), body: { url: (await fixtureSite()).url('/') } }),
    ),
  ];
}
