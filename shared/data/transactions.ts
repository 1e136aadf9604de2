import { type CancellationReason, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type NativeAttributeValue, unmarshall } from '@aws-sdk/util-dynamodb';
import { ConflictError } from '../domain/errors.ts';
import { dynamo, type TransactItem } from './dynamo.ts';

/**
 * A TransactWriteItems whose items carry a label, so a cancellation reads as "which of my conditions
 * failed" (and what the item held then) instead of by index. Generic: any entity module can use it.
 */
export class LabelledTransaction {
  readonly items: TransactItem[] = [];
  private readonly labels: string[] = [];
  private readonly guards = new Map<number, GuardedItem['refused']>();

  add(label: string, ...items: TransactItem[]): this {
    for (const item of items) {
      this.items.push(item);
      this.labels.push(label);
    }
    return this;
  }

  /** Items whose failed condition decides the outcome, whatever else failed (an Idempotency-Key record). */
  guard(items: GuardedItem[]): this {
    for (const { item, refused } of items) {
      this.guards.set(this.items.length, refused);
      this.add('guard', item);
    }
    return this;
  }

  /**
   * Writes the items: undefined on success, the reasons of the failed items by label when DynamoDB
   * cancelled the transaction for conditions, conflicts or throttling. Any other error is thrown.
   */
  async commit(): Promise<Cancellation | undefined> {
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: this.items }));
      return undefined;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      for (const [i, refused] of this.guards) {
        if (reasons[i]?.Code === 'ConditionalCheckFailed') throw refused(reasons[i]?.Item);
      }
      const cancellation = new Cancellation(error);
      reasons.forEach((reason, i) => {
        if (reason.Code && reason.Code !== 'None') cancellation.add(this.labels[i] ?? '', reason);
      });
      if (!cancellation.retryable()) throw error;
      return cancellation;
    }
  }
}

const CONFLICTS = new Set(['TransactionConflict', 'ThrottlingError']);

export class Cancellation {
  private readonly reasons = new Map<string, CancellationReason>();

  /** The original error, to rethrow when the caller cannot handle what failed. */
  constructor(readonly error: TransactionCanceledException) {}

  add(label: string, reason: CancellationReason): void {
    if (!this.reasons.has(label)) this.reasons.set(label, reason);
  }

  /** An item with this label failed its condition (a conflict is not a failed condition). */
  conditionFailed(label: string): boolean {
    return this.reasons.get(label)?.Code === 'ConditionalCheckFailed';
  }

  /** The item as it was when its condition failed (with `ReturnValuesOnConditionCheckFailure: ALL_OLD`). */
  oldItem(label: string): PlainItem | undefined {
    return plainItem(this.reasons.get(label)?.Item);
  }

  /** Some item collided with a concurrent transaction (or was throttled): worth retrying as it is. */
  conflicted(): boolean {
    return [...this.reasons.values()].some((reason) => CONFLICTS.has(reason.Code ?? ''));
  }

  retryable(): boolean {
    return [...this.reasons.values()].every(
      (reason) => reason.Code === 'ConditionalCheckFailed' || CONFLICTS.has(reason.Code ?? ''),
    );
  }
}

/**
 * A transaction item that may be refused by its condition, and the error that then ends the write (it
 * receives the item as it was, with `ReturnValuesOnConditionCheckFailure: ALL_OLD`).
 */
export interface GuardedItem {
  item: TransactItem;
  refused: (old: CancellationReason['Item']) => Error;
}

/**
 * An item that came back with a failed condition, as the document client returns items elsewhere: it
 * leaves these marshalled (`{"version": {"N": "3"}}`).
 */
export const plainItem = (item: CancellationReason['Item']): PlainItem | undefined =>
  item && unmarshall(item);

export type PlainItem = Record<string, NativeAttributeValue>;

/** How many times a write that met a concurrent one is tried in all, by every data module. */
export const WRITE_ATTEMPTS = 25;

/**
 * The one retry policy for writes that met a concurrent write (a transaction conflict, or a condition
 * that failed because the item changed since it was read): call it before attempt `attempt + 1`. It
 * sleeps a random time below an exponentially growing cap ("full jitter"), so racing writers spread out,
 * unless the failure itself taught the writer the state to retry with (`learned`); after the last attempt
 * it is a 409 the client can retry.
 */
export async function beforeRetry(attempt: number, subject: string, learned = false): Promise<void> {
  if (attempt >= WRITE_ATTEMPTS) {
    throw new ConflictError(
      `The ${subject} was changed by another request at the same time; please retry.`,
      'concurrent_modification',
    );
  }
  if (learned) return;
  const cap = Math.min(1_000, 20 * 2 ** attempt);
  await new Promise((resolve) => setTimeout(resolve, Math.random() * cap));
}
