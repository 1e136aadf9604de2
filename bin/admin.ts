import '../lib/sdk-node-notice.ts';
import {
  type Args,
  parseCommandLine,
  UnknownCommandError,
  UnknownFlagError,
  UsageError,
} from '../lib/admin/args.ts';
import {
  COMMANDS,
  commandFlags,
  helpText,
  runCommand,
  TARGET_FLAGS,
  unknownCommandText,
  unknownFlagText,
} from '../lib/admin/commands.ts';
import { handlerEnvironment, localConfigPath, readLocalConfig } from '../lib/local/local-api.ts';
import { configure } from '../shared/config.ts';
import { ValidationError } from '../shared/domain/errors.ts';

/**
 * `npm run admin -- <entity> <action> [--flags]`: the stand-in for the team dashboard (commands in
 * lib/admin/commands.ts). Prints one JSON object; on bad input prints `{"error": ...}` to stderr and exits
 * 1; a command it does not have is told the commands there are, as text on stderr, exit 2. Targets the local stack of DATA_DIR unless a deployed stack is named with --table/--private-bucket/
 * --public-bucket (or TABLE_NAME, PRIVATE_BUCKET, PUBLIC_BUCKET), with credentials from the usual AWS chain.
 */
async function target({ optional }: Args): Promise<void> {
  const table = optional('table') ?? process.env.TABLE_NAME;
  if (table) {
    return configure({
      ...process.env,
      TABLE_NAME: table,
      PRIVATE_BUCKET: optional('private-bucket') ?? process.env.PRIVATE_BUCKET,
      PUBLIC_BUCKET: optional('public-bucket') ?? process.env.PUBLIC_BUCKET,
    });
  }
  const dataDir = optional('data-dir') ?? process.env.DATA_DIR ?? '.data';
  const local = await readLocalConfig(dataDir);
  if (!local) {
    throw new UsageError(
      `no local stack at ${localConfigPath(dataDir)}: run npm start first, or name a deployed stack with --table`,
    );
  }
  configure({ ...process.env, ...handlerEnvironment(local) });
}

const argv = process.argv.slice(2);
const isCommand = (command: string): boolean => (COMMANDS as readonly string[]).includes(command);
const help = helpText(argv);
if (help !== undefined) {
  // Help is for a person: text on stdout, exit 0. Everything else prints one JSON object.
  console.log(help);
  process.exit(0);
}
try {
  const args = parseCommandLine(argv);
  // Told before any stack is looked for: a mistyped command needs no stack to be answered.
  if (!isCommand(args.command)) throw new UnknownCommandError(args.command);
  // A flag of another command is refused too, not ignored: `list get --kind email` reads no kind.
  const takes = new Set([...commandFlags(args.command), ...TARGET_FLAGS]);
  for (const [name, value] of Object.entries(args.flags)) {
    if (value !== undefined && !takes.has(`--${name}`)) throw new UnknownFlagError(`--${name}`, args.command);
  }
  await target(args);
  console.log(JSON.stringify(await runCommand(args)));
} catch (caught) {
  // A flag given to a command the CLI does not have: the command is what is wrong.
  const error =
    caught instanceof UnknownFlagError && !isCommand(caught.command)
      ? new UnknownCommandError(caught.command)
      : caught;
  if (error instanceof UnknownCommandError) {
    // For a person: which commands there are, as text (exit 2, as a shell's usage errors), not JSON.
    console.error(unknownCommandText(error.command));
    process.exit(2);
  }
  const message =
    error instanceof UnknownFlagError
      ? unknownFlagText(error.flag, error.command)
      : error instanceof UsageError || error instanceof ValidationError
        ? (error as Error).message
        : `failed: ${(error as Error).message}`;
  console.error(JSON.stringify({ error: message }));
  process.exitCode = 1;
}
