import { createHash, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamo, type TransactItem, tableName } from '../data/dynamo.ts';
import { idempotencyKey } from '../data/keys.ts';
import { BadRequestError, ConflictError } from './errors.ts';
import { type ApiMiddleware, type ApiRequest, httpHandler, type ProxyHandler } from './handler.ts';
import { type ApiResponse, toProxyResult } from './response.ts';

/**
 * Idempotency-Key support (README, "Idempotency-Key"), opted into by the handlers of the creates with
 * `idempotentHandler`. A request with the header first takes a lease on a record keyed by team + endpoint
 * + key. The create then writes the record's completion in the SAME transaction as the resource
 * (`commitsWith`), so a resource never exists with its key still free, and a failed write leaves neither.
 */
export interface IdempotencyScope {
  /**
   * What a create passes to its data module: the extra transaction items for a resource, rendered the way
   * the handler will answer. No items without a key.
   */
  commitsWith<T>(render: (resource: T) => ApiResponse): (resource: T) => TransactItem[];
}

/** A handler whose request may carry an Idempotency-Key; it receives the key's scope beside the request. */
export function idempotentHandler(
  handle: (req: ApiRequest, idempotency: IdempotencyScope) => Promise<ApiResponse>,
): ProxyHandler {
  return httpHandler((req) => handle(req, leases.get(req) ?? NO_KEY), idempotency);
}

const NO_KEY: IdempotencyScope = { commitsWith: () => () => [] };

const RETENTION_SECONDS = 24 * 60 * 60;
/** A lease outlives the invocation that holds it by this much, then anyone may take the key over. */
const LEASE_MARGIN_MS = 2_000;
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

/** The clock the records are judged by; tests move it. */
export const idempotencyClock = { now: (): number => Date.now() };

interface StoredResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface IdempotencyRecord {
  status: 'IN_PROGRESS' | 'COMPLETED';
  fingerprint: string;
  lease_token?: string;
  lease_expires_at?: number;
  expires_at: number;
  response?: StoredResponse;
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

class Lease implements IdempotencyScope {
  private completionUsed = false;

  constructor(
    private readonly key: { pk: string; sk: string },
    private readonly token: string,
  ) {}

  commitsWith<T>(render: (resource: T) => ApiResponse): (resource: T) => TransactItem[] {
    return (resource) => {
      this.completionUsed = true;
      return [{ Update: this.completeInput(render(resource)) }];
    };
  }

  /** After the handler: a 2xx whose create wrote no completion, or a 4xx, is stored; a 5xx frees the key. */
  async settle(response: ApiResponse): Promise<void> {
    if (response.status >= 500) {
      await dynamo()
        .send(
          new DeleteCommand({
            TableName: tableName(),
            Key: this.key,
            ConditionExpression: 'lease_token = :token',
            ExpressionAttributeValues: { ':token': this.token },
          }),
        )
        .catch(ignoreLostLease);
    } else if (response.status >= 400 || !this.completionUsed) {
      await dynamo()
        .send(new UpdateCommand(this.completeInput(response)))
        .catch(ignoreLostLease);
    }
  }

  private completeInput(response: ApiResponse) {
    const stored: StoredResponse = {
      status: response.status,
      body: response.body ?? {},
      headers: response.headers,
    };
    return {
      TableName: tableName(),
      Key: this.key,
      UpdateExpression:
        'SET #status = :completed, #response = :response REMOVE lease_token, lease_expires_at',
      ConditionExpression: 'lease_token = :token',
      ExpressionAttributeNames: { '#status': 'status', '#response': 'response' },
      ExpressionAttributeValues: { ':completed': 'COMPLETED', ':response': stored, ':token': this.token },
    };
  }
}

/** Someone reclaimed a lease we held past its expiry: the record is theirs now, leave it alone. */
function ignoreLostLease(error: unknown): void {
  if (!(error instanceof ConditionalCheckFailedException)) throw error;
}

/**
 * Takes the lease, or answers from the existing record: a replay of the stored response, a conflict for
 * another body, or "in progress" while another request holds a live lease.
 */
async function acquire(req: ApiRequest, key: string): Promise<Lease | ApiResponse> {
  const now = idempotencyClock.now();
  const nowSeconds = Math.floor(now / 1000);
  const recordId = recordKey(req, key);
  const token = randomUUID();
  const print = fingerprint(req.body);
  const record: IdempotencyRecord = {
    status: 'IN_PROGRESS',
    fingerprint: print,
    lease_token: token,
    lease_expires_at: now + req.remainingTimeMs() + LEASE_MARGIN_MS,
    expires_at: nowSeconds + RETENTION_SECONDS,
  };
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...recordId, ...record },
        // Absent, past its 24 h (TTL deletion lags), or a lease whose holder died.
        ConditionExpression:
          'attribute_not_exists(pk) OR expires_at < :nowSeconds OR (#status = :inProgress AND lease_expires_at < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':nowSeconds': nowSeconds, ':now': now, ':inProgress': 'IN_PROGRESS' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return new Lease(recordId, token);
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException) || !error.Item) throw error;
    // The document client does not unmarshall the item that comes with a failed condition.
    const existing = unmarshall(error.Item) as IdempotencyRecord;
    if (existing.fingerprint !== print) {
      throw new ConflictError(
        'This Idempotency-Key was already used with a different request body.',
        'idempotency_key_conflict',
      );
    }
    if (existing.status === 'COMPLETED' && existing.response) {
      const { status, body, headers } = existing.response;
      return { status, body, headers: { ...headers, 'Idempotent-Replay': 'true' } };
    }
    const retryAfter = Math.max(1, Math.ceil(((existing.lease_expires_at ?? now) - now) / 1000));
    throw new ConflictError(
      'A request with this Idempotency-Key is still being processed; retry later.',
      'idempotency_request_in_progress',
      { 'Retry-After': String(retryAfter) },
    );
  }
}

const leases = new WeakMap<ApiRequest, Lease>();

/** Takes the lease before the handler and settles it after; acts only when the request has a key. */
const idempotency: ApiMiddleware = {
  before: async (request) => {
    const req = request.event;
    const key = req.headers['idempotency-key'];
    if (key === undefined) return;
    if (!VALID_KEY.test(key) || key.trim() === '') {
      throw new BadRequestError('The Idempotency-Key header must be 1 to 255 visible characters.');
    }
    const outcome = await acquire(req, key);
    // Answering from `before` skips middy's `after` stack, so the response is rendered here.
    if (!(outcome instanceof Lease)) return toProxyResult(outcome, req.requestId);
    leases.set(req, outcome);
  },
  after: async (request) => {
    const lease = leases.get(request.event);
    if (lease && request.response) await lease.settle(request.response);
  },
  // The handler threw or ran out of time: free the key, so a retry executes afresh (best effort).
  onError: async (request) => {
    await leases
      .get(request.event)
      ?.settle({ status: 500 })
      .catch(() => {});
  },
};
