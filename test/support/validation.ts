import { ValidationError } from '../../shared/domain/errors.ts';

/** What the 422 answer would carry: its summary message and its messages by field. */
export interface Refusal {
  message: string;
  errors: Record<string, string[]>;
}

/** The ValidationError `run` throws, as the 422 would carry it; fails the test when `run` accepts its input. */
export function refusal(run: () => unknown): Refusal {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return { message: error.message, errors: error.errors };
    throw error;
  }
  throw new Error('Expected a ValidationError, but the input was accepted.');
}
