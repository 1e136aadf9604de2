import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiFunction } from '../../lib/cdk/api-function.ts';
import {
  CONCURRENCY_CLASSES,
  CONCURRENCY_DEFAULTS,
  type ConcurrencyClass,
  type ConcurrencySettings,
  functionsPerClass,
  reservable,
  reservedTotal,
  routeClass,
  TEAM_SHARES,
  UNRESERVED_MINIMUM,
} from '../../lib/cdk/concurrency.ts';
import { DEFAULT_SETTINGS, readSettings } from '../../lib/cdk/settings.ts';
import { MESSAGES } from '../../shared/http/messages.ts';
import { TIMEOUTS } from '../../shared/limits.ts';
import { routes, webhookDelivery } from '../../shared/routes.ts';
import { withExtraRoutes } from '../support/generated-routes.ts';
import {
  CDK_JSON_CONTEXT,
  functionOfRoute,
  reportedViolations,
  type Synthesized,
  synthesize,
} from '../support/synth.ts';
import { idOf, ofType, only, type Resource, stringify } from '../support/template.ts';

/**
 * Concurrency has owners, read where AWS enforces it: the synthesized template. Every function
 * of the stack reserves its class's share of the account's Lambda concurrency (cdk.json `concurrency`,
 * lib/cdk/concurrency.ts), so a loop of slow auto-configure calls or thousands of deliverer runs fill their
 * own share and no other; the plain routes reserve nothing by default (`apiRoute` 0), sharing what
 * no class reserved, so that the total does not grow with the routes; the shares fit the account's quota
 * with Lambda's 100 unreserved left over, or the synth refuses them and says what to change; what a caller,
 * a delivery and a stream batch get when a share is full. The production stack with cdk.json's defaults, a
 * dev stack with shares of its own (25 per route) and a stack without reservations, each synthesized once
 * (without bundling).
 */
const OVERRIDDEN: ConcurrencySettings = {
  accountQuota: 3000,
  reserve: true,
  apiRoute: 25,
  autoConfigure: 4,
  authorizer: 60,
  webhookDeliverer: 200,
  streamConsumer: 20,
  webhookSweeper: 1,
};

const stacks: Partial<Record<'production' | 'overridden' | 'unreserved', Synthesized>> = {};
beforeAll(() => {
  stacks.production = synthesize({ full: false });
  stacks.overridden = synthesize({ dev: true, context: { concurrency: JSON.stringify(OVERRIDDEN) } });
  stacks.unreserved = synthesize({ context: { concurrency: '{"accountQuota":10,"reserve":false}' } });
});
afterAll(() => {
  for (const s of Object.values(stacks)) rmSync(s.outdir, { recursive: true, force: true });
});
const production = () => stacks.production as Synthesized;
const overridden = () => stacks.overridden as Synthesized;
const unreserved = () => stacks.unreserved as Synthesized;

/** The class of each of the stack's own functions (by logical id), from the constructs that made them. */
function classOfFunctions(s: Synthesized): Map<string, ConcurrencyClass> {
  const classes = new Map<string, ConcurrencyClass>();
  for (const route of routes) {
    const fn = functionOfRoute(s.stack, route) as ApiFunction;
    classes.set(idOf(s, fn), routeClass(route));
  }
  classes.set(idOf(s, s.stack.node.findChild('Authorizer') as ApiFunction), 'authorizer');
  classes.set(idOf(s, s.stack.webhookDeliveries.deliverer), 'webhookDeliverer');
  classes.set(idOf(s, s.stack.webhookDeliveries.sweeper), 'webhookSweeper');
  classes.set(idOf(s, s.stack.changeEvents.consumer), 'streamConsumer');
  return classes;
}

/** Every `AWS::Lambda::Function` of the template and its reservation (undefined: none). */
const reservations = (s: Synthesized): Array<[string, number | undefined]> =>
  ofType(s, 'AWS::Lambda::Function').map(([id, fn]) => [id, fn.Properties.ReservedConcurrentExecutions]);

/**
 * CDK's own functions, which run only while a stack is deployed (setting log retention, emptying a dev
 * stack's buckets): they run in the account's unreserved 100 and reserve nothing.
 */
const CDK_DEPLOY_FUNCTIONS = /^(LogRetention|CustomS3AutoDeleteObjectsCustomResourceProvider)/;

/** The routes but auto-configure (docs/tenant-isolation.md, "Concurrency"), each reserving `apiRoute` if it is over 0. */
const API_ROUTES = routes.length - 1;

/** What the defaults reserve besides the routes: auto-configure, authorizer, deliverer, consumer, sweeper. */
const CLASSES_BESIDES_ROUTES = 10 + 20 + 50 + 10 + 1;

/** A synth of 100 more routes takes seconds to tens of seconds on two busy cores: for hangs only. */
const GROWN_SYNTH_TIMEOUT = 600_000;

/** What a template reserves in all. */
const total = (s: Synthesized) => reservations(s).reduce((sum, [, reserved]) => sum + (reserved ?? 0), 0);

/** A pattern that matches `text` exactly, from its start. */
const startsWith = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

/** What `cdk synth -c concurrency=...` makes of the context, or the error it stops on. */
const settingsOf = (concurrency: Record<string, unknown>) =>
  readSettings(new App({ context: { ...CDK_JSON_CONTEXT, concurrency: JSON.stringify(concurrency) } }).node)
    .concurrency;

describe('concurrency shares in the template', () => {
  it.each([
    ['production, cdk.json', production, CONCURRENCY_DEFAULTS],
    ['dev, shares of its own', overridden, OVERRIDDEN],
  ] as const)(
    "%s: every function reserves its class's share (a share of 0 none), and CDK's deploy-time functions nothing",
    (_, s, shares) => {
      const classes = classOfFunctions(s());
      // Every function the stack makes is classed: one per route table row, the authorizer, the consumer,
      // the deliverer and the sweeper.
      expect(classes.size).toBe(
        s()
          .stack.node.findAll()
          .filter((c) => c instanceof ApiFunction).length,
      );
      expect(classes.size).toBe(routes.length + 4);
      const found = reservations(s());
      for (const [id, reserved] of found) {
        const kind = classes.get(id);
        // A share of 0 is no ReservedConcurrentExecutions at all (a reservation of 0 would stop the function).
        if (kind)
          expect({ id, reserved }).toEqual({ id, reserved: shares[kind] === 0 ? undefined : shares[kind] });
        else
          expect({ id, reserved }).toEqual({
            id: expect.stringMatching(CDK_DEPLOY_FUNCTIONS),
            reserved: undefined,
          });
      }
      expect(found.filter(([id]) => classes.has(id))).toHaveLength(classes.size);
    },
  );

  it("the hostile cases, kept with routes that reserve nothing: a loop of slow auto-configure calls runs 10 at once and one token's thousands of deliverer runs 50, capped and reserved; the authorizer's 20, the consumer's 10 and the sweeper's 1 stay theirs; the plain routes share the unreserved rest, which no capped class can take", () => {
    const s = production();
    const reservedOf = (fn: ApiFunction) => reservations(s).find(([id]) => id === idOf(s, fn))?.[1];
    const autoConfigure = routes.find((route) => route.fetchesWeb);
    if (!autoConfigure) throw new Error('no auto-configure route');
    const functionOf = (route: (typeof routes)[number]) => functionOfRoute(s.stack, route) as ApiFunction;
    // Without a reservation, each could take the account's 1,000 from every other function. A
    // reservation is a ceiling too: these classes can flood with slow work, and never run more than this.
    expect(reservedOf(functionOf(autoConfigure))).toBe(10);
    expect(reservedOf(s.stack.webhookDeliveries.deliverer)).toBe(50);
    // These must never starve: no other function can take theirs.
    expect(reservedOf(s.stack.node.findChild('Authorizer') as ApiFunction)).toBe(20);
    expect(reservedOf(s.stack.changeEvents.consumer)).toBe(10);
    expect(reservedOf(s.stack.webhookDeliveries.sweeper)).toBe(1);
    // The plain routes reserve nothing: they run in the unreserved pool, the quota less the 91 above, which
    // the capped classes cannot enter (a function with a reservation never runs outside it).
    const otherRoutes = routes.filter((route) => route !== autoConfigure);
    expect(otherRoutes.map((route) => reservedOf(functionOf(route)))).toEqual(
      otherRoutes.map(() => undefined),
    );
    expect(otherRoutes).toHaveLength(API_ROUTES);
    // Every function that is not a plain route's reserves: nothing capped runs in the routes' pool.
    const classes = classOfFunctions(s);
    const unreservedIds = reservations(s)
      .filter(([id, reserved]) => classes.has(id) && reserved === undefined)
      .map(([id]) => id);
    expect(new Set(unreservedIds.map((id) => classes.get(id)))).toEqual(new Set(['apiRoute']));
    expect(unreservedIds).toHaveLength(API_ROUTES);
  });

  it('classes the route table: auto-configure (the one route that fetches web pages) apart from the other routes', () => {
    const autoConfigure = routes.filter((route) => routeClass(route) === 'autoConfigure');
    expect(autoConfigure.map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /api/v1/brands/auto-configure',
    ]);
    expect(functionsPerClass()).toEqual({
      apiRoute: routes.length - 1,
      autoConfigure: 1,
      authorizer: 1,
      webhookDeliverer: 1,
      streamConsumer: 1,
      webhookSweeper: 1,
    });
  });

  it("the defaults reserve 91 of the default quota's 1,000 (auto-configure 10, authorizer 20, deliverer 50, consumer 10, sweeper 1; the routes none): a production and a dev stack in one account reserve 182 of the 900 Lambda lets be reserved; shares of 25 per route still reserve 25 for each", () => {
    expect(total(production())).toBe(reservedTotal(CONCURRENCY_DEFAULTS));
    expect(total(production())).toBe(91);
    expect(CLASSES_BESIDES_ROUTES).toBe(91);
    expect(CONCURRENCY_DEFAULTS.accountQuota).toBe(1000);
    expect(reservable(CONCURRENCY_DEFAULTS.accountQuota)).toBe(1000 - UNRESERVED_MINIMUM);
    // A production and a dev stack in one account with the default quota both deploy, and their plain
    // routes share the 818 neither reserves.
    expect(2 * total(production())).toBeLessThanOrEqual(reservable(1000));
    expect(1000 - 2 * total(production())).toBe(818);
    expect(total(overridden())).toBe(reservedTotal(OVERRIDDEN));
    expect(total(overridden())).toBe(API_ROUTES * 25 + 4 + 60 + 200 + 20 + 1);
    expect(total(overridden())).toBeLessThanOrEqual(reservable(OVERRIDDEN.accountQuota));
  });

  it(
    'the defaults reserve the same 91 with 100 more routes (the total does not grow with the routes); a share of 10 per route grows by 10 a route, and the synth refuses it at 81 routes, naming apiRoute',
    () => {
      // The template of the production stack with 100 generated routes of every kind in the route table.
      const grown = withExtraRoutes(100, () => {
        const s = synthesize({ full: false });
        try {
          return { routes: routes.length, classes: classOfFunctions(s), reserved: reservations(s) };
        } finally {
          rmSync(s.outdir, { recursive: true, force: true });
        }
      });
      expect(grown.routes).toBe(routes.length + 100);
      expect(grown.reserved.reduce((sum, [, reserved]) => sum + (reserved ?? 0), 0)).toBe(
        total(production()),
      );
      expect(total(production())).toBe(91);
      const routeFunctions = grown.reserved.filter(([id]) => grown.classes.get(id) === 'apiRoute');
      expect(routeFunctions).toHaveLength(API_ROUTES + 100);
      expect(routeFunctions.filter(([, reserved]) => reserved !== undefined)).toEqual([]);
      expect(withExtraRoutes(100, () => reservedTotal(CONCURRENCY_DEFAULTS))).toBe(91);
      expect(withExtraRoutes(100, () => settingsOf({}))).toEqual(CONCURRENCY_DEFAULTS);

      // 10 per route, as the routes once reserved: 10 more for every route.
      const tenEach = { ...CONCURRENCY_DEFAULTS, apiRoute: 10 };
      const reservedWith = (extra: number) => withExtraRoutes(extra, () => reservedTotal(tenEach));
      expect(reservedWith(0)).toBe(API_ROUTES * 10 + 91);
      expect(reservedWith(1) - reservedWith(0)).toBe(10);
      expect(reservedWith(100) - reservedWith(0)).toBe(1000);
      // 80 routes besides auto-configure reserve 891 of the 900; the 81st makes 901, refused.
      const fitting = 80 - API_ROUTES;
      expect(fitting).toBeGreaterThan(0);
      expect(reservedWith(fitting)).toBe(891);
      expect(withExtraRoutes(fitting, () => settingsOf({ apiRoute: 10 })).apiRoute).toBe(10);
      const refusal = startsWith(
        'context concurrency: the shares reserve 901 concurrent executions (apiRoute 10 × 81, ' +
          'autoConfigure 10, authorizer 20, webhookDeliverer 50, streamConsumer 10, webhookSweeper 1), ' +
          'but an account whose quota is 1000 can reserve 900:',
      );
      expect(() => withExtraRoutes(fitting + 1, () => settingsOf({ apiRoute: 10 }))).toThrow(refusal);
      // With 100 more routes, the synth stops on it before any template is written.
      expect(() =>
        withExtraRoutes(100, () => synthesize({ context: { concurrency: '{"apiRoute":10}' } })),
      ).toThrow(
        startsWith(
          `context concurrency: the shares reserve ${(API_ROUTES + 100) * 10 + 91} concurrent executions ` +
            `(apiRoute 10 × ${API_ROUTES + 100}, autoConfigure 10,`,
        ),
      );
    },
    GROWN_SYNTH_TIMEOUT,
  );

  it('without reservations (an account too small for any), no function reserves anything', () => {
    const found = reservations(unreserved());
    expect(found.length).toBeGreaterThan(routes.length);
    expect(found.filter(([, reserved]) => reserved !== undefined)).toEqual([]);
  });

  it('stays clean of cdk-nag and CloudFormation findings with shares of its own', () => {
    expect(reportedViolations(overridden().assembly)).toEqual([]);
    expect(reportedViolations(unreserved().assembly)).toEqual([]);
  });

  it("each class teams can fill with slow work holds several teams' shares, so one team never fills it", () => {
    // A team's share: auto-configure's calls at once, the deliverer's runs that may wait on a receiver.
    expect(TEAM_SHARES).toEqual({ autoConfigure: 2, webhookDeliverer: 5 });
    const fn = (s: Synthesized, kind: keyof typeof TEAM_SHARES) => {
      const construct =
        kind === 'webhookDeliverer'
          ? s.stack.webhookDeliveries.deliverer
          : (functionOfRoute(
              s.stack,
              routes.find((route) => route.fetchesWeb) as (typeof routes)[number],
            ) as ApiFunction);
      return ofType(s, 'AWS::Lambda::Function').find(([id]) => id === idOf(s, construct))?.[1];
    };
    for (const [s, teams] of [
      [production(), { autoConfigure: 5, webhookDeliverer: 10 }],
      [overridden(), { autoConfigure: 2, webhookDeliverer: 40 }],
    ] as const) {
      for (const kind of Object.keys(TEAM_SHARES) as Array<keyof typeof TEAM_SHARES>) {
        const reserved = fn(s, kind)?.Properties.ReservedConcurrentExecutions as number;
        expect(reserved / TEAM_SHARES[kind], kind).toBe(teams[kind]);
      }
    }
    // A pool one team's share could fill, or nearly, is refused at synth time, naming what to reserve.
    expect(() => settingsOf({ autoConfigure: 3 })).toThrow(
      "context concurrency.autoConfigure: 3 is less than 4, 2 teams' shares of 2: one team could hold all of it " +
        'and leave every other team waiting. Reserve 4 or more.',
    );
    expect(() => settingsOf({ webhookDeliverer: 9 })).toThrow(
      /concurrency.webhookDeliverer: 9 is less than 10/,
    );
    expect(settingsOf({ autoConfigure: 4, webhookDeliverer: 10 })).toMatchObject({ autoConfigure: 4 });
    expect(settingsOf({ autoConfigure: 1, reserve: false }).reserve).toBe(false);
  });
});

describe('concurrency shares: the numbers agree with how each class is invoked', () => {
  it('the stream consumer: its share is whole shards of ten batches each (parallelization factor 10)', () => {
    for (const [s, shares] of [
      [production(), CONCURRENCY_DEFAULTS],
      [overridden(), OVERRIDDEN],
    ] as const) {
      const [, mapping] = only(s, 'AWS::Lambda::EventSourceMapping');
      const factor = mapping.Properties.ParallelizationFactor;
      expect(factor).toBe(10);
      // Shards read at once = share / factor: at least one, a whole number.
      expect(shares.streamConsumer % factor).toBe(0);
      expect(shares.streamConsumer / factor).toBeGreaterThanOrEqual(1);
      // A throttled batch is retried (not counted as a failure) until it is this old, then given up to the
      // on-failure queue: 12 hours, half the stream's retention.
      expect(mapping.Properties.MaximumRecordAgeInSeconds).toBe(12 * 3600);
      expect(mapping.Properties.DestinationConfig.OnFailure.Destination).toBeDefined();
    }
  });

  it("the deliverer: a throttled invocation waits in Lambda's queue up to 6 hours (a first try's deliveries are in no index meanwhile), a failed one is retried twice, then handed to the sweeper", () => {
    const s = production();
    const [, config] = only(
      s,
      'AWS::Lambda::EventInvokeConfig',
      (r) =>
        stringify(r.Properties.FunctionName) ===
        stringify({ Ref: idOf(s, s.stack.webhookDeliveries.deliverer) }),
    );
    expect(config.Properties).toMatchObject({
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 6 * 3600,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [idOf(s, s.stack.webhookDeliveries.sweeper), 'Arn'] } },
      },
    });
  });

  it('the sweeper: 1, so that a sweep never runs beside the one before; the next waits at most its minute', () => {
    const s = production();
    expect(CONCURRENCY_DEFAULTS.webhookSweeper).toBe(1);
    const [, rule] = only(s, 'AWS::Events::Rule');
    const sweepSeconds = webhookDelivery.sweeper.everyMinutes * 60;
    expect(rule.Properties.Targets[0].RetryPolicy).toEqual({
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: sweepSeconds,
    });
  });
});

describe('concurrency shares: a full share', () => {
  const gatewayResponse = (s: Synthesized, type: string) =>
    (ofType(s, 'AWS::ApiGateway::GatewayResponse').find(([, r]) => r.Properties.ResponseType === type)?.[1] ??
      {}) as Resource;

  it.each(['INTEGRATION_FAILURE', 'AUTHORIZER_FAILURE', 'AUTHORIZER_CONFIGURATION_ERROR'])(
    "a route's or the authorizer's: the caller gets 503 JSON with Retry-After, not API Gateway's bare 500 (%s)",
    (type) => {
      const response = gatewayResponse(production(), type);
      expect(response.Properties?.StatusCode).toBe('503');
      expect(JSON.parse(response.Properties.ResponseTemplates['application/json'])).toEqual({
        message: MESSAGES.unavailable,
      });
      expect(response.Properties.ResponseParameters).toMatchObject({
        'gatewayresponse.header.Retry-After': `'${TIMEOUTS.retryAfterSeconds}'`,
      });
    },
  );
});

describe('concurrency shares: the settings refuse what cannot fit', () => {
  it('takes the defaults from cdk.json (apiRoute 0), a share given alone over them, and apiRoute 0 given', () => {
    expect(DEFAULT_SETTINGS.concurrency).toEqual(CONCURRENCY_DEFAULTS);
    expect(CDK_JSON_CONTEXT.concurrency).toEqual(CONCURRENCY_DEFAULTS);
    expect(CONCURRENCY_DEFAULTS.apiRoute).toBe(0);
    expect(settingsOf({ apiRoute: 20 })).toEqual({ ...CONCURRENCY_DEFAULTS, apiRoute: 20 });
    expect(settingsOf({ apiRoute: 0, accountQuota: 2000 })).toEqual({
      ...CONCURRENCY_DEFAULTS,
      apiRoute: 0,
      accountQuota: 2000,
    });
  });

  it('refuses shares over what the quota lets be reserved, naming the total, the room and what to change; one fewer fits', () => {
    // 10 + 20 + 10 + 1 = 41 besides the deliverer (the routes reserve none): 900 - 41 = 859 is the most it
    // may take. The routes' share of 0 is not among the shares the refusal lists.
    const others = 10 + 20 + 10 + 1;
    const most = 900 - others;
    expect(most).toBe(859);
    expect(reservedTotal(settingsOf({ webhookDeliverer: most }))).toBe(900);
    const refusal = startsWith(
      'context concurrency: the shares reserve 901 concurrent executions (' +
        `autoConfigure 10, authorizer 20, webhookDeliverer ${most + 1}, streamConsumer 10, webhookSweeper 1), ` +
        'but an account whose quota is 1000 can reserve 900: Lambda keeps 100 unreserved. Ask AWS for a ' +
        'higher quota (Service Quotas, AWS Lambda, "Concurrent executions") and set concurrency.accountQuota ' +
        'to it, or lower the shares;',
    );
    expect(() => settingsOf({ webhookDeliverer: most + 1 })).toThrow(refusal);
    // The same shares fit a quota raised to hold them.
    expect(settingsOf({ webhookDeliverer: most + 1, accountQuota: 1001 }).webhookDeliverer).toBe(most + 1);
    // The synth stops on it, as `cdk synth` and `cdk deploy` would, before any template is written.
    expect(() => synthesize({ context: { concurrency: `{"webhookDeliverer":${most + 1}}` } })).toThrow(
      refusal,
    );
  });

  it('refuses any reservation in an account with a quota of 10, and deploys there without reservations', () => {
    const refusal =
      /^context concurrency: the shares reserve 91 concurrent executions \(autoConfigure 10, authorizer 20, webhookDeliverer 50, streamConsumer 10, webhookSweeper 1\), but an account whose quota is 10 cannot reserve any: Lambda keeps 100 unreserved\. Ask AWS for a higher quota \(Service Quotas, AWS Lambda, "Concurrent executions"\) and set concurrency\.accountQuota to it; in an account of 100 or less, set concurrency\.reserve to false \(no reservations: every function shares the account, and one class can starve the others\)\.$/;
    expect(() => settingsOf({ accountQuota: 10 })).toThrow(refusal);
    // However small the shares: nothing can be reserved at 100 or less. (The smallest a class teams share
    // may be is two teams' shares of it: auto-configure 4, the deliverer 10.)
    const smallest = {
      ...Object.fromEntries(CONCURRENCY_CLASSES.map((kind) => [kind, 1])),
      autoConfigure: 4,
      webhookDeliverer: 10,
    };
    const smallestTotal = API_ROUTES + 4 + 1 + 10 + 1 + 1;
    expect(() => settingsOf({ ...smallest, accountQuota: 100 })).toThrow(
      startsWith(
        `context concurrency: the shares reserve ${smallestTotal} concurrent executions (apiRoute 1 × ${API_ROUTES}, autoConfigure 4,`,
      ),
    );
    expect(() => settingsOf({ ...smallest, accountQuota: 100 })).toThrow(/cannot reserve any/);
    expect(settingsOf({ ...smallest, accountQuota: 101 + smallestTotal })).toMatchObject(smallest);
    expect(() => synthesize({ context: { concurrency: '{"accountQuota":10}' } })).toThrow(refusal);
    // The way out the message names: the stack synthesized above (`unreserved`) reserves nothing.
    expect(settingsOf({ accountQuota: 10, reserve: false })).toMatchObject({
      accountQuota: 10,
      reserve: false,
    });
    expect(
      unreserved()
        .stack.node.findAll()
        .filter((c) => c instanceof ApiFunction).length,
    ).toBe(routes.length + 4);
  });

  it.each([
    [{ apiRoute: -1 }, /context concurrency\.apiRoute: a number of at least 0/],
    [{ apiRoute: 1.5 }, /context concurrency\.apiRoute: a whole number, 0 or more/],
    [{ authorizer: 0 }, /context concurrency\.authorizer: a whole number, 1 or more/],
    [{ webhookSweeper: 1.5 }, /context concurrency\.webhookSweeper: a whole number, 1 or more/],
    [{ accountQuota: -1 }, /context concurrency\.accountQuota: a number of at least 0/],
    [{ reserve: 'no' }, /context concurrency\.reserve: true or false/],
    [{ apiRoutes: 5 }, /context concurrency\.apiRoutes: unknown \(accountQuota, reserve, apiRoute,/],
  ])('refuses %j, naming the key', (given, error) => {
    expect(() => settingsOf(given)).toThrow(error);
  });

  it('takes `-c` text as the CLI passes it', () => {
    const context = { ...CDK_JSON_CONTEXT, concurrency: '{"accountQuota":"2000","reserve":"false"}' };
    expect(readSettings(new App({ context }).node).concurrency).toMatchObject({
      accountQuota: 2000,
      reserve: false,
    });
  });
});
