import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_RESOURCES } from '../../../lib/local/local-api.ts';
import { provision } from '../../../lib/local/services.ts';
import { configure } from '../../../shared/config.ts';
import { createBrand, updateBrand } from '../../../shared/data/brand-writes.ts';
import { listEvents } from '../../../shared/data/events.ts';
import { createTeam } from '../../../shared/data/teams.ts';
import { loggedEvents } from '../../support/events.ts';
import { runScript, stopChild, waitForOutput } from '../../support/processes.ts';

/**
 * The consumer killed (SIGKILL) in the middle of the stream and started again: it reads the stream from
 * its start again, as Lambda re-delivers an unfinished batch, and the log ends with each change's event
 * once, under the same ids as before the crash. A table of its own, so that only this test's consumer
 * reads its stream.
 */
const table = `crash-${randomUUID()}`;
const env = { TABLE_NAME: table, LOG_LEVEL: 'SILENT', METRICS: 'off' };
const started: Array<ReturnType<typeof runScript>> = [];

beforeAll(async () => {
  const endpoints = {
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT as string,
    s3Endpoint: process.env.S3_ENDPOINT as string,
  };
  await provision(endpoints, { ...LOCAL_RESOURCES, tableName: table });
  configure({ ...process.env, ...env });
});
afterAll(async () => {
  for (const run of started) await stopChild(run.child, run.exited);
});

const consumer = () => {
  const run = runScript('test/support/event-consumer-process.ts', [], env);
  started.push(run);
  return run;
};

describe('the change-event consumer killed mid-stream', () => {
  it('loses no event and writes none twice; each keeps its id', async () => {
    const team = await createTeam('Crash test');
    const brand = await createBrand(team.id, { name: 'Crash 0' });
    const updates = 40;
    for (let i = 1; i <= updates; i++) await updateBrand(team.id, brand.id, { name: `Crash ${i}` });

    const first = consumer();
    await waitForOutput(first, /record 15\n/);
    first.child.kill('SIGKILL');
    await first.exited;
    const beforeCrash = (await listEvents(team.id, {}, { limit: 200 })).items;
    expect(beforeCrash.length).toBeGreaterThan(0);
    expect(beforeCrash.length).toBeLessThan(1 + updates);

    const second = consumer();
    const events = await loggedEvents(team.id, 1 + updates);
    await stopChild(second.child, second.exited);

    expect(events).toHaveLength(1 + updates);
    expect(new Set(events.map((event) => event.id)).size).toBe(1 + updates);
    const versions = events.map((event) => event.resource_version).reverse();
    expect(versions).toEqual(Array.from({ length: 1 + updates }, (_, i) => i + 1));
    // Written outside any API request (as the admin CLI writes): no request to name.
    expect(events.every((event) => event.request_id === null)).toBe(true);
    const ids = new Set(events.map((event) => event.id));
    expect(beforeCrash.filter((event) => !ids.has(event.id))).toEqual([]);
    // Read once more after a while: still no more than one each (a late write of the killed process).
    expect((await listEvents(team.id, {}, { limit: 200 })).items).toHaveLength(1 + updates);
  });
});
