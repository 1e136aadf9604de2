import { parseArgs } from 'node:util';

/** The admin CLI's flags, and the checks that turn them into values or a clear usage error. */
export class UsageError extends Error {}

/** A command line naming no command the CLI has: answered with text (the commands), not JSON. */
export class UnknownCommandError extends Error {
  constructor(readonly command: string) {
    super(command ? `unknown command "${command}"` : 'no command given');
  }
}

const STRING_FLAGS =
  'name team token domain site url kind value id integration tag type contact-type path file limit data-dir table private-bucket public-bucket rest-api plan default-plan plans scopes expires overlap';
const options: Record<string, { type: 'string' | 'boolean' }> = {
  unverified: { type: 'boolean' },
  all: { type: 'boolean' },
};
for (const name of STRING_FLAGS.split(' ')) options[name] = { type: 'string' };

/** A flag the CLI has for no command: the command line's command is named with it. */
export class UnknownFlagError extends UsageError {
  constructor(
    readonly flag: string,
    readonly command: string,
  ) {
    super(`unknown flag ${flag}`);
  }
}

export type Args = ReturnType<typeof parseCommandLine>;

function parseStrictly(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw error;
    // Read again leniently, only to name the command the flag was given to.
    const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false, options });
    const flag = /'(-[^']+)'/.exec((error as Error).message)?.[1] ?? '';
    throw new UnknownFlagError(flag, positionals.slice(0, 2).join(' '));
  }
}

export function parseCommandLine(argv: string[]) {
  const parsed = parseStrictly(argv);
  const flags = parsed.values as Record<string, string | boolean | undefined>;
  const text = (name: string): string => {
    const value = flags[name];
    if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
    return value;
  };
  return {
    command: parsed.positionals.slice(0, 2).join(' '),
    flags,
    text,
    optional: (name: string): string | undefined =>
      typeof flags[name] === 'string' ? flags[name] : undefined,
    integer: (name: string): number => {
      const value = text(name);
      if (!/^[1-9][0-9]{0,14}$/.test(value)) throw new UsageError(`--${name} must be a positive integer`);
      return Number(value);
    },
    oneOf: <T extends string>(name: string, allowed: readonly T[]): T => {
      const value = text(name);
      if (!allowed.includes(value as T))
        throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
      return value as T;
    },
  };
}
