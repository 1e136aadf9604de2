import { LIMITS, WEBHOOK_LIMITS } from '../../shared/limits.ts';
import { type Route, routes } from '../../shared/routes.ts';

/**
 * Who owns the account's Lambda concurrency (docs/tenant-isolation.md, "Concurrency"): every function of
 * the stack has a class, and each class a share, cdk.json's `concurrency`, reserved for each of its functions
 * (`ReservedConcurrentExecutions`). A reservation is both a floor and a ceiling: no other function can take
 * it, and the function never runs more at once. So a loop of slow auto-configure calls fills auto-configure's
 * share only, and a flood of webhook deliveries the deliverer's. The other routes reserve nothing by default
 * (`apiRoute` 0): they share what no class reserved, which no capped class can take, and the stage's throttle
 * bounds what they use in all; a share per route would grow with every route the API gains.
 */
export interface ConcurrencySettings {
  /**
   * The account's "Concurrent executions" quota in the Region (Service Quotas, AWS Lambda): 1,000 by default,
   * as low as 10 in a new account. The shares must fit it with Lambda's unreserved 100 left over.
   */
  accountQuota: number;
  /** Reserve the shares; false deploys without any reservation (an account too small to reserve any). */
  reserve: boolean;
  /**
   * Each API route's function but auto-configure's: its concurrent requests, reserved per route; 0 reserves
   * none (the default), and the routes share the account's unreserved concurrency.
   */
  apiRoute: number;
  /** Each route that fetches web pages (auto-configure): its concurrent requests, each up to 15 s. */
  autoConfigure: number;
  /** The TOKEN authorizer: concurrent checks of tokens its 5-minute cache does not hold. */
  authorizer: number;
  /** The webhook deliverer: endpoints being delivered to at once (one invocation holds one endpoint). */
  webhookDeliverer: number;
  /** The change-event consumer: stream shards read at once (times the mapping's parallelization factor). */
  streamConsumer: number;
  /** The webhook sweeper: 1, so that a sweep never runs beside the one before it. */
  webhookSweeper: number;
}

export type ConcurrencyClass = Exclude<keyof ConcurrencySettings, 'accountQuota' | 'reserve'>;

/** What every deployment reserves unless cdk.json says otherwise (cdk.json lists the same). */
export const CONCURRENCY_DEFAULTS: ConcurrencySettings = {
  accountQuota: 1000,
  reserve: true,
  apiRoute: 0,
  autoConfigure: 10,
  authorizer: 20,
  webhookDeliverer: 50,
  streamConsumer: 10,
  webhookSweeper: 1,
};

/**
 * Lambda keeps this much of the account's concurrency for the functions without a reservation: "You can
 * reserve up to the Unreserved account concurrency value that is shown, minus 100" (AWS Lambda Developer
 * Guide, "Configuring reserved concurrency for a function"). CDK's own deploy-time functions run in it.
 */
export const UNRESERVED_MINIMUM = 100;

/** The class of a route's function: auto-configure's (a route that fetches web pages) or any other route's. */
export const routeClass = (route: Pick<Route, 'fetchesWeb'>): ConcurrencyClass =>
  route.fetchesWeb ? 'autoConfigure' : 'apiRoute';

/** How many functions of each class the stack makes: the route table's rows, one of every other function. */
export function functionsPerClass(): Record<ConcurrencyClass, number> {
  const count = (kind: ConcurrencyClass) => routes.filter((route) => routeClass(route) === kind).length;
  return {
    apiRoute: count('apiRoute'),
    autoConfigure: count('autoConfigure'),
    authorizer: 1,
    webhookDeliverer: 1,
    streamConsumer: 1,
    webhookSweeper: 1,
  };
}

export const CONCURRENCY_CLASSES = Object.keys(functionsPerClass()) as ConcurrencyClass[];

/** A function's reservation: its class's share, or none when the settings or the share (0) reserve nothing. */
export function reservation(concurrency: ConcurrencySettings, kind: ConcurrencyClass): number | undefined {
  return concurrency.reserve && concurrency[kind] > 0 ? concurrency[kind] : undefined;
}

/** What the stack reserves in all: each class's share times its functions. */
export function reservedTotal(concurrency: ConcurrencySettings): number {
  if (!concurrency.reserve) return 0;
  const functions = functionsPerClass();
  return CONCURRENCY_CLASSES.reduce((sum, kind) => sum + concurrency[kind] * functions[kind], 0);
}

/** The most the stack may reserve in an account with this quota. */
export const reservable = (accountQuota: number): number => Math.max(0, accountQuota - UNRESERVED_MINIMUM);

/**
 * The shares that cannot be reserved, refused at synth time rather than by Lambda halfway through a deploy
 * ("decreases account's UnreservedConcurrentExecution below its minimum value"), saying what to change.
 */
export function checkConcurrencyFits(concurrency: ConcurrencySettings): void {
  if (!concurrency.reserve) return;
  const total = reservedTotal(concurrency);
  const { accountQuota } = concurrency;
  const most = reservable(accountQuota);
  if (total <= most) return;
  const functions = functionsPerClass();
  // A share of 0 (apiRoute's default) reserves nothing: not listed among what does.
  const shares = CONCURRENCY_CLASSES.filter((kind) => concurrency[kind] > 0)
    .map((kind) =>
      functions[kind] > 1
        ? `${kind} ${concurrency[kind]} × ${functions[kind]}`
        : `${kind} ${concurrency[kind]}`,
    )
    .join(', ');
  const room =
    most === 0
      ? `an account whose quota is ${accountQuota} cannot reserve any`
      : `an account whose quota is ${accountQuota} can reserve ${most}`;
  throw new Error(
    `context concurrency: the shares reserve ${total} concurrent executions (${shares}), but ${room}: Lambda ` +
      `keeps ${UNRESERVED_MINIMUM} unreserved. Ask AWS for a higher quota (Service Quotas, AWS Lambda, ` +
      `"Concurrent executions") and set concurrency.accountQuota to it` +
      (most > 0 ? ', or lower the shares' : '') +
      `; in an account of ${UNRESERVED_MINIMUM} or less, set concurrency.reserve to false (no reservations: ` +
      'every function shares the account, and one class can starve the others).',
  );
}

/**
 * What one team may hold of each class that teams share and can fill with slow work (docs/tenant-isolation.md, "Concurrency"):
 * auto-configure's calls and the deliverer's runs that may wait on a receiver. Constants of the code, the
 * same in every deployment.
 */
export const TEAM_SHARES = {
  autoConfigure: LIMITS.autoConfigurePerTeam,
  webhookDeliverer: WEBHOOK_LIMITS.delivererRunsPerTeam,
} as const satisfies Partial<Record<ConcurrencyClass, number>>;

/** Teams whose shares together a shared class must hold at least, so that one team never fills it. */
export const MIN_TEAMS_PER_CLASS = 2;

/**
 * A class one team's share could fill, or nearly, refused at synth time: the share would no longer keep the
 * other teams served. Without reservations nothing is checked (every function shares the account).
 */
export function checkTeamShares(concurrency: ConcurrencySettings): void {
  if (!concurrency.reserve) return;
  for (const [kind, share] of Object.entries(TEAM_SHARES) as Array<[ConcurrencyClass, number]>) {
    const least = MIN_TEAMS_PER_CLASS * share;
    if (concurrency[kind] < least) {
      throw new Error(
        `context concurrency.${kind}: ${concurrency[kind]} is less than ${least}, ${MIN_TEAMS_PER_CLASS} teams' ` +
          `shares of ${share}: one team could hold all of it and leave every other team waiting. Reserve ` +
          `${least} or more.`,
      );
    }
  }
}
