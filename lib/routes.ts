/**
 * The route table: the single source of truth for endpoints. The CDK stack makes one Lambda per row and
 * grants it only what the row declares; the local gateway serves the same rows; the HTTP plumbing reads
 * `idempotent` at run time.
 */
export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** API Gateway resource path; `{name}` marks a path parameter. */
  path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  handler: string;
  /** Access to the single table: none, read-only or read-write. */
  table: 'none' | 'read' | 'write';
  /** Access to the file libraries: read the private one, write the private one, write the public `brands/`. */
  files?: Array<'private:read' | 'private:write' | 'public:write'>;
  /** Accepts `Idempotency-Key` (spec section 5). */
  idempotent?: boolean;
  /** Makes outbound web requests (auto-configure): longer timeout. */
  fetchesWeb?: boolean;
}

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/contact-fields/types',
    handler: 'functions/contact-fields/types.ts',
    table: 'none',
  },
];

export const authorizer = { handler: 'functions/authorizer.ts', table: 'read' } as const;

export function findRoute(method: string, path: string): Route | undefined {
  return routes.find((route) => route.method === method && route.path === path);
}
