import { AsyncLocalStorage } from 'node:async_hooks';
import { fileAccessByHandler, type ObjectStatement, objectStatements } from '../../lib/cdk/object-grants.ts';
import {
  type TableStatement,
  tableAccessByHandler,
  tableStatements,
  withinPartitions,
} from '../../lib/cdk/partition-boundaries.ts';
import { config } from '../../shared/config.ts';
import { dynamo } from '../../shared/data/dynamo.ts';
import { TABLE_SCHEMA } from '../../shared/data/table-schema.ts';
import { presigner, s3 } from '../../shared/files/s3.ts';

/**
 * Which items and objects each function touches, seen on the real DynamoDB and S3 clients (a wrapper that
 * records, nothing mocked): DynamoDB Local and s3rver enforce no IAM, so this is how the suite shows that
 * the code stays within what the stack grants (lib/cdk/partition-boundaries.ts, lib/cdk/object-grants.ts).
 *
 * A call is the work of `actor` when it is made inside `observe(actor, ...)`: every function's handler runs
 * so (observedHandler).
 */
export interface TouchedKey {
  actor: string;
  command: string;
  /** The partition key named: of the table, or of the index queried. */
  pk: string;
  indexName?: string;
  /** An update's or a condition's attribute names (an UpdateItem's, a transaction's Update). */
  attributes?: string[];
  returnValues?: string;
}

/** An S3 call's object (or bucket), and what IAM asks of it: a copy reads its source and writes its target. */
export interface TouchedObject {
  actor: string;
  action: string;
  bucket: 'private' | 'public' | 'other';
  /** The object's key; none for a bucket-level call (ListObjectsV2). */
  key?: string;
}

const actor = new AsyncLocalStorage<string>();
const touchedObjects: TouchedObject[] = [];
const touched: TouchedKey[] = [];
let installed = false;

/** Starts recording (once per process). */
function install(): void {
  if (installed) return;
  installed = true;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const who = actor.getStore();
      if (who) {
        for (const key of keysOf(context.commandName ?? '?', args.input as Input))
          touched.push({ actor: who, ...key });
      }
      return next(args);
    },
    { step: 'initialize', name: 'observeTouchedKeys', priority: 'high' },
  );
  // The presigner's signing runs the same step: a signed upload URL is the signer's PutObject.
  for (const client of [s3(), presigner()]) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const who = actor.getStore();
        if (who) touchedObjects.push(...objectsOf(context.commandName ?? '?', args.input as Input, who));
        return next(args);
      },
      { step: 'initialize', name: 'observeTouchedObjects', priority: 'high' },
    );
  }
}

const bucketKind = (bucket: unknown): TouchedObject['bucket'] =>
  bucket === config.privateBucket() ? 'private' : bucket === config.publicBucket() ? 'public' : 'other';

/** The IAM actions an S3 command asks of its objects. */
function objectsOf(command: string, input: Input, who: string): TouchedObject[] {
  const name = command.replace(/Command$/, '');
  const target = { actor: who, bucket: bucketKind(input.Bucket), key: input.Key as string | undefined };
  switch (name) {
    case 'HeadObject':
    case 'GetObject':
      return [{ ...target, action: 's3:GetObject' }];
    case 'ListObjectsV2':
      return [{ actor: who, bucket: bucketKind(input.Bucket), action: 's3:ListBucket' }];
    case 'CopyObject': {
      const source = decodeURIComponent(String(input.CopySource).replace(/^\//, ''));
      const slash = source.indexOf('/');
      return [
        {
          actor: who,
          action: 's3:GetObject',
          bucket: bucketKind(source.slice(0, slash)),
          key: source.slice(slash + 1),
        },
        { ...target, action: 's3:PutObject' },
      ];
    }
    default:
      return [{ ...target, action: `s3:${name}` }];
  }
}

/** Calls made while `work` runs (in its async context) are `who`'s. */
export function observe<T>(who: string, work: () => Promise<T>): Promise<T> {
  install();
  return actor.run(who, work);
}

/**
 * Every call of a function's handler, as the tests load it (vitest.config.ts wraps each `functions/` module's
 * `handler`), is that function's work: its file names it. The async context follows what the call starts
 * (a slot let go after the answer, a delivery started), which a stack would not show.
 */
// biome-ignore lint/suspicious/noExplicitAny: any handler's signature passes through unchanged.
export function observedHandler<F extends (...args: any[]) => any>(file: string, handler: F): F {
  install();
  return ((...args: Parameters<F>) => actor.run(file, () => handler(...args))) as F;
}

/** Every function (handler file) that touched the table so far, with what it touched. */
export function touchedByFunction(): Map<string, TouchedKey[]> {
  const byFunction = new Map<string, TouchedKey[]>();
  for (const key of touched) {
    if (!key.actor.startsWith('functions/')) continue;
    byFunction.set(key.actor, [...(byFunction.get(key.actor) ?? []), key]);
  }
  return byFunction;
}

/** The IAM action a recorded command needs: a transaction's item needs its own action. */
export function iamActionOf(command: string): string {
  const operation = command.replace(/^Transact(Write|Get)(Items)?\./, '').replace(/Item$/, '');
  return `dynamodb:${['Query', 'Scan'].includes(operation) ? operation : `${operation}Item`}`;
}

/** Whether IAM would allow the touch under these statements (actions, partition patterns, index). */
export const allowedBy = (key: TouchedKey, statements: readonly TableStatement[]): boolean =>
  statements.some(
    (statement) =>
      statement.actions.includes(iamActionOf(key.command)) &&
      (key.indexName === undefined
        ? statement.partitions !== undefined && withinPartitions(key.pk, statement.partitions)
        : statement.index === key.indexName),
  );

/** Each of `keys` that the statements would refuse, as `action pk`. */
export const outsideGrants = (keys: readonly TouchedKey[], statements: readonly TableStatement[]): string[] =>
  keys
    .filter((key) => !allowedBy(key, statements))
    .map((key) => `${iamActionOf(key.command)} ${key.pk}${key.indexName ? ` (index ${key.indexName})` : ''}`);

/**
 * Each partition pattern or index the statements grant that none of `keys` used with the statement's
 * actions, as `read TEAM#*`, `write SEQ#brand`, `query byId`: a grant wider than the code needs.
 */
export const unusedGrants = (keys: readonly TouchedKey[], statements: readonly TableStatement[]): string[] =>
  statements.flatMap((statement) => {
    const used = (key: TouchedKey, target: string) =>
      statement.actions.includes(iamActionOf(key.command)) &&
      (statement.index
        ? key.indexName === target
        : key.indexName === undefined && withinPartitions(key.pk, [target]));
    const kind = statement.index
      ? 'query'
      : statement.actions.includes('dynamodb:PutItem')
        ? 'write'
        : 'read';
    return (statement.index ? [statement.index] : (statement.partitions ?? []))
      .filter((target) => !keys.some((key) => used(key, target)))
      .map((target) => `${kind} ${target}`);
  });

/** Whether IAM would allow the S3 call under these statements (action, bucket, key prefix). */
const objectAllowedBy = (object: TouchedObject, statements: readonly ObjectStatement[]): boolean =>
  statements.some(
    (statement) =>
      statement.actions.includes(object.action) &&
      statement.bucket === object.bucket &&
      (statement.keys === undefined
        ? object.key === undefined
        : object.key !== undefined && withinPartitions(object.key, [statement.keys])),
  );

/** Each of `objects` that the statements would refuse, as `action bucket/key`. */
export const objectsOutsideGrants = (
  objects: readonly TouchedObject[],
  statements: readonly ObjectStatement[],
): string[] =>
  objects
    .filter((object) => !objectAllowedBy(object, statements))
    .map((object) => `${object.action} ${object.bucket}/${object.key ?? ''}`);

/**
 * Each key prefix the statements grant that none of `objects` used, as `s3:GetObject private/teams/*`.
 * ListBucket is never called: it is what lets S3 answer a missing key 404 rather than 403.
 */
export const unusedObjectGrants = (
  objects: readonly TouchedObject[],
  statements: readonly ObjectStatement[],
): string[] =>
  statements
    .filter((statement) => statement.keys !== undefined)
    .flatMap((statement) =>
      statement.actions
        .filter(
          (action) =>
            !objects.some(
              (object) =>
                object.action === action &&
                object.bucket === statement.bucket &&
                object.key !== undefined &&
                withinPartitions(object.key, [statement.keys as string]),
            ),
        )
        .map((action) => `${action} ${statement.bucket}/${statement.keys}`),
    );

/** Every function that called S3 so far, with what it touched. */
export function objectsByFunction(): Map<string, TouchedObject[]> {
  const byFunction = new Map<string, TouchedObject[]>();
  for (const object of touchedObjects) {
    if (!object.actor.startsWith('functions/')) continue;
    byFunction.set(object.actor, [...(byFunction.get(object.actor) ?? []), object]);
  }
  return byFunction;
}

/**
 * Each touch in this process that the function's grants would refuse, as `function: action pk`: every
 * function is held to its declaration (shared/routes.ts `table`) after each test file (support/env.ts).
 */
export function touchesOutsideGrants(): string[] {
  const access = tableAccessByHandler();
  const files = fileAccessByHandler();
  return [
    ...[...touchedByFunction()].flatMap(([file, keys]) =>
      outsideGrants(keys, tableStatements(access.get(file))).map((touch) => `${file}: ${touch}`),
    ),
    ...[...objectsByFunction()].flatMap(([file, objects]) =>
      objectsOutsideGrants(objects, objectStatements(files.get(file))).map((touch) => `${file}: ${touch}`),
    ),
  ];
}

/**
 * For every function: whether it declares table access and touched the table in this process, what it
 * touched outside its grants (items and objects), and what it was granted and never used.
 */
export function grantReport() {
  const touched = touchedByFunction();
  const objects = objectsByFunction();
  const files = fileAccessByHandler();
  return [...tableAccessByHandler()].map(([file, access]) => {
    const keys = touched.get(file) ?? [];
    const statements = tableStatements(access);
    const objectGrants = objectStatements(files.get(file));
    return {
      file,
      declared: access !== undefined,
      touched: keys.length > 0,
      outside: [
        ...outsideGrants(keys, statements),
        ...objectsOutsideGrants(objects.get(file) ?? [], objectGrants),
      ],
      unused: [
        ...unusedGrants(keys, statements),
        ...unusedObjectGrants(objects.get(file) ?? [], objectGrants),
      ],
    };
  });
}

/** What `who` touched so far. */
export const touchedBy = (who: string): TouchedKey[] => touched.filter((key) => key.actor === who);

// biome-ignore lint/suspicious/noExplicitAny: commands' inputs are read loosely, by shape.
type Input = Record<string, any>;

/** A key attribute's value, plain (the document client's) or marshalled (`{S: ...}`). */
const plain = (value: unknown): string =>
  typeof value === 'string' ? value : String((value as { S?: string } | undefined)?.S ?? value);

function keysOf(command: string, input: Input): Array<Omit<TouchedKey, 'actor'>> {
  const name = command.replace(/Command$/, '');
  const pkOf = (item: Input | undefined) => plain(item?.[TABLE_SCHEMA.partitionKey]);
  switch (name) {
    case 'Get':
    case 'GetItem':
    case 'Delete':
    case 'DeleteItem':
      return [{ command: name, pk: pkOf(input.Key) }];
    case 'Put':
    case 'PutItem':
      return [{ command: name, pk: pkOf(input.Item) }];
    case 'Update':
    case 'UpdateItem':
      return [{ command: name, pk: pkOf(input.Key), ...updateOf(input) }];
    case 'Query':
    case 'Scan':
      return [{ command: name, pk: queriedPartition(input), indexName: input.IndexName }];
    case 'BatchGet':
    case 'BatchGetItem':
      return Object.values(input.RequestItems ?? {}).flatMap((request) =>
        (request as { Keys: Input[] }).Keys.map((key) => ({ command: name, pk: pkOf(key) })),
      );
    case 'BatchWrite':
    case 'BatchWriteItem':
      return Object.values(input.RequestItems ?? {}).flatMap((requests) =>
        (requests as Input[]).map((request) => ({
          command: name,
          pk: pkOf(request.PutRequest?.Item ?? request.DeleteRequest?.Key),
        })),
      );
    case 'TransactWrite':
    case 'TransactWriteItems':
    case 'TransactGet':
    case 'TransactGetItems':
      return (input.TransactItems as Input[]).map((item) => {
        const [kind, part] = Object.entries(item)[0] as [string, Input];
        return {
          command: `${name}.${kind}`,
          pk: pkOf(part.Key ?? part.Item),
          ...(kind === 'Update' && updateOf(part)),
        };
      });
    default:
      return [{ command: name, pk: '?' }];
  }
}

/** The partition a Query names (`<partition key> = :value` in its key condition); none for a Scan. */
function queriedPartition(input: Input): string {
  const condition = String(input.KeyConditionExpression ?? '');
  const match = /^\s*\(?\s*([#\w]+)\s*=\s*(:\w+)/.exec(condition);
  if (!match) return '*';
  return plain(input.ExpressionAttributeValues?.[match[2] as string]);
}

const EXPRESSION_WORDS = new Set([
  'SET',
  'REMOVE',
  'ADD',
  'DELETE',
  'AND',
  'OR',
  'NOT',
  'BETWEEN',
  'IN',
  'attribute_exists',
  'attribute_not_exists',
  'attribute_type',
  'begins_with',
  'contains',
  'size',
  'if_not_exists',
  'list_append',
]);

/** The top-level attribute names an update expression and its condition name (`#name`s resolved). */
function updateOf(input: Input): Pick<TouchedKey, 'attributes' | 'returnValues'> {
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const text = `${input.UpdateExpression ?? ''} ${input.ConditionExpression ?? ''}`;
  const attributes = new Set<string>();
  // Values (`:x`) are not names; a path's first element is its top-level attribute.
  for (const [token] of text.replace(/:\w+/g, ' ').matchAll(/#?[A-Za-z_][\w]*(?:\.[\w#]+|\[\d+\])*/g)) {
    const first = token.split(/[.[]/)[0] as string;
    if (EXPRESSION_WORDS.has(first)) continue;
    attributes.add(first.startsWith('#') ? (names[first] ?? first) : first);
  }
  return { attributes: [...attributes], returnValues: input.ReturnValues };
}
