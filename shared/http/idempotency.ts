import { createHash } from 'node:crypto';
import type { TransactItem } from '../data/dynamo.ts';
import {
  type IdempotencyRecord,
  IdempotencyRecordWrites,
  KeyTaken,
  type StoredResponse,
} from '../data/idempotency.ts';
import type { GuardedItem } from '../data/transactions.ts';
import { ConflictError } from '../domain/errors.ts';
import { LIMITS } from '../limits.ts';
import { BadRequestError } from './errors.ts';
import { type ApiMiddleware, type ApiRequest, httpHandler, type ProxyHandler } from './handler.ts';
import type { ApiResponse } from './response.ts';

/**
 * Idempotency-Key support (README, "Idempotency-Key"), opted into by the handlers of the creates with
 * `idempotentHandler`: the header, and the answer from a record (the records themselves are the data
 * layer's: shared/data/idempotency.ts). A 2xx writes the key's record only inside the transaction that
 * writes the resource (`commitsWith`); a 4xx is stored with one conditional Put. When the key was taken,
 * the existing record comes back in the same round trip: the same body replays it, another body is a 409. A 5xx, a
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

/**
 * Visible ASCII, no space (the OpenAPI document says it too, and the README): a space inside is more often
 * two values pasted together than one key. At most LIMITS.idempotencyKeyLength.
 */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]+$/;

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

  constructor(
    private readonly record: IdempotencyRecordWrites,
    private readonly print: string,
    private readonly teamId: number,
    private readonly recorded: RecordedBody,
  ) {}

  commitsWith<T>(render: (resource: T) => ApiResponse): (resource: T) => GuardedItem[] {
    return (resource) => {
      this.inTransaction = true;
      return this.record.items(this.stored(render(resource)));
    };
  }

  forgetItems(): TransactItem[] {
    if (!this.inTransaction) return [];
    this.inTransaction = false;
    return [this.record.deleteItem()];
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
    try {
      await this.record.store(this.stored(response));
    } catch (error) {
      if (error instanceof KeyTaken) return await this.answerFrom(error.record);
      throw error;
    }
    return response;
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

  /** The answer as the record keeps it: a 2xx body as `recorded` keeps it, as JSON text. */
  private stored(response: ApiResponse): StoredResponse {
    return {
      status: response.status,
      body: JSON.stringify(
        response.status < 300 ? this.recorded.keep(response.body ?? {}, this.teamId) : (response.body ?? {}),
      ),
      headers: response.headers,
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
    const print = fingerprint(req.body);
    const record = new IdempotencyRecordWrites(req.teamId, `${req.method} ${req.route}`, key, print);
    requests.set(req, new KeyedRequest(record, print, req.teamId, recorded));
  },
  after: async (request) => {
    const keyed = requests.get(request.event);
    if (keyed && request.response) request.response = await keyed.settle(request.response);
  },
});
