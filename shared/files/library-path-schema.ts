import * as z from 'zod/mini';
import { ValidationError } from '../domain/errors.ts';
import { LIMITS } from '../limits.ts';
import { checkLibraryPath, LIBRARY_PATH, MAX_PATH_BYTES } from './library.ts';

/**
 * A zod string that must be a path inside the caller's file library (checkLibraryPath's rules and
 * messages), so a bad path is reported together with the body's other errors. The rules are checked in
 * code; the metadata only says them in the OpenAPI document (JSON Schema cannot count UTF-8 bytes).
 */
export const libraryPath = (field: string) =>
  z
    .string()
    .check(
      z.superRefine((path, ctx) => {
        try {
          checkLibraryPath(path, field);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          for (const message of Object.values(error.errors).flat()) ctx.addIssue({ code: 'custom', message });
        }
      }),
    )
    .register(z.globalRegistry, {
      description: `A path in the team's file library: at most ${MAX_PATH_BYTES} bytes once UTF-8 encoded.`,
      minLength: 1,
      maxLength: LIMITS.libraryPathLength,
      pattern: LIBRARY_PATH.source,
    });
