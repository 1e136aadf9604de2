import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveEventLogs } from '../../../lib/admin/migrations/events.ts';
import { LOCAL_RESOURCES } from '../../../lib/local/local-api.ts';
import { provision } from '../../../lib/local/services.ts';
import { startStreamPoller } from '../../../lib/local/stream-poller.ts';
import { configure } from '../../../shared/config.ts';
import { getDefaultBrandId } from '../../../shared/data/brand-default.ts';
import { createBrand, updateBrand } from '../../../shared/data/brand-writes.ts';
import { getBrand } from '../../../shared/data/brands.ts';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import { getEvent, putEvents } from '../../../shared/data/events.ts';
import { EVENT_PREFIX, eventsPk, teamPk } from '../../../shared/data/keys.ts';
import { createTeam } from '../../../shared/data/teams.ts';
import type { ChangeEvent } from '../../../shared/domain/event-shape.ts';
import { eventPosition } from '../../../shared/domain/event-shape.ts';
import { consumeRecords } from '../../../shared/events/stream-consumer.ts';
import { type ApiClient, apiClient, newTeam, startApi } from '../../support/api.ts';
import { HANG_MS } from '../../support/timeouts.ts';

/**
 * What a change event says is true of the change it reports: the local poller
 * hands each record over once across restarts, an event names the request and the state of its change,
 * and its time is the write's, to the microsecond.
 */
const endpoint = process.env.DYNAMODB_ENDPOINT as string;
let scratch = '';
const pollers: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'tm-event-truth-'));
});
afterAll(async () => {
  for (const poller of pollers) await poller.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe('the local stream poller restarted', () => {
  it('hands over each record once: none twice, none missed, those written while it was stopped after', async () => {
    // A table of its own, so that only this poller reads its stream.
    const table = `poller-${randomUUID()}`;
    await provision(
      { dynamodbEndpoint: endpoint, s3Endpoint: process.env.S3_ENDPOINT as string },
      {
        ...LOCAL_RESOURCES,
        tableName: table,
      },
    );
    const dynamo = new DynamoDBClient({
      region: 'us-east-1',
      endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const write = (n: number) =>
      dynamo.send(
        new PutItemCommand({
          TableName: table,
          Item: {
            pk: { S: 'TEAM#1' },
            sk: { S: 'BRAND#000000000001' },
            n: { N: String(n) },
          },
        }),
      );
    const handed: number[] = [];
    const checkpointPath = join(scratch, 'checkpoint.json');
    const start = () => {
      const poller = startStreamPoller({
        endpoint,
        tableName: table,
        checkpointPath,
        idleMs: 20,
        consume: async (event) => {
          for (const record of event.Records) handed.push(Number(record.dynamodb?.NewImage?.n?.N));
          return { batchItemFailures: [] };
        },
      });
      pollers.push(poller);
      return poller;
    };
    const handedOver = async (n: number) => {
      const deadline = Date.now() + HANG_MS;
      while (!handed.includes(n) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(handed).toContain(n);
    };

    const first = start();
    for (let n = 1; n <= 10; n++) await write(n);
    await handedOver(10);
    await first.stop();

    for (let n = 11; n <= 20; n++) await write(n); // while no poller runs
    const second = start();
    await handedOver(20);
    for (let n = 21; n <= 25; n++) await write(n);
    // Records of one item come in order: once the last is handed over, every earlier one has been.
    await handedOver(25);
    await second.stop();
    dynamo.destroy();

    expect([...handed].sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    // Its place, in the file a restart reads: the stream's, and the shard's last record.
    const checkpoint = JSON.parse(await readFile(checkpointPath, 'utf8'));
    expect(
      Object.values(checkpoint.shards).some(
        (shard) => (shard as { sequence_number?: string }).sequence_number,
      ),
    ).toBe(true);
  });
});

describe('the event log', () => {
  const sampleEvent = (teamId: number, sequence: string): ChangeEvent => ({
    id: `evt_${teamId}_${Math.floor(Date.now() / 1000)}_${sequence}_0`,
    type: 'brand.deleted',
    created_at: new Date().toISOString().replace('Z', '000Z'),
    team_id: teamId,
    resource: 'brand:1',
    resource_version: 1,
    request_id: null,
    data: { object: { id: 1 }, previous_attributes: null },
  });
  const positionOf = (event: ChangeEvent) => eventPosition(event.id)?.position as string;

  it("is a partition of its own per team, apart from the team's other items", async () => {
    const team = await createTeam('Own log');
    const event = sampleEvent(team.id, '11');
    await putEvents([event]);
    const at = (pk: string) =>
      dynamo().send(
        new GetCommand({ TableName: tableName(), Key: { pk, sk: `${EVENT_PREFIX}${positionOf(event)}` } }),
      );
    expect((await at(eventsPk(team.id))).Item?.id).toBe(event.id);
    expect((await at(teamPk(team.id))).Item).toBeUndefined();
  });

  it('is moved from where earlier versions kept it by `admin migrate`, once', async () => {
    const team = await createTeam('Old log');
    const kept = sampleEvent(team.id, '12');
    const expiredOne = sampleEvent(team.id, '13');
    const oldItem = (event: ChangeEvent, expiresAt: number) =>
      dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            pk: teamPk(team.id),
            sk: `${EVENT_PREFIX}${positionOf(event)}`,
            ...event,
            expires_at: expiresAt,
          },
        }),
      );
    await oldItem(kept, Math.floor(Date.now() / 1000) + 3600);
    await oldItem(expiredOne, Math.floor(Date.now() / 1000) - 1);
    expect(await getEvent(team.id, kept.id)).toBeUndefined(); // not where the API reads

    expect(await moveEventLogs()).toBeGreaterThanOrEqual(1);
    expect(await getEvent(team.id, kept.id)).toEqual({ event: kept });
    expect(await getEvent(team.id, expiredOne.id)).toBeUndefined();
    const old = await dynamo().send(
      new GetCommand({
        TableName: tableName(),
        Key: { pk: teamPk(team.id), sk: `${EVENT_PREFIX}${positionOf(kept)}` },
      }),
    );
    expect(old.Item).toBeUndefined();
  });
});

/**
 * The API writing to a table of its own, whose stream no poller reads until a test has made all its
 * writes: the records are then processed after every write, as a slow or retried batch is in AWS, so
 * anything an event took from the table as it is when processed (not from its record) would show.
 */
describe('events of writes processed after later writes', () => {
  const table = `truth-${randomUUID()}`;
  let api: Awaited<ReturnType<typeof startApi>>;

  beforeAll(async () => {
    await provision(
      { dynamodbEndpoint: endpoint, s3Endpoint: process.env.S3_ENDPOINT as string },
      {
        ...LOCAL_RESOURCES,
        tableName: table,
      },
    );
    configure({ ...process.env, TABLE_NAME: table });
    api = await startApi();
  });
  afterAll(async () => {
    await api?.close();
    configure(process.env);
  });
  // Last in the file: ids this process reserved from this table's sequences would clash with the run's.

  async function team(): Promise<{ id: number; client: ApiClient }> {
    const created = await newTeam();
    return { id: created.teamId, client: apiClient(api.url, created.token) };
  }

  /** The stream read now, from its start, by the consumer: the team's events, in the log's order. */
  async function processedEvents(teamId: number, count: number): Promise<ChangeEvent[]> {
    const events: ChangeEvent[] = [];
    const poller = startStreamPoller({
      endpoint,
      tableName: table,
      idleMs: 20,
      consume: (event) =>
        consumeRecords(event.Records, async (made) => {
          events.push(...made.filter((one) => one.team_id === teamId));
        }),
    });
    pollers.push(poller);
    const deadline = Date.now() + HANG_MS;
    while (events.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await poller.stop();
    expect(events.length).toBe(count);
    const position = (event: ChangeEvent) => event.id.split('_').slice(2, 4).map(BigInt);
    return events.sort((a, b) => {
      const [as, aq] = position(a) as [bigint, bigint];
      const [bs, bq] = position(b) as [bigint, bigint];
      return as === bs ? Number(aq - bq) : Number(as - bs);
    });
  }

  const requestOf = (response: { headers: Headers }) => response.headers.get('x-request-id');
  const summary = (event: ChangeEvent) => [
    event.type,
    event.resource,
    event.resource_version,
    event.request_id,
    event.data.object.is_default,
    event.data.previous_attributes?.is_default,
  ];

  it('names the request that moved the default, on both brands, with their versions then', async () => {
    const { id, client } = await team();
    const createA = await client.post('/api/v1/brands', { name: 'A', is_default: true });
    const createB = await client.post('/api/v1/brands', { name: 'B', is_default: true });
    const a = createA.body.id as number;
    const b = createB.body.id as number;
    const put = await client.put(`/api/v1/brands/${a}`, { is_default: true });
    expect([createA.status, createB.status, put.status]).toEqual([201, 201, 200]);

    const events = await processedEvents(id, 5);
    const of = (brand: number) => events.filter((event) => event.resource === `brand:${brand}`).map(summary);
    expect(of(a)).toEqual([
      ['brand.created', `brand:${a}`, 1, requestOf(createA), true, undefined],
      // A lost the default to B's create: B's create is the request that changed A.
      ['brand.updated', `brand:${a}`, 2, requestOf(createB), false, true],
      ['brand.updated', `brand:${a}`, 3, requestOf(put), true, false],
    ]);
    expect(of(b)).toEqual([
      ['brand.created', `brand:${b}`, 1, requestOf(createB), true, undefined],
      ['brand.updated', `brand:${b}`, 2, requestOf(put), false, true],
    ]);
    // Each brand's last event is what the API answers for it now, at the version its ETag names.
    for (const brand of [a, b]) {
      const got = await client.get(`/api/v1/brands/${brand}`);
      const last = events.filter((event) => event.resource === `brand:${brand}`).at(-1) as ChangeEvent;
      expect(last.data.object).toEqual(got.body);
      expect(got.headers.get('etag')).toContain(String(last.resource_version));
    }
  });

  it("keeps a write made right after a default switch out of the switch's events", async () => {
    const { id, client } = await team();
    const a = (await client.post('/api/v1/brands', { name: 'A', is_default: true })).body.id as number;
    const b = (await client.post('/api/v1/brands', { name: 'B' })).body.id as number;
    const move = await client.put(`/api/v1/brands/${b}`, { is_default: true });
    const laterA = await client.put(`/api/v1/brands/${a}`, { short_description: 'Written after' });
    const laterB = await client.put(`/api/v1/brands/${b}`, { short_description: 'Also after' });
    expect([move.status, laterA.status, laterB.status]).toEqual([200, 200, 200]);

    const events = await processedEvents(id, 6);
    const moved = events.filter((event) => event.data.previous_attributes?.is_default !== undefined);
    expect(moved.map((event) => [event.resource, event.request_id, event.data.object.is_default])).toEqual(
      expect.arrayContaining([
        [`brand:${a}`, requestOf(move), false],
        [`brand:${b}`, requestOf(move), true],
      ]),
    );
    expect(moved).toHaveLength(2);
    for (const event of moved) {
      expect(event.data.object.short_description).toBeNull();
      expect(event.resource_version).toBe(2);
    }
    const later = events.filter((event) => event.data.previous_attributes?.short_description !== undefined);
    expect(later.map((event) => [event.resource, event.request_id, event.resource_version])).toEqual([
      [`brand:${a}`, requestOf(laterA), 3],
      [`brand:${b}`, requestOf(laterB), 3],
    ]);
  });

  it("undoes a default move (a failed image copy) with each brand's own event, the default where it was", async () => {
    const { id } = await team();
    const a = await createBrand(id, { name: 'A', is_default: true });
    const b = await createBrand(id, { name: 'B' });
    // B's write in a later second than its create, as on a busy machine: the undoing must not carry the
    // create's time back into B's events (they would sort before the write they undo).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const moved = await updateBrand(id, b.id, { is_default: true });
    expect(await getDefaultBrandId(id)).toBe(b.id);
    await moved.undo();
    expect(await getDefaultBrandId(id)).toBe(a.id);

    const events = await processedEvents(id, 6);
    const of = (brand: number) =>
      events
        .filter((event) => event.resource === `brand:${brand}` && event.type === 'brand.updated')
        .map((event) => [event.resource_version, event.data.object.is_default]);
    expect(of(a.id)).toEqual([
      [2, false],
      [3, true],
    ]);
    expect(of(b.id)).toEqual([
      [2, true],
      [3, false],
    ]);
    // The last events are what the API answers now.
    for (const brand of [a.id, b.id]) {
      const now = await getBrand(id, brand);
      const last = events.filter((event) => event.resource === `brand:${brand}`).at(-1) as ChangeEvent;
      expect([last.resource_version, last.data.object.is_default]).toEqual([
        now.version,
        now.brand.is_default,
      ]);
    }
  });

  it('gives each event the time of its write, to the microsecond, in the log as on the bus', async () => {
    const { id, client } = await team();
    const created = await client.post('/api/v1/brands', { name: 'Timed' });
    const brand = created.body.id as number;
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a later second, the same minute mostly
    const updated = await client.put(`/api/v1/brands/${brand}`, { name: 'Timed again' });
    const beforeDelete = Date.now();
    expect((await client.delete(`/api/v1/brands/${brand}`)).status).toBe(200);
    const afterDelete = Date.now();

    const events = await processedEvents(id, 3);
    expect(events.map((event) => event.type)).toEqual(['brand.created', 'brand.updated', 'brand.deleted']);
    const [onCreate, onUpdate, onDelete] = events as [ChangeEvent, ChangeEvent, ChangeEvent];
    expect(onCreate.created_at).toBe(created.body.updated_at);
    expect(onUpdate.created_at).toBe(updated.body.updated_at);
    expect(onCreate.created_at).not.toBe(onUpdate.created_at);
    const deletedAt = Date.parse(onDelete.created_at);
    expect(deletedAt).toBeGreaterThanOrEqual(Math.floor(beforeDelete));
    expect(deletedAt).toBeLessThanOrEqual(afterDelete);
    // An id's seconds are the write's (DynamoDB Local's own record times are whole minutes).
    const seconds = (event: ChangeEvent) => Number(event.id.split('_')[2]);
    expect(events.map(seconds)).toEqual(
      events.map((event) => Math.floor(Date.parse(event.created_at) / 1000)),
    );
    // As the events API answers them.
    const listed = await client.get('/api/v1/events?limit=10');
    expect(listed.body.map((event: ChangeEvent) => event.created_at)).toEqual(
      [...events].reverse().map((event) => event.created_at),
    );
  });
});
