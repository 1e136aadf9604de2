import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiFunction } from '../../../lib/cdk/api-function.ts';
import {
  TABLE_WRITE_ACTIONS,
  type TableStatement,
  tableStatements,
} from '../../../lib/cdk/partition-boundaries.ts';
import { PARTITION_KINDS, partitionPattern } from '../../../shared/data/keys.ts';
import { TABLE_SCHEMA } from '../../../shared/data/table-schema.ts';
import {
  routeKey,
  routes,
  streamConsumer,
  type TableAccess,
  webhookDelivery,
} from '../../../shared/routes.ts';
import { functionOfRoute, logicalId, type Synthesized, synthesize } from '../../support/synth.ts';
import { actions, only, type Statement, statementsOfRole, stringify } from '../../support/template.ts';

/**
 * Least privilege on the table: every function's role reaches only the kinds of partition (and indexes) its
 * declaration names (shared/routes.ts `table`), by IAM conditions on the partition key; the authorizer alone
 * reaches tokens. test/lib/cdk/least-privilege.services.test.ts shows that the code touches nothing outside them, and
 * everything inside them.
 */
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ full: false });
});
afterAll(() => {
  if (synth) rmSync(synth.outdir, { recursive: true, force: true });
});

type BoundedStatement = Statement & { Condition?: Record<string, Record<string, unknown>> };

const authorizerFn = () => synth.stack.node.findChild('Authorizer') as ApiFunction;
const statementsOf = (fn: ApiFunction) =>
  statementsOfRole(synth, logicalId(synth.stack, fn.role?.node.defaultChild)) as BoundedStatement[];
/**
 * The statements on the table's items or one of its indexes (the table's ARN is part of theirs; the stream
 * consumer's reads of the stream are not item access).
 */
const tableStatementsOf = (fn: ApiFunction) => {
  const [tableId] = only(synth, 'AWS::DynamoDB::GlobalTable');
  return statementsOf(fn).filter(
    (statement) =>
      stringify(statement.Resource).includes(`"${tableId}"`) &&
      !stringify(statement.Resource).includes('StreamArn'),
  );
};
const leadingKeysOf = (statement: BoundedStatement) =>
  statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
const indexOf = (statement: BoundedStatement) => /\/index\/(\w+)/.exec(stringify(statement.Resource))?.[1];

/**
 * What statements allow, as `partition pattern or index -> actions` (CDK merges statements of one resource
 * and condition, so statements are compared by what they reach, not one by one).
 */
function reach(statements: ReadonlyArray<Omit<TableStatement, 'actions'> & { actions: readonly string[] }>) {
  const reached: Record<string, string[]> = {};
  for (const statement of statements) {
    for (const target of statement.index ? [`index ${statement.index}`] : (statement.partitions ?? [])) {
      reached[target] = [...new Set([...(reached[target] ?? []), ...statement.actions])].sort();
    }
  }
  return reached;
}

/** Every function but the authorizer (its own test below), with its declared access. */
const functions = (): Array<[string, ApiFunction, TableAccess | undefined]> => [
  ...routes.map((route): [string, ApiFunction, TableAccess | undefined] => [
    routeKey(route),
    functionOfRoute(synth.stack, route),
    route.table,
  ]),
  ['stream consumer', synth.stack.changeEvents.consumer, streamConsumer.table],
  ['deliverer', synth.stack.webhookDeliveries.deliverer, webhookDelivery.deliverer.table],
  ['sweeper', synth.stack.webhookDeliveries.sweeper, webhookDelivery.sweeper.table],
];

describe('least privilege: partition boundaries on the table', () => {
  it('grants every function exactly its declared statements: actions bounded to its partitions, Query on its indexes', () => {
    for (const [name, fn, access] of functions()) {
      const granted = reach(
        tableStatementsOf(fn).map((statement) => ({
          actions: actions(statement),
          ...(indexOf(statement)
            ? { index: indexOf(statement) }
            : { partitions: (leadingKeysOf(statement) as string[] | undefined) ?? ['unbounded'] }),
        })),
      );
      expect(granted, name).toEqual(reach(tableStatements(access)));
      // No index statement carries a key condition (the index's keys are not the table's partition keys).
      for (const statement of tableStatementsOf(fn).filter(indexOf)) {
        expect(statement.Condition, name).toBeUndefined();
      }
    }
  });

  it('lets no function but the authorizer reach tokens, and no route write what it only reads', () => {
    const tokens = PARTITION_KINDS.tokens;
    for (const [name, fn] of functions()) {
      const keys = tableStatementsOf(fn).flatMap((statement) => leadingKeysOf(statement) ?? []);
      expect(keys, name).not.toContain(tokens);
      // Every table statement is bounded: none reaches any partition (a `*` would match tokens too).
      for (const statement of tableStatementsOf(fn).filter((candidate) => !indexOf(candidate))) {
        expect(leadingKeysOf(statement), name).toBeDefined();
        expect(leadingKeysOf(statement), name).not.toContain('*');
      }
    }
    for (const route of routes.filter((candidate) => candidate.table && !candidate.table.writes)) {
      const written = tableStatementsOf(functionOfRoute(synth.stack, route))
        .flatMap(actions)
        .filter((action) => TABLE_WRITE_ACTIONS.includes(action));
      expect(written, routeKey(route)).toEqual([]);
    }
    expect(routes.filter((route) => route.method === 'GET' && route.table?.writes)).toEqual([]);
  });

  it('bounds the authorizer to tokens: GetItem, and UpdateItem of last_used_on only, returning nothing else', () => {
    const statements = tableStatementsOf(authorizerFn());
    for (const statement of statements) {
      expect(indexOf(statement), stringify(statement)).toBeUndefined();
      expect(leadingKeysOf(statement), stringify(statement)).toEqual(['TOKEN#*']);
    }
    expect(statements.flatMap(actions).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    const update = statements.find((statement) => actions(statement).includes('dynamodb:UpdateItem'));
    expect(actions(update as BoundedStatement)).toEqual(['dynamodb:UpdateItem']);
    expect(update?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TOKEN#*'] },
      'ForAllValues:StringEquals': {
        'dynamodb:Attributes': [TABLE_SCHEMA.partitionKey, TABLE_SCHEMA.sortKey, 'last_used_on'],
      },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] },
    });
  });

  it('spells the kinds of partition as the keys begin', () => {
    expect(PARTITION_KINDS).toEqual({
      team: 'TEAM#*',
      webhooks: 'WEBHOOKS#*',
      endpoints: 'ENDPOINT#*',
      events: 'EVENTS#*',
      autoConfigureSlots: 'AUTOCONFIGURE#*',
      tokens: 'TOKEN#*',
    });
    expect(partitionPattern('sequence:brand')).toBe('SEQ#brand');
  });

  it("bounds auto-configure, which fetches the caller's page, to its teams' slots: no other partition, no index, no bucket", () => {
    const [route] = routes.filter((candidate) => candidate.fetchesWeb);
    expect(route?.path).toBe('/api/v1/brands/auto-configure');
    if (!route) throw new Error('no auto-configure route');
    const fn = functionOfRoute(synth.stack, route);
    const statements = tableStatementsOf(fn);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(indexOf(statement), stringify(statement)).toBeUndefined();
      expect(leadingKeysOf(statement), stringify(statement)).toEqual(['AUTOCONFIGURE#*']);
    }
    const buckets = [synth.stack.privateFiles, synth.stack.publicFiles].map((resource) =>
      logicalId(synth.stack, resource.node.defaultChild),
    );
    const named = statementsOf(fn).map((statement) => stringify(statement.Resource));
    expect(named.filter((resource) => buckets.some((id) => resource.includes(`"${id}"`)))).toEqual([]);
    expect(
      statementsOf(fn)
        .flatMap(actions)
        .filter((action) => action.startsWith('s3:')),
    ).toEqual([]);
  });
});
