import { createHash } from 'node:crypto';
import { config } from '../config.ts';
import { type TransactItem, tableName } from '../data/dynamo.ts';
import { itemSize } from '../data/item-size.ts';
import { idempotencyDayKey, idempotencyKey } from '../data/keys.ts';
import { beforeRetry, type GuardedItem, LabelledTransaction, plainItem } from '../data/transactions.ts';
import { LIMITS } from '../limits.ts';
import { BadRequestError, ConflictError, HttpError } from './errors.ts';
import { type ApiMiddleware, type ApiRequest, httpHandler, type ProxyHandler } from './handler.ts';
import type { ApiResponse } from './response.ts';

/**
 * Idempotency-Key support (README, "Idempotency-Key"), opted into by the handlers of the creates with
 * `idempotentHandler`. There is no lease and no read first: a 2xx writes the key's record only inside the
 * transaction that writes the resource (`commitsWith`), conditioned on the record being absent or expired;
 * a 4xx is stored with one conditional Put. When the condition fails, DynamoDB hands back the existing
 * record (ALL_OLD) in the same round trip: the same body replays it, another body is a 409. A 5xx, a
 * throw or a crash leaves nothing behind, so a retry executes afresh. Two racing requests may both run
 * the handler's side effects; those must be safe to repeat (brand images: one object per source version).
 */
export interface IdempotencyScope {
  /**
   * What a create passes to its data module: the record to write in the resource's own transaction,
   * holding the response the handler will answer. No items without a key.
   */
  commitsWith<T>(render: (resource: T) => ApiResponse): (resource: T) => GuardedItem[];
  /**
   * The record's deletion, for a transaction that undoes the resource's (a brand whose image copy failed
   * after the write): the request's answer is then an error, stored or not as any error is. No items
   * without a key or before `commitsWith` ran.
   */
  forgetItems(): TransactItem[];
}

/**
 * How a route's 2xx body is kept in the record and answered again, when the body renders something that
 * may change while the resource does not (a brand's image URLs, rendered from a public base URL that may
 * move), or holds what a record must never hold (a webhook endpoint's signing secret: the record keeps its
 * id, and `replay` reads the endpoint to show the secret only while it is still the current one): `keep`
 * turns the answer into what the record holds, `replay` renders that as the answer of now (it may read).
 * For an unchanged rendering the replay is the same bytes as the first answer.
 */
export interface RecordedBody {
  keep(body: unknown, teamId: number): unknown;
  replay(body: unknown, teamId: number): unknown | Promise<unknown>;
}

const AS_ANSWERED: RecordedBody = { keep: (body) => body, replay: (body) => body };

/** A handler whose request may carry an Idempotency-Key; it receives the key's scope beside the request. */
export function idempotentHandler(
  handle: (req: ApiRequest, idempotency: IdempotencyScope) => Promise<ApiResponse>,
  recorded: RecordedBody = AS_ANSWERED,
): ProxyHandler {
  return httpHandler(async (req) => {
    const keyed = requests.get(req);
    if (!keyed) return handle(req, NO_KEY);
    try {
      return await handle(req, keyed);
    } catch (error) {
      if (error instanceof KeyTaken) return await keyed.answerFrom(error.record);
      throw error;
    }
  }, idempotency(recorded));
}

const NO_KEY: IdempotencyScope = { commitsWith: () => () => [], forgetItems: () => [] };

const DAY_SECONDS = 24 * 60 * 60;
const RETENTION_SECONDS = DAY_SECONDS;
/**
 * Visible ASCII, no space (the OpenAPI document says it too, and the README): a space inside is more often
 * two values pasted together than one key. At most LIMITS.idempotencyKeyLength.
 */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]+$/;

/** The clock the records are judged by; tests move it. */
export const idempotencyClock = { now: (): number => Date.now() };

/** The answer as sent: the body is kept as its JSON text, so a replay is byte for byte the same. */
interface StoredResponse {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

interface IdempotencyRecord {
  fingerprint: string;
  /** Epoch seconds; DynamoDB's TTL removes the record some time after. */
  expires_at: number;
  response: StoredResponse;
}

/** The key's record exists (another request with this key got there first): answer from it. */
class KeyTaken extends Error {
  constructor(readonly record: IdempotencyRecord) {
    super('Idempotency-Key already used');
  }
}

const recordKey = (req: ApiRequest, key: string) =>
  idempotencyKey(req.teamId, `${req.method} ${req.route}`, createHash('sha256').update(key).digest('hex'));

/** Key order and whitespace do not matter: the fingerprint hashes the body with its keys sorted. */
export function fingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** One keyed request: the record it would write, and how to answer when another request wrote it first. */
class KeyedRequest implements IdempotencyScope {
  /** The answer came from the record (a replay or a conflict): nothing to store. */
  private answered = false;
  /** The record went into the resource's transaction: a 2xx means it is stored. */
  private inTransaction = false;
  private readonly now = idempotencyClock.now();

  constructor(
    private readonly key: { pk: string; sk: string },
    private readonly print: string,
    private readonly teamId: number,
    private readonly recorded: RecordedBody,
  ) {}

  commitsWith<T>(render: (resource: T) => ApiResponse): (resource: T) => GuardedItem[] {
    return (resource) => {
      this.inTransaction = true;
      return this.recordItems(render(resource));
    };
  }

  forgetItems(): TransactItem[] {
    if (!this.inTransaction) return [];
    this.inTransaction = false;
    return [{ Delete: { TableName: tableName(), Key: this.key } }];
  }

  /**
   * The record, and the count of the team's records of the day (its own item, so nothing else the
   * transaction writes is touched twice): the key taken decides first (a replay even on a full day).
   */
  private recordItems(response: ApiResponse): GuardedItem[] {
    return [
      {
        item: { Put: this.recordPut(response) },
        refused: (old) => new KeyTaken((plainItem(old) ?? {}) as IdempotencyRecord),
      },
      { item: { Update: this.dayCount() }, refused: () => this.dayFull() },
    ];
  }

  /**
   * After the handler: a response not yet in the record (a 4xx) is stored with the day's count, in one
   * transaction, unless the key was taken. A 429 (this bound's or the rate limit's) is never stored, nor a
   * 403 `insufficient_scope` (a scope the body's event types need): it is the token's, not the request's,
   * and the route's own scope check stores nothing either, so a token that holds the scope may send the
   * same key and body.
   */
  async settle(response: ApiResponse): Promise<ApiResponse> {
    if (this.answered || response.status >= 500 || response.status === 429) return response;
    if ((response.body as { error_code?: unknown } | undefined)?.error_code === 'insufficient_scope') {
      return response;
    }
    if (response.status < 300 && this.inTransaction) return response;
    const transaction = new LabelledTransaction().guard(this.recordItems(response));
    for (let attempt = 1; ; attempt++) {
      let cancellation: Awaited<ReturnType<LabelledTransaction['commit']>>;
      try {
        cancellation = await transaction.commit();
      } catch (error) {
        if (error instanceof KeyTaken) return await this.answerFrom(error.record);
        throw error;
      }
      if (!cancellation) return response;
      // Met a concurrent keyed request of the team on the day's count: nothing was written.
      if (!cancellation.conflicted()) throw cancellation.error;
      await beforeRetry(attempt, 'Idempotency-Key record');
    }
  }

  /** One more record of the team today, within the day's bound; the count goes a day after its day. */
  private dayCount() {
    const day = new Date(this.now).toISOString().slice(0, 10);
    const limit = config.quotaDefaults().idempotency_records_per_day;
    return {
      TableName: tableName(),
      Key: idempotencyDayKey(this.teamId, day),
      UpdateExpression: 'ADD #count :one SET expires_at = :expires',
      ConditionExpression: `${limit > 0 ? 'attribute_not_exists(#count) OR ' : ''}#count < :limit`,
      ExpressionAttributeNames: { '#count': 'records' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':limit': limit,
        ':expires': Math.floor(Date.parse(day) / 1000) + 2 * DAY_SECONDS,
      },
    };
  }

  private dayFull(): HttpError {
    const limit = config.quotaDefaults().idempotency_records_per_day;
    const nextDay = (Math.floor(this.now / 1000 / DAY_SECONDS) + 1) * DAY_SECONDS;
    return new HttpError(
      429,
      `The team has used its ${limit} Idempotency-Key records of the day (UTC); retry after Retry-After, or send the request without a key.`,
      {},
      { 'Retry-After': String(Math.max(1, nextDay - Math.floor(this.now / 1000))) },
    );
  }

  /** The same body replays the stored response; another body is a conflict. */
  async answerFrom(record: IdempotencyRecord): Promise<ApiResponse> {
    this.answered = true;
    if (record.fingerprint !== this.print) {
      throw new ConflictError(
        'This Idempotency-Key was already used with a different request body.',
        'idempotency_key_conflict',
      );
    }
    const { status, body, headers } = record.response;
    const kept = JSON.parse(body);
    return {
      status,
      body: status < 300 ? await this.recorded.replay(kept, this.teamId) : kept,
      headers: { ...headers, 'Idempotent-Replay': 'true' },
    };
  }

  private recordPut(response: ApiResponse) {
    const nowSeconds = Math.floor(this.now / 1000);
    const record: IdempotencyRecord = {
      fingerprint: this.print,
      expires_at: nowSeconds + RETENTION_SECONDS,
      response: {
        status: response.status,
        body: JSON.stringify(
          response.status < 300
            ? this.recorded.keep(response.body ?? {}, this.teamId)
            : (response.body ?? {}),
        ),
        headers: response.headers,
      },
    };
    const item = { ...this.key, ...record };
    // The largest answer a create gives within the limits fits (a brand at every limit, 186,011 bytes); a
    // larger one is a bug of the limits, not the caller's: it fails loudly rather than keep a partial answer.
    if (itemSize(item) > LIMITS.idempotencyRecordBytes) {
      throw new Error(
        `An Idempotency-Key record of ${itemSize(item)} bytes is over LIMITS.idempotencyRecordBytes`,
      );
    }
    return {
      TableName: tableName(),
      Item: item,
      // Absent, or past its 24 hours (TTL deletion lags behind).
      ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now',
      ExpressionAttributeValues: { ':now': nowSeconds },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };
  }
}

const requests = new WeakMap<ApiRequest, KeyedRequest>();

/** Checks the key before the handler (no round trip) and stores a 4xx after it; only with a key. */
const idempotency = (recorded: RecordedBody): ApiMiddleware => ({
  before: (request) => {
    const req = request.event;
    const key = req.headers['idempotency-key'];
    if (key === undefined) return;
    if (key.length > LIMITS.idempotencyKeyLength || !IDEMPOTENCY_KEY.test(key)) {
      throw new BadRequestError(
        `The Idempotency-Key header must be 1 to ${LIMITS.idempotencyKeyLength} visible ASCII characters, without spaces.`,
      );
    }
    requests.set(req, new KeyedRequest(recordKey(req, key), fingerprint(req.body), req.teamId, recorded));
  },
  after: async (request) => {
    const keyed = requests.get(request.event);
    if (keyed && request.response) request.response = await keyed.settle(request.response);
  },
});
