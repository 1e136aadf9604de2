import { DUE_SHARDS, dueDeliveries } from '../data/webhook-deliveries.ts';
import { DELIVERIES_PER_INVOCATION, type DeliveryRequest } from './start-deliveries.ts';

/**
 * What is due by `nowMs`, per endpoint: each shard of the due index read up to now (in parallel), oldest
 * first. One request per endpoint and sweep, of at most DELIVERIES_PER_INVOCATION deliveries, so an
 * endpoint with a backlog takes one invocation per sweep and never the sweep's whole capacity; endpoints
 * are few per team (a quota), so a team with many cannot crowd out the others.
 */
export const SHARD_READ_LIMIT = 1000;

export async function dueRequests(nowMs: number): Promise<DeliveryRequest[]> {
  const shards = await Promise.all(
    Array.from({ length: DUE_SHARDS }, (_, shard) => dueDeliveries(shard, nowMs, SHARD_READ_LIMIT)),
  );
  const requests = new Map<string, DeliveryRequest>();
  for (const due of shards.flat().sort((a, b) => a.dueAt - b.dueAt)) {
    const key = `${due.teamId}#${due.endpointId}`;
    const request = requests.get(key) ?? {
      team_id: due.teamId,
      endpoint_id: due.endpointId,
      event_ids: [],
    };
    if (request.event_ids.length < DELIVERIES_PER_INVOCATION) request.event_ids.push(due.eventId);
    requests.set(key, request);
  }
  return [...requests.values()];
}
