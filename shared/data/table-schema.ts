/**
 * The single table's key schema, shared by the data modules, the local provisioning and the CDK stack.
 * Side-effect free on purpose: the CDK app imports it without loading an SDK client.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Finds an entity by id without knowing its team (403 vs 404); keys only. */
  idIndex: { name: 'byId', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  /**
   * Webhook deliveries that are due, by shard and due time (shared/data/webhook-deliveries/due.ts): sparse (a
   * delivery leaves it once it succeeded or was given up); keys only.
   */
  dueIndex: { name: 'byDueTime', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  /** Epoch seconds after which DynamoDB may delete the item (idempotency records). */
  ttlAttribute: 'expires_at',
} as const;
