import { readFileSync, rmSync, statSync } from 'node:fs';
import { type CfnElement, type NestedStack, STACK_RESOURCE_LIMIT_CONTEXT, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { reservable } from '../../lib/cdk/concurrency.ts';
import { LAMBDA_ENVIRONMENT_BYTES } from '../../lib/cdk/settings.ts';
import type { CfnTemplate } from '../../lib/cdk/synth-offline.ts';
import { type Route, routes, type TableAccess } from '../../shared/routes.ts';
import { LARGEST_SETTINGS } from './largest-settings.ts';
import {
  environmentSizes,
  IAM_ROLE_POLICY_CHARACTERS,
  type Resources,
  rendered,
  rolePolicySizes,
} from './rendered-sizes.ts';
import { CLI_CONTEXT, nestedTemplatePath, type Synthesized, synthesize, withParameters } from './synth.ts';

/**
 * Room to grow: the app synthesized with N generated routes more than the route table has, at the
 * largest settings, and every AWS limit on what the stack makes measured against its quota and its source.
 *
 * The generated rows are real route table rows (shared/routes.ts), added to the table for one synth and taken
 * out again: the stack, the concurrency shares, the 405s and the monitoring all loop over the table, so they
 * see them as they would see a new endpoint. Each row points at an existing handler of its kind: the tests
 * synthesize without bundling (synth-offline.ts), so no handler file is read beyond its existence.
 */

/**
 * One generated area of the API, as a new entity would add it: a collection and its items, each kind of
 * route the table declares. 8 routes and 5 API Gateway resources an area: 0.63 a route, where today's table
 * has 31 routes on 25 (0.81); a route on a path of its own adds 1 (the worst case for API Gateway's 300).
 */
/** The widest table access a route declares today (a webhook endpoint's update), for every write. */
const READ: TableAccess = { reads: ['team'] };
const ITEM_READ: TableAccess = { reads: ['team'], indexes: ['idIndex'] };
const WRITE: TableAccess = {
  reads: ['team', 'webhooks', 'endpoints'],
  writes: ['team', 'webhooks', 'endpoints', 'sequence:field'],
  indexes: ['idIndex'],
};

const AREA: Array<Omit<Route, 'path'> & { suffix: string }> = [
  // Read: a list and an item.
  { suffix: '', method: 'GET', handler: 'functions/contact-fields/list.ts', table: READ, statuses: [200] },
  {
    suffix: '/{id}',
    method: 'GET',
    handler: 'functions/contact-fields/get.ts',
    table: ITEM_READ,
    statuses: [200],
  },
  // Idempotent create (Idempotency-Key), then writes.
  {
    suffix: '',
    method: 'POST',
    handler: 'functions/contact-fields/create.ts',
    table: WRITE,
    statuses: [201],
  },
  {
    suffix: '/{id}',
    method: 'PUT',
    handler: 'functions/contact-fields/update.ts',
    table: WRITE,
    statuses: [200],
  },
  {
    suffix: '/{id}',
    method: 'DELETE',
    handler: 'functions/contact-fields/delete.ts',
    table: WRITE,
    statuses: [200],
  },
  // S3: every file access a row can declare (the largest role a route makes).
  {
    suffix: '/{id}/files',
    method: 'POST',
    handler: 'functions/brands/create.ts',
    table: WRITE,
    files: ['private:read', 'private:write', 'public:write'],
    statuses: [201],
  },
  // Starts webhook deliveries.
  {
    suffix: '/{id}/deliver',
    method: 'POST',
    handler: 'functions/events/redeliver.ts',
    table: WRITE,
    deliversWebhooks: true,
    statuses: [202],
  },
  // Seals and opens signing secrets.
  {
    suffix: '/{id}/secret',
    method: 'POST',
    handler: 'functions/webhook-endpoints/rotate-secret.ts',
    table: WRITE,
    signingSecrets: 'both',
    statuses: [200],
  },
];

/** `count` rows: whole areas of AREA's 8 routes, the last one cut short. Paths as long as today's areas'. */
export function generatedRoutes(count: number): Route[] {
  return Array.from({ length: count }, (_, index) => {
    const { suffix, ...row } = AREA[index % AREA.length] as (typeof AREA)[number];
    const area = `/api/v1/generated-area-${String(Math.floor(index / AREA.length)).padStart(2, '0')}`;
    const write = row.method !== 'GET';
    return {
      ...row,
      path: `${area}${suffix}`,
      scope: write ? 'contact_fields:write' : 'contact_fields:read',
    };
  });
}

/** Runs `body` with `extra` generated rows in the route table, and takes them out again (also on failure). */
export function withExtraRoutes<T>(extra: number, body: () => T): T {
  const before = routes.length;
  routes.push(...generatedRoutes(extra));
  try {
    return body();
  } finally {
    routes.splice(before);
  }
}

/** Where each quota is written down. */
export const SOURCES = {
  cloudFormation: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html',
  dashboardBody:
    'https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/CloudWatch-Dashboard-Body-Structure.html',
  cloudWatch: 'https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html',
  apiGateway: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html',
  lambda: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
  iam: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html',
} as const;

/** One limit measured on one thing the app makes. */
export interface LimitFigure {
  /** The limit, as AWS names it. */
  limit: string;
  /** What was measured: a stack, the dashboard, the largest function or role (by logical id). */
  where: string;
  value: number;
  quota: number;
  /** A quota AWS raises on request (Service Quotas): over it, ask before deploying. */
  raisable: boolean;
  source: string;
}

export interface Room {
  extra: number;
  dev: boolean;
  routes: number;
  figures: LimitFigure[];
  /** Counted only (CloudWatch has no quota on alarms per account; each is billed): a route adds 3 today. */
  alarms: number;
  dashboards: Array<{
    name: string;
    widgets: number;
    metrics: number;
    mostInWidget: number;
    bodyBytes: number;
  }>;
}

/**
 * CloudFormation's quotas per template (a nested stack's included). "1 MB" of template read as 1,000,000
 * bytes, as CDK's own warning reads it: the stricter reading.
 */
const CFN = { resources: 500, templateBytes: 1_000_000, parameters: 200, outputs: 200, stacks: 2000 };
/**
 * CloudWatch: 500 widgets a dashboard (Dashboard Body Structure), 500 metrics a widget and 2,500 a dashboard
 * (CloudWatch service quotas, "Dashboards"); alarms have no quota per account (the same page), so they are
 * counted only. The body's "1 MB" is the figure, not found on the quotas page: the body sits in the
 * nested stack's template, whose 1 MB is reached first anyway.
 */
const DASHBOARD = { widgets: 500, metricsPerWidget: 500, metrics: 2500, bodyBytes: 1_000_000 };
const API_GATEWAY_RESOURCES = 300;
const IAM_ROLES_PER_ACCOUNT = 1000;
/** The largest settings' account quota: what the shares are measured against. */
const LARGEST_ACCOUNT_QUOTA = JSON.parse(LARGEST_SETTINGS.concurrency as string).accountQuota as number;

/**
 * The app with `extra` generated routes, production or dev, at the largest settings (with the CLI's
 * metadata), and every limit's figure: per stack for every stack and nested stack the app makes (so a split
 * into more stacks is measured as it is), per dashboard for every dashboard, the largest function and role.
 * The concurrency shares are measured against the largest settings' account quota, but synthesized under a
 * quota they fit, so that the other limits can be measured past it.
 */
export function measureRoom(extra: number, dev: boolean): Room {
  const concurrency = { ...JSON.parse(LARGEST_SETTINGS.concurrency as string), accountQuota: 10_000_000 };
  const context = {
    ...CLI_CONTEXT,
    ...LARGEST_SETTINGS,
    concurrency: JSON.stringify(concurrency),
    // CDK refuses a stack over 500 resources as it synthesizes: off, so the figure can be measured past it.
    [STACK_RESOURCE_LIMIT_CONTEXT]: 0,
  };
  return withExtraRoutes(extra, () => {
    const synth = synthesize({ dev, context });
    try {
      const stackName = synth.stack.stackName;
      const stacks = stackTemplates(synth);
      const figures: LimitFigure[] = [];
      const cfn = (limit: string, where: string, value: number, quota: number, raisable = false) =>
        figures.push({ limit, where, value, quota, raisable, source: SOURCES.cloudFormation });
      for (const { where, path, template } of stacks) {
        const count = (section: unknown) => Object.keys(section ?? {}).length;
        cfn('CloudFormation resources per stack', where, count(template.Resources), CFN.resources);
        cfn('CloudFormation template body size in S3 (bytes)', where, statSync(path).size, CFN.templateBytes);
        cfn('CloudFormation parameters per stack', where, count(template.Parameters), CFN.parameters);
        cfn('CloudFormation outputs per stack', where, count(template.Outputs), CFN.outputs);
      }
      // Every stack's resources, each nested one's parameters replaced by what its parent passes it.
      const all = Object.assign({}, ...stacks.map((s) => s.resolved.Resources ?? {})) as Resources;
      const ofType = (type: string) => Object.values(all).filter((r) => r.Type === type);
      cfn(
        'CloudFormation stacks per account (the stacks and their nested ones)',
        stackName,
        stacks.length,
        CFN.stacks,
        true,
      );

      const dashboards = Object.entries(all)
        .filter(([, r]) => r.Type === 'AWS::CloudWatch::Dashboard')
        .map(([id, r]) => {
          const body = String(rendered(r.Properties.DashboardBody, all));
          const widgets = (JSON.parse(body) as { widgets: Array<{ properties?: { metrics?: unknown[] } }> })
            .widgets;
          const perWidget = widgets.map((w) => w.properties?.metrics?.length ?? 0);
          const metrics = perWidget.reduce((sum, count) => sum + count, 0);
          const mostInWidget = Math.max(0, ...perWidget);
          return {
            name: id,
            widgets: widgets.length,
            metrics,
            mostInWidget,
            bodyBytes: Buffer.byteLength(body),
          };
        });
      for (const d of dashboards) {
        const where = `dashboard ${d.name}`;
        figures.push(
          {
            limit: 'CloudWatch widgets per dashboard',
            where,
            value: d.widgets,
            quota: DASHBOARD.widgets,
            raisable: false,
            source: SOURCES.dashboardBody,
          },
          {
            limit: 'CloudWatch metrics per dashboard widget',
            where: `${where}, its fullest widget`,
            value: d.mostInWidget,
            quota: DASHBOARD.metricsPerWidget,
            raisable: false,
            source: SOURCES.cloudWatch,
          },
          {
            limit: 'CloudWatch metrics per dashboard',
            where,
            value: d.metrics,
            quota: DASHBOARD.metrics,
            raisable: false,
            source: SOURCES.cloudWatch,
          },
          {
            limit: 'CloudWatch dashboard body size (bytes)',
            where,
            value: d.bodyBytes,
            quota: DASHBOARD.bodyBytes,
            raisable: false,
            source: SOURCES.cloudWatch,
          },
        );
      }

      // The root resource is one of the API's resources too.
      figures.push({
        limit: 'API Gateway resources per REST API',
        where: stackName,
        value: 1 + ofType('AWS::ApiGateway::Resource').length,
        quota: API_GATEWAY_RESOURCES,
        raisable: true,
        source: SOURCES.apiGateway,
      });
      const everything = Template.fromJSON({ Resources: all });
      const largest = (sizes: Record<string, number>) =>
        Object.entries(sizes).reduce<[string, number]>((a, b) => (b[1] > a[1] ? b : a), ['none', 0]);
      const [envWhere, envBytes] = largest(environmentSizes(everything));
      figures.push({
        limit: 'Lambda environment variables per function (bytes)',
        where: envWhere,
        value: envBytes,
        quota: LAMBDA_ENVIRONMENT_BYTES,
        raisable: false,
        source: SOURCES.lambda,
      });
      const [roleWhere, roleChars] = largest(rolePolicySizes(everything));
      figures.push({
        limit: 'IAM inline policies per role (characters)',
        where: roleWhere,
        value: roleChars,
        quota: IAM_ROLE_POLICY_CHARACTERS,
        raisable: false,
        source: SOURCES.iam,
      });
      figures.push({
        limit: 'IAM roles per account',
        where: stackName,
        value: ofType('AWS::IAM::Role').length,
        quota: IAM_ROLES_PER_ACCOUNT,
        raisable: true,
        source: SOURCES.iam,
      });
      const reserved = ofType('AWS::Lambda::Function').reduce(
        (sum, fn) => sum + Number(fn.Properties?.ReservedConcurrentExecutions ?? 0),
        0,
      );
      figures.push({
        limit: `Lambda concurrency reserved (account quota ${LARGEST_ACCOUNT_QUOTA} less 100 unreserved)`,
        where: stackName,
        value: reserved,
        quota: reservable(LARGEST_ACCOUNT_QUOTA),
        raisable: true,
        source: SOURCES.lambda,
      });
      return {
        extra,
        dev,
        routes: routes.length,
        figures,
        alarms: ofType('AWS::CloudWatch::Alarm').length,
        dashboards,
      };
    } finally {
      rmSync(synth.outdir, { recursive: true, force: true });
    }
  });
}

interface StackTemplate {
  /** The stack's name, or its parent's and its construct path for a nested stack. */
  where: string;
  path: string;
  template: CfnTemplate;
  /** A nested stack's template with each of its parameters replaced by what its parent passes it. */
  resolved: CfnTemplate;
}

/** Every stack the app makes, top-level and nested (parents before their nested stacks), and its template. */
function stackTemplates(synth: Synthesized): StackTemplate[] {
  const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as CfnTemplate;
  const resolvedOf = new Map<Stack, CfnTemplate>();
  const stacks: StackTemplate[] = [];
  for (const stack of synth.app.node.findAll().filter((c): c is Stack => Stack.isStack(c))) {
    const parent = stack.nestedStackParent;
    if (!parent) {
      const path = synth.assembly.getStackArtifact(stack.artifactId).templateFullPath;
      const template = read(path);
      resolvedOf.set(stack, template);
      stacks.push({ where: stack.stackName, path, template, resolved: template });
      continue;
    }
    const resource = stack.nestedStackResource;
    const parentTemplate = resolvedOf.get(parent);
    if (!resource || !parentTemplate) throw new Error(`${stack.node.path}: no parent template`);
    const id = parent.resolve((resource as CfnElement).logicalId) as string;
    const given = (parentTemplate.Resources?.[id]?.Properties ?? {}) as {
      Parameters?: Record<string, unknown>;
    };
    const path = nestedTemplatePath(synth, stack as NestedStack);
    const template = read(path);
    const resolved = withParameters(template, given.Parameters ?? {});
    resolvedOf.set(stack, resolved);
    stacks.push({ where: `${parent.stackName} nested ${id}`, path, template, resolved });
  }
  return stacks;
}

/** The figures over their quota. */
/** Which limits a check counts: all by default; `hardLimits` leaves out the quotas AWS raises on request. */
export type LimitFilter = (figure: LimitFigure) => boolean;
export const hardLimits: LimitFilter = (figure) => !figure.raisable;

/** The figures over their quota (of the limits `counted`). */
export const exceeded = (room: Room, counted: LimitFilter = () => true): LimitFigure[] =>
  room.figures.filter((f) => counted(f) && f.value > f.quota);

/**
 * Each limit at its closest to its quota: of its figures (a stack and its nested one, each dashboard...), the
 * fullest. Which one that is may change as routes are added; the limit is exceeded when any one is.
 */
function fullest(room: Room): Map<string, LimitFigure> {
  const byLimit = new Map<string, LimitFigure>();
  for (const figure of room.figures) {
    const known = byLimit.get(figure.limit);
    if (!known || figure.value / figure.quota > known.value / known.quota) byLimit.set(figure.limit, figure);
  }
  return byLimit;
}

/** Where a limit is predicted to be crossed, from two synths: figures grow linearly with the routes. */
export interface Crossing {
  figure: LimitFigure;
  /** The first number of extra routes predicted over the quota (Infinity: it does not grow). */
  extra: number;
}

/**
 * Each limit's first crossing, predicted by a straight line through two measurements (a.extra < b.extra);
 * a limit measured only in `b` (a dashboard that more routes made) is predicted at `b` if over there.
 */
export function predictCrossings(a: Room, b: Room): Crossing[] {
  const before = fullest(a);
  return [...fullest(b).values()]
    .map((figure) => {
      const start = before.get(figure.limit);
      if (!start) return { figure, extra: figure.value > figure.quota ? a.extra + 1 : Infinity };
      if (start.value > start.quota) return { figure: start, extra: a.extra };
      const slope = (figure.value - start.value) / (b.extra - a.extra);
      const extra = slope > 0 ? a.extra + Math.floor((start.quota - start.value) / slope) + 1 : Infinity;
      return { figure, extra };
    })
    .sort((x, y) => x.extra - y.extra);
}

export interface FirstFailure {
  /** The fewest extra routes with a figure over its quota: `fits` has one route fewer. */
  extra: number;
  dev: boolean;
  /** The figures over their quota at `extra`. */
  exceeded: LimitFigure[];
  fits: Room;
  fails: Room;
  /** Synths it took. */
  synths: number;
}

/**
 * The first number of extra routes at which a limit is exceeded, production or dev: predicted from two
 * synths each (predictCrossings), then confirmed on the variant predicted to fail first by synthesizing at
 * the prediction and one route fewer, stepping a route at a time if the prediction was off (the area's rows
 * do not all add the same). `measured` are synths already made, of both variants at two counts.
 */
export function firstFailure(
  measured: Room[],
  measure = measureRoom,
  counted: LimitFilter = () => true,
  maxSteps = 12,
): FirstFailure {
  const predictions = [false, true].map((dev) => {
    const [a, b] = measured.filter((r) => r.dev === dev).sort((x, y) => x.extra - y.extra);
    if (!a || !b) throw new Error(`two synths of the ${dev ? 'dev' : 'production'} stack are needed`);
    const [first] = predictCrossings(a, b).filter((crossing) => counted(crossing.figure));
    return { dev, extra: first?.extra ?? Infinity };
  });
  const { dev, extra: predicted } = predictions.reduce((x, y) => (y.extra < x.extra ? y : x));
  if (!Number.isFinite(predicted)) throw new Error('no limit grows with the routes');
  const rooms = new Map(measured.filter((r) => r.dev === dev).map((r) => [r.extra, r]));
  let synths = 0;
  const at = (extra: number) => {
    let room = rooms.get(extra);
    if (!room) {
      room = measure(extra, dev);
      synths++;
      rooms.set(extra, room);
    }
    return room;
  };
  let extra = Math.max(predicted, 1);
  for (let step = 0; step < maxSteps; step++) {
    const over = (n: number) => exceeded(at(n), counted);
    if (extra === 0 && over(0).length)
      throw new Error(`the stack as it is exceeds: ${over(0).map(describeFigure).join('; ')}`);
    if (!over(extra).length) extra++;
    else if (extra > 0 && over(extra - 1).length) extra--;
    else {
      const fails = at(extra);
      return { extra, dev, exceeded: over(extra), fits: at(extra - 1), fails, synths };
    }
  }
  throw new Error(`no first failure within ${maxSteps} routes of the prediction, ${predicted}`);
}

/** A figure as a failing check names it. */
export const describeFigure = (f: LimitFigure) =>
  `${f.limit} (${f.where}): ${f.value} of ${f.quota}${f.raisable ? ' (raisable: ask AWS)' : ''} (${f.source})`;
