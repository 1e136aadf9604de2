import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.d.ts';

export type { components, operations, paths } from './schema.d.ts';

export interface ApiClientOptions {
  /** The API's address without `/api/v1`, e.g. `http://127.0.0.1:3000` or a stack's `ApiUrl`. */
  baseUrl: string;
  /** A team API token (`tm_…`); leave it out for the one public route, the OpenAPI document. */
  token?: string;
}

/**
 * A client for the API, typed by the OpenAPI document (client/schema.d.ts, written by `npm run openapi`):
 * paths, parameters, bodies and every response body, errors included. Each call resolves to `{ data }`
 * on a 2xx or `{ error }` otherwise, with the `response` itself for its status and headers.
 */
export function createApiClient({ baseUrl, token }: ApiClientOptions): Client<paths> {
  return createClient<paths>({
    baseUrl,
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
  });
}
