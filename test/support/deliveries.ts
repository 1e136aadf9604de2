import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../../shared/data/dynamo.ts';
import { deliveryKey } from '../../shared/data/keys.ts';
import { eventPosition } from '../../shared/domain/event-shape.ts';
import { HANG_MS } from './timeouts.ts';

/** A delivery item as the table holds it (a consistent read), for the webhook tests to look into. */
export async function storedDelivery(teamId: number, endpointId: number, eventId: string) {
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: tableName(),
      Key: deliveryKey(teamId, endpointId, eventPosition(eventId)?.position as string),
      ConsistentRead: true,
    }),
  );
  return Item as {
    status: string;
    tries: number;
    next_try_at: number;
    claim?: string;
    rerun?: boolean;
    lease_until?: number;
    gsi2pk?: string;
    parked?: boolean;
  };
}

/**
 * Resolves once `condition` holds; fails after a deadline (one only a hang reaches), saying what `seen`
 * last saw.
 */
export async function until(
  condition: () => Promise<boolean> | boolean,
  deadlineMs = HANG_MS,
  seen: () => string = () => '',
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`the condition never held${seen() ? `: ${seen()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
