import { createHash } from 'node:crypto';
import { config } from '../config.ts';
import { TeamShareFullError } from '../domain/errors.ts';
import { LIMITS } from '../limits.ts';
import { type TransactItem, tableName } from './dynamo.ts';
import { itemSize } from './item-size.ts';
import { idempotencyDayKey, idempotencyKey } from './keys.ts';
import { beforeRetry, type GuardedItem, LabelledTransaction, plainItem } from './transactions.ts';

/**
 * Idempotency-Key records (README, "Idempotency-Key"): one per team, route and key, holding the answer
 * given, and a count of the team's records per day. There is no lease and no read first: a record is
 * written conditioned on being absent or expired, inside the resource's own transaction (`items`) or alone
 * (`store`); when the condition fails DynamoDB hands back the existing record (ALL_OLD) in the same round
 * trip, thrown as KeyTaken.
 */

const DAY_SECONDS = 24 * 60 * 60;
const RETENTION_SECONDS = DAY_SECONDS;

/** The clock the records are judged by; tests move it. */
export const idempotencyClock = { now: (): number => Date.now() };

/** The answer as sent: the body is kept as its JSON text, so a replay is byte for byte the same. */
export interface StoredResponse {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export interface IdempotencyRecord {
  fingerprint: string;
  /** Epoch seconds; DynamoDB's TTL removes the record some time after. */
  expires_at: number;
  response: StoredResponse;
}

/** The key's record exists (another request with this key got there first): answer from it. */
export class KeyTaken extends Error {
  constructor(readonly record: IdempotencyRecord) {
    super('Idempotency-Key already used');
  }
}

/** One keyed request's record: where it goes, and the writes that keep it. */
export class IdempotencyRecordWrites {
  private readonly key: { pk: string; sk: string };
  private readonly now = idempotencyClock.now();

  /** `route` names the route (method and path template); the key is kept only as its hash. */
  constructor(
    private readonly teamId: number,
    route: string,
    key: string,
    private readonly fingerprint: string,
  ) {
    this.key = idempotencyKey(teamId, route, createHash('sha256').update(key).digest('hex'));
  }

  /**
   * The record, and the count of the team's records of the day (its own item, so nothing else the
   * transaction writes is touched twice): the key taken decides first (a replay even on a full day).
   */
  items(response: StoredResponse): GuardedItem[] {
    return [
      {
        item: { Put: this.recordPut(response) },
        refused: (old) => new KeyTaken((plainItem(old) ?? {}) as IdempotencyRecord),
      },
      { item: { Update: this.dayCount() }, refused: () => this.dayFull() },
    ];
  }

  /** The record's deletion, for a transaction that undoes the resource's. */
  deleteItem(): TransactItem {
    return { Delete: { TableName: tableName(), Key: this.key } };
  }

  /** The record and the day's count in one transaction of their own; KeyTaken when the key was taken. */
  async store(response: StoredResponse): Promise<void> {
    const transaction = new LabelledTransaction().guard(this.items(response));
    for (let attempt = 1; ; attempt++) {
      const cancellation = await transaction.commit();
      if (!cancellation) return;
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

  private dayFull(): TeamShareFullError {
    const limit = config.quotaDefaults().idempotency_records_per_day;
    const nextDay = (Math.floor(this.now / 1000 / DAY_SECONDS) + 1) * DAY_SECONDS;
    return new TeamShareFullError(
      `The team has used its ${limit} Idempotency-Key records of the day (UTC); retry after Retry-After, or send the request without a key.`,
      Math.max(1, nextDay - Math.floor(this.now / 1000)),
    );
  }

  private recordPut(response: StoredResponse) {
    const nowSeconds = Math.floor(this.now / 1000);
    const record: IdempotencyRecord = {
      fingerprint: this.fingerprint,
      expires_at: nowSeconds + RETENTION_SECONDS,
      response,
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
