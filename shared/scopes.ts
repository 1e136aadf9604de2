/**
 * What a token may do: scopes in the form `<family>:<level>`, a read and a write level per resource family,
 * as GitHub's fine-grained tokens and Stripe's restricted keys have (write includes read, as in both). A token
 * holds a list of them, or full access: every token made before scopes existed, and a token made without
 * naming any. Each route of the table (shared/routes.ts) names the one scope it needs; the authorizer hands the
 * token's scopes to the route in its answer's context (no extra read), and the route refuses a token without
 * it: 403 `insufficient_scope` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`
 * (RFC 6750 §3.1).
 */
export const SCOPE_FAMILIES = ['brands', 'contact_fields', 'pages', 'files', 'events', 'webhooks'] as const;
export type ScopeFamily = (typeof SCOPE_FAMILIES)[number];
export const SCOPE_LEVELS = ['read', 'write'] as const;
export type ScopeLevel = (typeof SCOPE_LEVELS)[number];
export type Scope = `${ScopeFamily}:${ScopeLevel}`;

/** Every scope, family by family, read before write. */
export const SCOPES: readonly Scope[] = SCOPE_FAMILIES.flatMap((family) =>
  SCOPE_LEVELS.map((level): Scope => `${family}:${level}`),
);

/** What the authorizer's context carries for a token of full access (context values are strings). */
export const FULL_ACCESS = '*';

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/**
 * The token's scopes as the authorizer's context carries them: `*` for full access, else the scopes
 * separated by spaces (OAuth's form, RFC 6749 §3.3).
 */
export const formatScopes = (scopes: readonly Scope[] | undefined): string =>
  scopes === undefined ? FULL_ACCESS : scopes.join(' ');

/**
 * Whether a token whose context carries `granted` (formatScopes) may use a route that needs `required`: a
 * write scope includes the family's read. A context without scopes (an authorizer answer cached from before
 * scopes existed) is full access, as such a token's item is.
 */
export function allows(granted: string | undefined, required: Scope): boolean {
  if (granted === undefined || granted === FULL_ACCESS) return true;
  const held = granted.split(' ');
  const [family] = required.split(':');
  return held.includes(required) || (required.endsWith(':read') && held.includes(`${family}:write`));
}

/**
 * Of the scopes `required` (a route's own and those its request needs besides, such as the families of the
 * event types it names: shared/domain/event-shape.ts), those the token does not hold, each once, in order.
 */
export function missingScopes(granted: string | undefined, required: readonly Scope[]): Scope[] {
  return [...new Set(required)].filter((scope) => !allows(granted, scope));
}
