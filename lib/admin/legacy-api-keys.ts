import {
  APIGatewayClient,
  DeleteApiKeyCommand,
  NotFoundException,
  paginateGetApiKeys,
} from '@aws-sdk/client-api-gateway';
import { config } from '../../shared/config.ts';

/**
 * Stacks deployed before rate limiting moved to WAF gave each team an API key, named
 * `team-<team>-<rest api id>`, in a usage plan. No method needs one now, so `migrate` deletes them: at most
 * DeleteApiKey's quota of 5 a second per account (API Gateway's fixed control-plane quotas), a little
 * under it. Deleting is what it tracks, so an interrupted run is resumed by running it again.
 */
const DELETES_PER_SECOND = 4;

export async function deleteTeamApiKeys(restApiId: string): Promise<number> {
  const client = new APIGatewayClient({ region: config.region() });
  const teamKey = new RegExp(`^team-[1-9][0-9]*-${restApiId.replace(/[^A-Za-z0-9]/g, '')}$`);
  const ids: string[] = [];
  for await (const page of paginateGetApiKeys({ client }, { nameQuery: 'team-', limit: 500 })) {
    for (const key of page.items ?? []) if (key.id && key.name && teamKey.test(key.name)) ids.push(key.id);
  }
  for (const [i, apiKey] of ids.entries()) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 1000 / DELETES_PER_SECOND));
    await client.send(new DeleteApiKeyCommand({ apiKey })).catch((error: unknown) => {
      // Deleted meanwhile (another run): what was wanted.
      if (!(error instanceof NotFoundException)) throw error;
    });
  }
  return ids.length;
}
