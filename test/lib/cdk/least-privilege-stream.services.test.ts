import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as consumerHandler } from '../../../functions/events/stream-consumer.ts';
import { freePort } from '../../../lib/local/services.ts';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import { brandKey } from '../../../shared/data/keys.ts';
import { putPrivateFile } from '../../../shared/files/library.ts';
import { streamConsumer } from '../../../shared/routes.ts';
import { useApi } from '../../support/api.ts';
import { PNG } from '../../support/images.ts';
import { grantReport } from '../../support/key-observer.ts';
import { useSettings } from '../../support/settings.ts';
import { endpointAt, useReceivers } from '../../support/webhook-receiver.ts';

/**
 * The stream consumer reads what teams write: it is held to its grants as every function is (support/env.ts,
 * test/lib/cdk/least-privilege.services.test.ts), here on real records of a brand with an image made and deleted, with the
 * team's endpoint subscribed. The Lambda API is down for this file's own starts of deliveries, so that what the consumer
 * then leaves due for the sweeper (its write of the endpoints' partitions) happens here; a file of its own,
 * as the process's Lambda client is made once.
 */
const api = useApi();
const receivers = useReceivers();

beforeAll(async () => {
  useSettings({
    AUTOCONFIGURE_ALLOW_LOOPBACK: '1',
    // A port that was free a moment ago: nothing listens on it.
    LAMBDA_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
  });
});

/** A stream record of a change from `before` to `after`, as Lambda hands it to the consumer. */
let sequence = Date.now() * 1000;
const recordOf = (before?: Record<string, unknown>, after?: Record<string, unknown>): DynamoDBRecord => ({
  eventName: before && after ? 'MODIFY' : after ? 'INSERT' : 'REMOVE',
  dynamodb: {
    SequenceNumber: String(sequence++),
    ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
    ...(before && { OldImage: marshall(before, { removeUndefinedValues: true }) as never }),
    ...(after && { NewImage: marshall(after, { removeUndefinedValues: true }) as never }),
  },
});

const storedBrand = async (teamId: number, brandId: number) =>
  (
    await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: brandKey(teamId, brandId), ConsistentRead: true }),
    )
  ).Item as Record<string, unknown>;

describe('least privilege: the stream consumer', () => {
  it('touches what its role grants, and uses every grant, on records of a brand with an image made and deleted', async () => {
    const caller = await api.caller();
    const { teamId } = caller;
    // Subscribed: the fan-out reads the team's endpoints and, with the Lambda API down, leaves them due.
    await endpointAt(caller.client, receivers, ['brand.created', 'brand.deleted']);
    // With a public image, which its removal leaves no brand naming: the consumer marks it.
    await putPrivateFile(teamId, 'streamed.png', PNG, 'image/png');
    const made = await caller.client.post('/api/v1/brands', {
      name: 'Streamed',
      logo_image_path: 'streamed.png',
    });
    expect(made.status).toBe(201);
    const item = await storedBrand(teamId, made.body.id);
    // Deleted, so that its removal's record finds the delete's tombstone (the request that deleted it).
    await caller.client.delete(`/api/v1/brands/${made.body.id}`);
    const result = await consumerHandler({ Records: [recordOf(undefined, item), recordOf(item, undefined)] });
    expect(result.batchItemFailures).toEqual([]);
    const [row] = grantReport().filter((candidate) => candidate.file === streamConsumer.handler);
    expect(row).toEqual({ ...row, declared: true, touched: true, outside: [], unused: [] });
  });
});
