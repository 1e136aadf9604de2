/**
 * The test lanes (vitest.config.ts), by file name: `*.services.test.ts` needs DynamoDB Local, s3rver and the
 * change-event pipeline; `*.stack.test.ts` synthesizes the stack and needs no services; any other
 * `*.test.ts` is a unit test and needs neither. `*.whole-table.test.ts` is a services file whose
 * `admin migrate` works on the whole shared table: those run first, one at a time.
 */
export type Lane = 'unit' | 'stack' | 'services' | 'services-whole-table';

export const STACK = ['test/**/*.stack.test.ts'];
export const WHOLE_TABLE = ['test/**/*.whole-table.test.ts'];
export const SERVICES = ['test/**/*.services.test.ts'];

/** The lane a test file is in, by its name. */
export const laneOf = (file: string): Lane =>
  file.endsWith('.services.test.ts')
    ? 'services'
    : file.endsWith('.whole-table.test.ts')
      ? 'services-whole-table'
      : file.endsWith('.stack.test.ts')
        ? 'stack'
        : 'unit';
