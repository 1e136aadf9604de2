import { onRoute, READS, type Scenario, type Shared } from './common.ts';

export function fileScenarios({ writerTeam }: Shared): Scenario[] {
  return [
    onRoute(
      {
        name: 'files presign upload',
        endpoint: 'POST /api/v1/files',
        budget: 1,
        expectedStatus: 200,
        warmup: 10,
        iterations: READS,
      },
      async () => ({
        teamId: await writerTeam(),
        body: { path: 'logos/bench.png', content_type: 'image/png', size: 68 },
      }),
    ),
  ];
}
