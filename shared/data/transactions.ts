import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, type TransactItem } from './dynamo.ts';

/** One TransactWriteItems call: every item succeeds or none does. */
export async function transactWrite(items: TransactItem[]): Promise<void> {
  await dynamo.send(new TransactWriteCommand({ TransactItems: items }));
}

/**
 * The per-item codes of a cancelled transaction ('None' for items that passed, 'ConditionalCheckFailed',
 * 'TransactionConflict', ...), in the order of the items; undefined when the error is not a cancellation.
 */
export function cancellationCodes(error: unknown): string[] | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  return (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
}

/** Sleeps a random time below an exponentially growing cap ("full jitter"), so racing writers spread out. */
export function backOff(attempt: number): Promise<void> {
  const cap = Math.min(1_000, 20 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * cap));
}
