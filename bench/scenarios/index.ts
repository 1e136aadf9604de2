import { authorizerScenarios } from './authorizer.ts';
import { autoConfigureScenarios } from './auto-configure.ts';
import { brandScenarios, firstBrandCreate } from './brands.ts';
import { newTeamId, once, type Scenario, type Shared } from './common.ts';
import { contactFieldScenarios, firstContactFieldCreate } from './contact-fields.ts';
import { fileScenarios } from './files.ts';
import { pageScenarios } from './pages.ts';

/**
 * Every endpoint and its main paths, area by area, in the order the report lists them. Fixtures are made on
 * first use; `close()` stops what they started.
 */
export async function createScenarios(): Promise<{ scenarios: Scenario[]; close(): Promise<void> }> {
  const closers: Array<() => Promise<void>> = [];
  const shared: Shared = {
    writerTeam: once(() => newTeamId('Bench writes')),
    onClose: (close) => {
      closers.push(close);
    },
  };

  const scenarios: Scenario[] = [
    // Before anything else reserves brand or field ids: what the first create of a container pays.
    firstBrandCreate(shared),
    firstContactFieldCreate(shared),
    ...brandScenarios(shared),
    ...autoConfigureScenarios(shared),
    ...fileScenarios(shared),
    ...contactFieldScenarios(shared),
    ...pageScenarios(),
    ...authorizerScenarios(),
  ];

  return {
    scenarios,
    close: async () => {
      for (const close of closers) await close();
    },
  };
}
