/**
 * What `npm run cost` assumes about the traffic, each named; the deployed settings (cdk.json) it reads
 * itself. Numbers from the bench (bench/results/latest.json) say so, and test/lib/cost/cost.stack.test.ts holds them to it.
 */

/** A kind of API request: its share of the traffic and what one does. */
export interface RequestKind {
  /** Share of all API requests. */
  share: number;
  /** Billed duration of its function, ms (the function's class: memory from cdk.json `functionMemory`). */
  durationMs: number;
  functionClass: 'apiRoute' | 'autoConfigure';
  /** DynamoDB read request units (an item up to 4 KB strongly consistent, or 8 KB eventually: 1). */
  readUnits: number;
  /** DynamoDB write request units, a transaction's twice, the index entries included. */
  writeUnits: number;
  /** Changes it makes that the change-event consumer turns into an event (stream records). */
  changes: number;
  /** S3 PUTs it leads to (a presigned upload URL: the client's upload). */
  s3Puts: number;
  why: string;
}

export const REQUEST_MIX: Record<string, RequestKind> = {
  read: {
    share: 0.8,
    durationMs: 40,
    functionClass: 'apiRoute',
    readUnits: 1,
    writeUnits: 0,
    changes: 0,
    s3Puts: 0,
    why: 'GETs of brands, fields, pages, events, endpoints: one round trip each (bench), items under 4 KB',
  },
  write: {
    share: 0.17,
    durationMs: 80,
    functionClass: 'apiRoute',
    readUnits: 1,
    writeUnits: 6,
    changes: 1,
    s3Puts: 0,
    why: "creates, updates, deletes: the bench's create is UpdateItem SEQ (1) and TransactWriteItems [Put, Update] (2 × 2), and the item's byId entry (1)",
  },
  upload: {
    share: 0.025,
    durationMs: 40,
    functionClass: 'apiRoute',
    readUnits: 1,
    writeUnits: 2,
    changes: 0,
    s3Puts: 1,
    why: 'POST /files: the upload quota counted (1 read, 2 writes), and the client PUTs the file to S3',
  },
  autoConfigure: {
    share: 0.005,
    durationMs: 1500,
    functionClass: 'autoConfigure',
    readUnits: 0,
    writeUnits: 2,
    changes: 0,
    s3Puts: 0,
    why: "POST /brands/auto-configure: fetches and parses a website (about 1.5 s); the team's slot taken and let go (2 writes)",
  },
};

export const ASSUMPTIONS = {
  /** Requests a token makes a minute while in use: with the authorizer's cache, one check per token per cache time. */
  requestsPerTokenPerMinute: 6,
  /** The authorizer: one GetItem of the token (1 read unit), billed this long. */
  authorizerDurationMs: 20,
  authorizerReadUnits: 1,
  /** Lambda's START, END and REPORT lines of an invocation (REPORT with its X-Ray line), bytes. */
  platformLogBytesPerInvocation: 350,
  /** The handler's one `request` line at INFO (shared/http/handler.ts): Powertools' JSON with the request's fields. */
  requestLogLineBytes: 550,
  /** The handler's embedded-metric-format line per request (Requests, Latency, ClientErrors, ServerErrors...). */
  metricLogLineBytes: 600,
  /** CloudWatch Logs counts 26 bytes of every event besides its message. */
  logEventOverheadBytes: 26,
  /** The change-event consumer per change: invocations (batches of up to 100 records; at low traffic 1 each). */
  consumerInvocationsPerChange: 1,
  consumerDurationMs: 100,
  /** It reads the item again (a consistent GetItem: 1) and writes the event item (about 1 KB: 1) and its index entry (1). */
  consumerReadUnits: 1,
  consumerWriteUnits: 2,
  /** One event on the bus per change (under 64 KB: one chunk). */
  putEventsPerChange: 1,
  /** Custom metrics of the functions (EMF): names per route times routes, priced per month. */
  metricsPerRoute: 6,
  /** The deliverer: deliveries one invocation carries (one endpoint's due deliveries; alone, 1). */
  deliveriesPerInvocation: 1,
  /** Billed duration of an invocation: waiting for the endpoint's answer (bench p50 115 ms locally; the internet's slower). */
  delivererDurationMs: 300,
  /** Reads of a delivery: the endpoint and the event items, consistent. */
  deliveryReadUnits: 2,
  /**
   * Write units per delivery under load: at most this, the highest the bench's
   * webhook_delivery_scale.unitsPerDelivery.load has measured (it varies by run: 3.03, 3.10, 3.17, 3.21, 3.39), so the
   * cost is not understated; a test holds the recorded figure between one delivery's 3 units and this.
   */
  deliveryWriteUnits: 3.4,
  /** Decrypts per delivery from a warm deliverer (bench webhook_delivery_ms.kmsCalls: 1 in 300). */
  kmsDecryptsPerDelivery: 1 / 300,
  /** The deliverer's log bytes per delivery at INFO besides the platform and metric lines. */
  deliveryLogBytes: 300,
  /** Share of asynchronous invocations Lambda's own X-Ray sampling traces (1 a second and 5%: not configurable). */
  lambdaAsyncTraceShare: 0.05,
  /** Table size for the monthly PITR line, GB. */
  tableGb: 10,
};
