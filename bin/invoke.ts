import '../lib/sdk-node-notice.ts';
import { readFile } from 'node:fs/promises';
import { register } from 'node:module';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  findFunction,
  invoke,
  sampleEvent,
  UnknownFunctionError,
  withConcretePath,
} from '../lib/local/invoke.ts';
import { handlerEnvironment, localConfigPath, readLocalConfig } from '../lib/local/local-api.ts';
import { configure } from '../shared/config.ts';

/**
 * `npm run invoke -- <function or "METHOD /path"> [--event file.json]`: runs one function's handler in
 * this process, as `sam local invoke` does in a container, with the environment `npm start` gives the
 * handlers and the services of the running `npm start` (found through DATA_DIR's local.json, as the admin
 * CLI finds them). Without --event it uses the function's sample (a route's derived from its row of the
 * route table, another's events/<function>.json); `--print-event` prints that event and runs nothing (a file
 * for `sam local invoke -e`). Prints what the handler returned as JSON (exit 0), or Lambda's error report
 * (`errorType`, `errorMessage`; exit 1), on stdout; the handler's own log and metric lines go to stderr.
 */
// The handlers may import a file's text (`with { type: 'text' }`), as their Lambda bundles do.
register('../lib/local/text-imports.ts', import.meta.url);

const usage =
  'usage: npm run invoke -- <function or "METHOD /path"> [--event file.json | --print-event] [--data-dir D]';
const fail = (message: string, code: number): never => {
  console.error(message);
  process.exit(code);
};

const { positionals, values } = (() => {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: {
        event: { type: 'string', short: 'e' },
        'print-event': { type: 'boolean' },
        'data-dir': { type: 'string' },
      },
    });
  } catch (error) {
    return fail(`${(error as Error).message}\n${usage}`, 2);
  }
})();
const spec = positionals.join(' ');
if (!spec) fail(usage, 2);

const named = (() => {
  try {
    return findFunction(spec);
  } catch (error) {
    if (error instanceof UnknownFunctionError) return fail(error.message, 2);
    throw error;
  }
})();

// A relative --event is the caller's: npm runs scripts from the package's folder, INIT_CWD is theirs.
const eventFile = values.event && resolve(process.env.INIT_CWD ?? process.cwd(), values.event);
const event = eventFile
  ? await readFile(eventFile, 'utf8')
      .then((text) => JSON.parse(text) as unknown)
      .catch((error: Error) => fail(`cannot read the event ${eventFile}: ${error.message}`, 2))
  : await sampleEvent(named.fn);
// A concrete path named on the command line goes into the event, the sample or the one given.
const concreteEvent = withConcretePath(event, named.concrete);
if (values['print-event']) {
  console.log(JSON.stringify(concreteEvent, null, 2));
  process.exit(0);
}

const dataDir = values['data-dir'] ?? process.env.DATA_DIR ?? '.data';
const local = await readLocalConfig(dataDir);
if (!local) {
  fail(`no local stack at ${localConfigPath(dataDir)}: run npm start first (in another shell)`, 1);
} else {
  configure({ ...process.env, ...handlerEnvironment(local) });
}

// What the handler writes (its JSON log lines, its metric lines) goes to stderr, as `sam local invoke`
// shows a function's logs apart from its result: stdout is the result alone.
const stdoutWrite = process.stdout.write;
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
const outcome = await invoke(named.fn, concreteEvent).finally(() => {
  process.stdout.write = stdoutWrite;
});
if (outcome.ok) {
  console.log(JSON.stringify(outcome.result, null, 2));
  process.exit(0);
}
console.log(JSON.stringify(outcome.error, null, 2));
process.exit(1);
