import '../lib/sdk-node-notice.ts';
import { register } from 'node:module';
import { readLocalConfig, startLocalStack, writeLocalConfig } from '../lib/local/local-api.ts';
import { createTeam, getTeam } from '../shared/data/teams.ts';
import { createToken } from '../shared/data/tokens.ts';

/**
 * `npm start`: the API on http://127.0.0.1:$PORT with DynamoDB Local and s3rver, data kept under
 * $DATA_DIR. Ctrl-C or SIGTERM stops exactly what this process started.
 */
// The handlers may import a file's text (`with { type: 'text' }`), as their Lambda bundles do.
register('../lib/local/text-imports.ts', import.meta.url);

const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.DATA_DIR ?? '.data';

const { config, stop } = await startLocalStack({
  port,
  dataDir,
  dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
  s3Endpoint: process.env.S3_ENDPOINT || undefined,
  interactive: process.stdout.isTTY === true,
}).catch((error: NodeJS.ErrnoException) => {
  // What started before the port was refused has been stopped (startLocalStack); say what to do instead.
  if (error.code !== 'EADDRINUSE') throw error;
  console.error(
    `port ${port} is in use: stop what listens there, or set PORT to another (PORT=0 picks a free one)`,
  );
  process.exit(1);
});

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  await stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

// The demo team is made once per data directory; its token is kept in local.json (a local-only file).
const previous = await readLocalConfig(dataDir);
let demo = previous?.demo_team_id && (await getTeam(previous.demo_team_id)) ? previous : undefined;
if (!demo?.demo_team_id || !demo.demo_token) {
  const team = await createTeam('Demo team');
  demo = { ...config, demo_team_id: team.id, demo_token: await createToken(team.id) };
  console.log(`created demo team ${team.id}`);
}
await writeLocalConfig(dataDir, { ...config, demo_team_id: demo.demo_team_id, demo_token: demo.demo_token });

console.log(`demo team ${demo.demo_team_id}, API token: ${demo.demo_token}`);
console.log(
  `try: curl -H "Authorization: Bearer ${demo.demo_token}" ${config.api_url}/api/v1/contact-fields/types`,
);
console.log(`listening on ${config.api_url}`);
