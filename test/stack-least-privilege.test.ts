import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiFunction } from '../lib/cdk/api-function.ts';
import { PARTITION_BOUNDARIES } from '../lib/cdk/partition-boundaries.ts';
import { TABLE_SCHEMA } from '../shared/data/table-schema.ts';
import { routes } from '../shared/routes.ts';
import { functionOfRoute, logicalId, type Synthesized, synthesize } from './support/synth.ts';
import { actions, only, type Statement, statementsOfRole, stringify } from './support/template.ts';

/**
 * Least privilege on the table: the functions that talk to third parties (the webhook
 * deliverer), the one that holds every team's tokens (the authorizer) and the sweeper reach only their own
 * partitions, by IAM conditions on the partition key. test/least-privilege.test.ts shows that the code
 * touches nothing outside them.
 */
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ full: false });
});
afterAll(() => {
  if (synth) rmSync(synth.outdir, { recursive: true, force: true });
});

type BoundedStatement = Statement & { Condition?: Record<string, Record<string, unknown>> };

const authorizer = () => synth.stack.node.findChild('Authorizer') as ApiFunction;
const deliverer = () => synth.stack.webhookDeliveries.deliverer;
const sweeper = () => synth.stack.webhookDeliveries.sweeper;
const statementsOf = (fn: ApiFunction) =>
  statementsOfRole(synth, logicalId(synth.stack, fn.role?.node.defaultChild)) as BoundedStatement[];
/** The statements that name the table or one of its indexes (its ARN is part of theirs). */
const tableStatements = (fn: ApiFunction) => {
  const [tableId] = only(synth, 'AWS::DynamoDB::GlobalTable');
  return statementsOf(fn).filter((statement) => stringify(statement.Resource).includes(`"${tableId}"`));
};
const leadingKeysOf = (statement: BoundedStatement) =>
  statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
const namesIndex = (statement: BoundedStatement) => stringify(statement.Resource).includes('/index/');

describe('least privilege: partition boundaries on the table', () => {
  it('bounds the deliverer to the webhooks, endpoint and event partitions and nothing else', () => {
    expect(PARTITION_BOUNDARIES.deliverer.partitions).toEqual(['WEBHOOKS#*', 'ENDPOINT#*', 'EVENTS#*']);
    const statements = tableStatements(deliverer());
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(namesIndex(statement), stringify(statement)).toBe(false);
      expect(leadingKeysOf(statement), stringify(statement)).toEqual([
        'WEBHOOKS#*',
        'ENDPOINT#*',
        'EVENTS#*',
      ]);
    }
    // Still all it needs to do its work (reads, conditional writes, batches, transactions' checks).
    expect(statements.flatMap(actions).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
  });

  it('bounds the authorizer to tokens: GetItem, and UpdateItem of last_used_on only, returning nothing else', () => {
    expect(PARTITION_BOUNDARIES.authorizer.partitions).toEqual(['TOKEN#*']);
    const statements = tableStatements(authorizer());
    for (const statement of statements) {
      expect(namesIndex(statement), stringify(statement)).toBe(false);
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

  it("bounds the sweeper's table actions to the endpoint partitions; only its due-index Query is not", () => {
    const statements = tableStatements(sweeper());
    const onIndex = statements.filter(namesIndex);
    expect(onIndex.map((statement) => [actions(statement), stringify(statement.Resource)])).toEqual([
      [['dynamodb:Query'], expect.stringContaining(`/index/${TABLE_SCHEMA.dueIndex.name}`)],
    ]);
    const onTable = statements.filter((statement) => !namesIndex(statement));
    expect(onTable.length).toBeGreaterThan(0);
    for (const statement of onTable) {
      expect(leadingKeysOf(statement), stringify(statement)).toEqual(['ENDPOINT#*']);
    }
  });

  it("bounds auto-configure, which fetches the caller's page, to its teams' slots: no other partition, no index, no bucket", () => {
    const [route] = routes.filter((candidate) => candidate.fetchesWeb);
    expect(route?.path).toBe('/api/v1/brands/auto-configure');
    if (!route) throw new Error('no auto-configure route');
    expect(PARTITION_BOUNDARIES.autoConfigureSlots.partitions).toEqual(['AUTOCONFIGURE#*']);
    const fn = functionOfRoute(synth.stack, route);
    const statements = tableStatements(fn);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(namesIndex(statement), stringify(statement)).toBe(false);
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
