import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { sdkClientOptions } from '../aws.ts';
import { config } from '../config.ts';

/**
 * Starts the deliverer for endpoints with deliveries due now: one asynchronous invocation per endpoint
 * (Lambda queues it and answers at once), so each endpoint is sent to by its own invocation and one that
 * is slow or failing holds up nobody else's deliveries. Locally the stand-in of the Lambda API runs the
 * same handler (LAMBDA_ENDPOINT). A lost invocation costs a sweep interval: the sweeper finds what is due.
 */
export interface DeliveryRequest {
  team_id: number;
  endpoint_id: number;
  /** The events whose deliveries to this endpoint to try, oldest first. */
  event_ids: string[];
}

/** The deliveries one invocation tries at most (the rest wait for the next sweep). */
export const DELIVERIES_PER_INVOCATION = 50;

let client: LambdaClient | undefined;
const lambda = (): LambdaClient =>
  (client ??= new LambdaClient(sdkClientOptions(config.lambdaEndpoint(), 'local')));

export async function startDeliveries(requests: readonly DeliveryRequest[]): Promise<void> {
  const invocations = requests.flatMap((request) => {
    const chunks: DeliveryRequest[] = [];
    for (let start = 0; start < request.event_ids.length; start += DELIVERIES_PER_INVOCATION) {
      chunks.push({
        ...request,
        event_ids: request.event_ids.slice(start, start + DELIVERIES_PER_INVOCATION),
      });
    }
    return chunks;
  });
  await Promise.all(
    invocations.map((payload) =>
      lambda().send(
        new InvokeCommand({
          FunctionName: config.webhookDelivererFunction(),
          InvocationType: 'Event',
          Payload: new TextEncoder().encode(JSON.stringify(payload)),
        }),
      ),
    ),
  );
}
