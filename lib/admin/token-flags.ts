import { isScope, SCOPES, type Scope } from '../../shared/scopes.ts';
import { UsageError } from './args.ts';

/** The token flags of the admin CLI: `--scopes`, `--expires`, `--overlap`. */

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90d`, `24h`, `30m`, `45s` in milliseconds, or undefined if `value` is not a duration. */
function durationMs(value: string): number | undefined {
  const [, count, unit] = /^(\d{1,6})([smhd])$/.exec(value.trim()) ?? [];
  return count === undefined ? undefined : Number(count) * UNIT_MS[unit as keyof typeof UNIT_MS];
}

/** `--scopes brands:read,webhooks:write` or `all` (undefined: full access). */
export function parseScopes(value: string | undefined): Scope[] | undefined {
  if (value === undefined || value.trim() === 'all') return undefined;
  const named = [...new Set(value.split(',').map((scope) => scope.trim()))];
  const unknown = named.filter((scope) => !isScope(scope));
  if (unknown.length || !named.length) {
    throw new UsageError(
      `--scopes: unknown scope ${unknown.map((scope) => `"${scope}"`).join(', ') || '""'}; ` +
        `valid scopes: ${SCOPES.join(', ')} (comma-separated), or all`,
    );
  }
  return named as Scope[];
}

/** `--expires 2027-01-31`, `--expires 2027-01-31T12:00:00Z` or `--expires 90d`: a time after `now`. */
export function parseExpiry(value: string | undefined, now = Date.now()): Date | undefined {
  if (value === undefined) return undefined;
  const duration = durationMs(value);
  const at =
    duration !== undefined
      ? new Date(now + duration)
      : /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())
        ? new Date(value.trim())
        : undefined;
  if (!at || Number.isNaN(at.getTime())) {
    throw new UsageError(
      '--expires must be an ISO date or time (2027-01-31, 2027-01-31T12:00:00Z) or a duration (90d, 12h, 30m, 45s)',
    );
  }
  if (at.getTime() <= now) throw new UsageError(`--expires ${value} is not in the future`);
  return at;
}

/** `--overlap 24h` (the default), `0s` for none: how long a replaced token keeps working. */
export function parseOverlapMs(value: string | undefined): number {
  if (value === undefined) return UNIT_MS.h * 24;
  const ms = durationMs(value);
  if (ms === undefined) throw new UsageError('--overlap must be a duration: 24h, 90m, 2d, or 0s for none');
  return ms;
}
