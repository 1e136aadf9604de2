import { config } from '../config.ts';

/** Structured JSON logs, one line per event, carrying the request id. Never pass secrets or raw headers. */
type Fields = Record<string, unknown>;

function write(level: 'info' | 'warn' | 'error', message: string, fields: Fields): void {
  if (config.logLevel() === 'silent') return;
  const line = JSON.stringify({ level, message, time: new Date().toISOString(), ...fields });
  (level === 'error' ? console.error : console.log)(line);
}

export const log = {
  info: (message: string, fields: Fields = {}) => write('info', message, fields),
  warn: (message: string, fields: Fields = {}) => write('warn', message, fields),
  error: (message: string, fields: Fields = {}) => write('error', message, fields),
};

export function describeError(error: unknown): Fields {
  return error instanceof Error
    ? { error: error.name, error_message: error.message, stack: error.stack }
    : { error: String(error) };
}
