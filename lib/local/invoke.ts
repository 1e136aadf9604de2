import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TIMEOUTS } from '../../shared/limits.ts';
import {
  authorizer,
  functionTimeoutSeconds,
  type Route,
  routeFunctionName,
  routes,
  streamConsumer,
  webhookDelivery,
} from '../../shared/routes.ts';
import { lambdaContext } from './lambda-events.ts';
import { routeSampleEvent } from './sample-events.ts';

/**
 * `npm run invoke`: one function of the stack run in this process with an event, as `sam local invoke`
 * runs one in a container. The functions are the stack's, named by their construct ids (a route's is
 * `GetApiV1BrandsId`, also reachable as `GET /api/v1/brands/{id}` or `GET /api/v1/brands/12`), and each
 * has a sample event: a route's derived from its row (lib/local/sample-events.ts), the others' kept in
 * events/<name>.json.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');

/** The Lambda timeouts of the functions that are not routes, as the stack sets them (lib/cdk; a test holds them equal). */
const STREAM_CONSUMER_SECONDS = 60;
const SWEEPER_SECONDS = 60;
const DELIVERER_SECONDS = 120;

export type FunctionKind = 'route' | 'authorizer' | 'stream' | 'sweeper' | 'deliverer';

export interface InvocableFunction {
  /** The function's construct id in the stack (its logical id in cdk.out starts with it). */
  name: string;
  kind: FunctionKind;
  /** Handler module, relative to the repository root. */
  handler: string;
  timeoutSeconds: number;
  route?: Route;
}

/** Every function the stack deploys: the routes', then the authorizer, the stream consumer and the webhook pair. */
export function invocableFunctions(): InvocableFunction[] {
  return [
    ...routes.map((route) => ({
      name: routeFunctionName(route),
      kind: 'route' as const,
      handler: route.handler,
      timeoutSeconds: functionTimeoutSeconds(route),
      route,
    })),
    {
      name: 'Authorizer',
      kind: 'authorizer',
      handler: authorizer.handler,
      timeoutSeconds: TIMEOUTS.authorizerSeconds,
    },
    {
      name: 'Consumer',
      kind: 'stream',
      handler: streamConsumer.handler,
      timeoutSeconds: STREAM_CONSUMER_SECONDS,
    },
    {
      name: 'Sweeper',
      kind: 'sweeper',
      handler: webhookDelivery.sweeper.handler,
      timeoutSeconds: SWEEPER_SECONDS,
    },
    {
      name: 'Deliverer',
      kind: 'deliverer',
      handler: webhookDelivery.deliverer.handler,
      timeoutSeconds: DELIVERER_SECONDS,
    },
  ];
}

/** Where the sample event of a function that is not a route is kept. */
export const sampleEventPath = (name: string): string => resolve(ROOT, 'events', `${name}.json`);

/** A function's sample event: a route's derived from its row, another's read from events/<name>.json. */
export async function sampleEvent(fn: InvocableFunction): Promise<unknown> {
  if (fn.route) return routeSampleEvent(fn.route);
  return JSON.parse(await readFile(sampleEventPath(fn.name), 'utf8')) as unknown;
}

/** A function named on the command line, with the path parameters a concrete path gave, if one did. */
export interface NamedFunction {
  fn: InvocableFunction;
  /** `GET /api/v1/brands/12`: the path and its parameters, to put in the sample event. */
  concrete?: { path: string; pathParameters: Record<string, string> };
}

export class UnknownFunctionError extends Error {}

/**
 * `GetApiV1BrandsId` (any case), `GET /api/v1/brands/{id}` or `GET /api/v1/brands/12`; an unknown name
 * is an error listing the names there are.
 */
export function findFunction(spec: string): NamedFunction {
  const functions = invocableFunctions();
  const [, method, path] = /^(GET|POST|PUT|DELETE)\s+(\/\S*)$/i.exec(spec.trim()) ?? [];
  if (method && path) {
    const candidates = functions.filter((fn) => fn.route?.method === method.toUpperCase());
    const exact = candidates.find((fn) => fn.route?.path === path);
    if (exact) return { fn: exact };
    for (const fn of candidates) {
      const pathParameters = matchPath(fn.route?.path ?? '', path);
      if (pathParameters) return { fn, concrete: { path, pathParameters } };
    }
  } else {
    const named = functions.find((fn) => fn.name.toLowerCase() === spec.trim().toLowerCase());
    if (named) return { fn: named };
  }
  throw new UnknownFunctionError(
    `unknown function "${spec}": name one of\n${functions
      .map((fn) => `  ${fn.name.padEnd(40)}${fn.route ? `${fn.route.method} ${fn.route.path}` : fn.kind}`)
      .join('\n')}\n(a route also by "METHOD /path", e.g. "GET /api/v1/brands/12")`,
  );
}

/** The parameters of `path` under the template `/api/v1/brands/{id}`, or undefined if it does not match. */
function matchPath(template: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const source = template.replace(/\{(\w+)\}|[^{}]+/g, (part, name?: string) => {
    if (name) {
      names.push(name);
      return '([^/]+)';
    }
    return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  const found = new RegExp(`^${source}/?$`).exec(path);
  if (!found) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1] ?? '')]));
}

/** The sample event with a concrete path put in it (a route's proxy event). */
export function withConcretePath(event: unknown, concrete: NamedFunction['concrete']): unknown {
  if (!concrete || typeof event !== 'object' || event === null) return event;
  const proxy = event as Record<string, unknown> & { requestContext?: Record<string, unknown> };
  return {
    ...proxy,
    path: concrete.path,
    pathParameters: Object.keys(concrete.pathParameters).length ? concrete.pathParameters : null,
    requestContext: proxy.requestContext && { ...proxy.requestContext, path: concrete.path },
  };
}

/** What the handler returned, or what Lambda reports when it throws (`errorType`, `errorMessage`). */
export type InvocationResult =
  | { ok: true; result: unknown }
  | { ok: false; error: { errorType: string; errorMessage: string } };

/**
 * Runs the function's handler with the event, as Lambda does: a route and the others get the event and an
 * invocation context whose remaining time counts down from the function's timeout. The process must be
 * configured for handlers first (shared/config.ts): the handler modules read the configuration as they load.
 */
export async function invoke(fn: InvocableFunction, event: unknown): Promise<InvocationResult> {
  const module = (await import(pathToFileURL(resolve(ROOT, fn.handler)).href)) as {
    handler: (event: unknown, context: unknown) => Promise<unknown>;
  };
  const context = lambdaContext({
    requestId: randomUUID(),
    functionName: fn.name,
    timeoutMs: fn.timeoutSeconds * 1000,
  });
  try {
    return { ok: true, result: (await module.handler(event, context)) ?? null };
  } catch (error) {
    const thrown = error instanceof Error ? error : new Error(String(error));
    return { ok: false, error: { errorType: thrown.name, errorMessage: thrown.message } };
  }
}
