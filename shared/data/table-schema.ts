/**
 * The single table's key schema, shared by the data modules, the local provisioning and the CDK stack.
 * Side-effect free on purpose: the CDK app imports it without loading an SDK client.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Finds an entity by id without knowing its team (403 vs 404); keys only. */
  idIndex: { name: 'byId', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  /** Epoch seconds after which DynamoDB may delete the item (idempotency records). */
  ttlAttribute: 'expires_at',
} as const;
