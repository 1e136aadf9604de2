import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createTeam } from '../../shared/data/teams.ts';
import { authorizer, findRoute, type Route } from '../../shared/routes.ts';
import { type BenchRequest, lambdaContext, proxyEvent, tokenEvent } from '../events.ts';

/**
 * What the scenario areas share: the scenario types, the invocation helpers, and the fixtures more than
 * one area uses. Every endpoint and its main paths, each a request the bench can make again and again.
 * Data is made with the data modules, outside the timed and counted invocation.
 */
export interface Outcome {
  status: number;
  body: string;
}

/** One prepared request: calling it invokes the function once. */
export type Invocation = () => Promise<Outcome>;

export interface Scenario {
  name: string;
  /** `GET /api/v1/brands/{id}`, or `authorizer`. */
  endpoint: string;
  /** Most DynamoDB round trips the path may take (the budgets); undefined: for information. */
  budget?: number;
  expectedStatus: number;
  /** Untimed invocations first (id blocks reserved, modules loaded, JIT warm). */
  warmup: number;
  /** Timed invocations; 0 counts a single invocation and times nothing. */
  iterations: number;
  /** Prepares the next invocation (makes the data it needs); not timed, not counted. */
  next(): Promise<Invocation>;
}

const ROOT = resolve(import.meta.dirname, '../..');
export const NO_SUCH_ID = '900000000000';
export const READS = 200;
export const WRITES = 150;

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
const modules = new Map<string, Promise<{ handler: unknown }>>();
function load<T>(file: string): Promise<T> {
  let module = modules.get(file);
  if (!module) {
    module = import(pathToFileURL(resolve(ROOT, file)).href) as Promise<{ handler: unknown }>;
    modules.set(file, module);
  }
  return module.then((loaded) => loaded.handler as T);
}

/** A request to a route of the route table, with its proxy event built ahead of the invocation. */
async function request(method: Route['method'], path: string, input: BenchRequest): Promise<Invocation> {
  const route = findRoute(method, path);
  if (!route) throw new Error(`the route table has no ${method} ${path}`);
  const handler = await load<ProxyHandler>(route.handler);
  const event = proxyEvent(route, input);
  const context = lambdaContext(`bench-${method}-${path}`);
  return async () => {
    const result = await handler(event, context);
    return { status: result.statusCode, body: result.body };
  };
}

/**
 * The authorizer with a TOKEN event, read as API Gateway reads it: an Allow policy is a 200, a thrown
 * `Unauthorized` a 401, any other failure the stack's 503.
 */
export async function authorize(token: string): Promise<Invocation> {
  const handler = await load<(event: ReturnType<typeof tokenEvent>) => Promise<unknown>>(authorizer.handler);
  const event = tokenEvent(token);
  return () =>
    handler(event).then(
      (policy) => ({ status: 200, body: JSON.stringify(policy) }),
      (error: unknown) => ({
        status: error instanceof Error && error.message === 'Unauthorized' ? 401 : 503,
        body: String(error),
      }),
    );
}

/** A value made on first use and shared by the scenarios that need it. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

export async function newTeamId(name: string): Promise<number> {
  return (await createTeam(name)).id;
}

let serial = 0;
/** A name no earlier request used (tags, idempotency keys, brand names). */
export const unique = (prefix: string) => `${prefix}_${process.pid}_${++serial}`;

/** What one `createScenarios()` gives every area: fixtures made on first use, and its cleanups. */
export interface Shared {
  /** The team the create, write and team-less requests run as. */
  writerTeam: () => Promise<number>;
  /** Something `close()` stops (a fixture server). */
  onClose(close: () => Promise<void>): void;
}

/** The item one invocation asks for: `id` in `teamId`, with `body` where the method takes one. */
export interface Item {
  teamId: number;
  id: number | string;
  body?: unknown;
}

/**
 * A scenario on a route of the route table: `endpoint` (`METHOD /path`) is the route it requests, and
 * `input()` prepares (untimed) the request of each invocation.
 */
export function onRoute(scenario: Omit<Scenario, 'next'>, input: () => Promise<BenchRequest>): Scenario {
  const [method, path] = scenario.endpoint.split(' ') as [Route['method'], string];
  return { ...scenario, next: async () => request(method, path, await input()) };
}

/**
 * The scenarios of `endpoint` (`POST /path`) that make an item with each invocation (201, 10 untimed
 * invocations then WRITES timed): `input()` prepares the request.
 */
export const creates =
  (endpoint: string) =>
  ({ name, budget }: { name: string; budget: number }, input: () => Promise<BenchRequest>): Scenario =>
    onRoute({ name, endpoint, budget, expectedStatus: 201, warmup: 10, iterations: WRITES }, input);

/**
 * A scenario on one item: `endpoint` (`METHOD /path/{id}`) is the route it requests, and `item()` prepares
 * (untimed) the item each invocation asks for.
 */
export function onItem(scenario: Omit<Scenario, 'next'>, item: () => Promise<Item>): Scenario {
  return onRoute(scenario, async () => {
    const { teamId, id, body } = await item();
    return { teamId, pathParams: { id: String(id) }, ...(body !== undefined && { body }) };
  });
}

/** The 404 path of `endpoint` (`METHOD /path/{id}`): an id no item has, in the team `teamId()` gives. */
export function noSuchId(
  { name, endpoint, budget, body }: { name: string; endpoint: string; budget: number; body?: unknown },
  teamId: () => Promise<number>,
): Scenario {
  return onItem({ name, endpoint, budget, expectedStatus: 404, warmup: 10, iterations: READS }, async () => ({
    teamId: await teamId(),
    id: NO_SUCH_ID,
    body,
  }));
}
