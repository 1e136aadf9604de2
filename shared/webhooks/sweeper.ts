import { type DueDelivery, dueDeliveryPages, dueShards } from '../data/webhook-deliveries/due.ts';
import { WEBHOOK_LIMITS } from '../limits.ts';
import { DELIVERIES_PER_INVOCATION, type DeliveryRequest } from './start-deliveries.ts';

/**
 * What is due by `nowMs`, per endpoint, fairly: each shard of the due index is read up to now in pages
 * (SHARDS_READ_AT_ONCE shards at a time), and an endpoint's items past DELIVERIES_PER_INVOCATION, and a
 * team's past TEAM_TAKEN_PER_SHARD, are skipped while the reading goes on, so one team's backlog, however
 * long and over however many endpoints, fills no shard's head and no more of the sweep's memory than its
 * share: everyone else's due deliveries behind it are still reached. Then one request per endpoint (its
 * oldest due, at most DELIVERIES_PER_INVOCATION) and at most WEBHOOK_LIMITS.delivererRunsPerTeam endpoints
 * per team (its share of the deliverer: more would only find the team at its bound), oldest first.
 */
export const SWEEP_PAGE_SIZE = 1000;
/**
 * Pages read per shard and sweep at most (a Query page is at most 1 MB: about 5,000 keys of 170 bytes, so
 * a page of 1,000 is 170 KB). Past 20 pages the rest of a shard waits a sweep; only what is taken (at most
 * DELIVERIES_PER_INVOCATION per endpoint) is kept, not what is read.
 */
export const SWEEP_PAGES_PER_SHARD = 20;
/**
 * Shards read at once: 16 Queries in flight, each a page of 170 KB, so a sweep of DUE_SHARDS = 512 shards
 * holds at most 16 pages (2.7 MB) in flight, whatever is due.
 */
export const SHARDS_READ_AT_ONCE = 16;
/**
 * A team's due deliveries kept per shard and sweep: as many as its runs may start (delivererRunsPerTeam
 * endpoints × DELIVERIES_PER_INVOCATION = 250), so a sweep keeps at most 250 × 512 of one team.
 */
export const TEAM_TAKEN_PER_SHARD = WEBHOOK_LIMITS.delivererRunsPerTeam * DELIVERIES_PER_INVOCATION;

export async function dueRequests(nowMs: number): Promise<DeliveryRequest[]> {
  const shards: DueDelivery[][] = [];
  let nextShard = 0;
  const shardCount = dueShards();
  const reader = async () => {
    while (nextShard < shardCount) {
      const shard = nextShard++;
      shards[shard] = await dueInShard(shard, nowMs);
    }
  };
  await Promise.all(Array.from({ length: SHARDS_READ_AT_ONCE }, reader));
  const requests = new Map<string, DeliveryRequest>();
  const endpointsOfTeam = new Map<number, number>();
  for (const due of shards.flat().sort((a, b) => a.dueAt - b.dueAt)) {
    const key = endpointOf(due);
    let request = requests.get(key);
    if (!request) {
      const endpoints = endpointsOfTeam.get(due.teamId) ?? 0;
      if (endpoints >= WEBHOOK_LIMITS.delivererRunsPerTeam) continue;
      endpointsOfTeam.set(due.teamId, endpoints + 1);
      request = { team_id: due.teamId, endpoint_id: due.endpointId, event_ids: [] };
      requests.set(key, request);
    }
    if (request.event_ids.length < DELIVERIES_PER_INVOCATION) request.event_ids.push(due.eventId);
  }
  return [...requests.values()];
}

/** Which endpoint a due delivery is for, as a map key (ids are per team). */
const endpointOf = (due: DueDelivery) => `${due.teamId}#${due.endpointId}`;

/**
 * A shard's due deliveries, oldest first, at most DELIVERIES_PER_INVOCATION per endpoint and
 * TEAM_TAKEN_PER_SHARD per team.
 */
async function dueInShard(shard: number, nowMs: number): Promise<DueDelivery[]> {
  const taken: DueDelivery[] = [];
  const perEndpoint = new Map<string, number>();
  const perTeam = new Map<number, number>();
  let pages = 0;
  for await (const items of dueDeliveryPages(shard, nowMs, SWEEP_PAGE_SIZE)) {
    for (const due of items) {
      const key = endpointOf(due);
      const count = perEndpoint.get(key) ?? 0;
      const ofTeam = perTeam.get(due.teamId) ?? 0;
      if (count >= DELIVERIES_PER_INVOCATION || ofTeam >= TEAM_TAKEN_PER_SHARD) continue;
      perEndpoint.set(key, count + 1);
      perTeam.set(due.teamId, ofTeam + 1);
      taken.push(due);
    }
    if (++pages === SWEEP_PAGES_PER_SHARD) break;
  }
  return taken;
}
