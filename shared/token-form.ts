import { PLAN_NAME_FORM } from './rate-limits.ts';

/**
 * What an API token looks like, `tm_<plan>_<team>_<secret>` (or an older `tm_<team>_<secret>`, `tm_<secret>`),
 * and the one spelling of the header that carries it, `Authorization: Bearer <token>`. API Gateway holds every
 * request to AUTHORIZATION_FORM before it runs the authorizer (the TOKEN authorizer's validation expression,
 * lib/cdk/team-messaging-stack.ts; the local gateway checks the same): a string that cannot be a token is a
 * 401 that costs no authorizer run and no read. One spelling only (`Bearer`, one space) because API Gateway
 * caches the authorizer's answer per header value: each accepted spelling of one token would be an entry,
 * and an authorizer run, of its own.
 */
export const TOKEN_FORM = `tm_(?:(?:(${PLAN_NAME_FORM})_)?([1-9][0-9]{0,14})_)?[0-9A-Za-z]{40,60}`;
export const AUTHORIZATION_FORM = `^Bearer ${TOKEN_FORM}$`;

const AUTHORIZATION = new RegExp(AUTHORIZATION_FORM);
const TOKEN = new RegExp(`^${TOKEN_FORM}$`);

/** The token of an `Authorization: Bearer <token>` header in its one accepted spelling. */
export const bearerToken = (authorization: string | undefined): string | undefined =>
  authorization !== undefined && AUTHORIZATION.test(authorization)
    ? authorization.slice('Bearer '.length)
    : undefined;

/** A well-formed token's parts: the plan and the team it names, if it names them. */
export function tokenParts(token: string): { plan?: string; team?: number } | undefined {
  const match = TOKEN.exec(token);
  if (!match) return undefined;
  return { plan: match[1], team: match[2] === undefined ? undefined : Number(match[2]) };
}
