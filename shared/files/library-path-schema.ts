import * as z from 'zod/mini';
import { ValidationError } from '../http/errors.ts';
import { checkLibraryPath } from './library.ts';

/**
 * A zod string that must be a path inside the caller's file library (checkLibraryPath's rules and
 * messages), so a bad path is reported together with the body's other errors.
 */
export const libraryPath = (field: string) =>
  z.string().check(
    z.superRefine((path, ctx) => {
      try {
        checkLibraryPath(path, field);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        for (const message of Object.values(error.errors).flat()) ctx.addIssue({ code: 'custom', message });
      }
    }),
  );
