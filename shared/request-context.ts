import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The API request a piece of code runs for, without threading it through every call: the data modules
 * stamp it on the items they write (`request_id`), so a change event names the request that caused it.
 * Code run outside a request (the admin CLI) has none.
 */
const scope = new AsyncLocalStorage<{ requestId: string }>();

export const withRequest = <T>(requestId: string, run: () => T): T => scope.run({ requestId }, run);

export const currentRequestId = (): string | undefined => scope.getStore()?.requestId;
