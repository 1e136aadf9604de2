import { startDeliveries } from '../../shared/webhooks/start-deliveries.ts';
import { dueRequests } from '../../shared/webhooks/sweeper.ts';

/** Every minute: the deliverer for each endpoint with deliveries due (retries, and anything not started). */
export const handler = async (): Promise<void> => {
  await startDeliveries(await dueRequests(Date.now()));
};
