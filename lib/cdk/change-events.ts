import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../../shared/data/table-schema.ts';
import { streamConsumer } from '../../shared/routes.ts';
import { ApiFunction } from './api-function.ts';
import { grantObjectAccess, grantTableAccess } from './grants.ts';
import { acknowledgeFailedRecordsQueue, acknowledgeObjectWildcards } from './nag.ts';
import type { WebhookDeliveries } from './webhook-deliveries.ts';

/**
 * How Lambda reads the stream for the consumer (AWS's recommendations for stream consumers), and the
 * consumer's size. A record is one item's two images (NEW_AND_OLD_IMAGES, 800 KB at most); the rates the
 * settings are made for are in docs/webhooks.md ("Scale").
 */
export const STREAM_CONSUMER = {
  /**
   * A hundred records: a busy shard (one partition's 1,000 writes a second) is read in batches that carry
   * a tenth of a second of its writes, made into events with ten PutEvents calls side by side and one
   * deliverer invocation per endpoint; ten records a batch capped a shard at about 80 a second.
   */
  batchSize: 100,
  /**
   * Ten batches of a shard at once (Lambda's most): a shard holds many teams' items, and Lambda keeps the
   * records of one partition key, a team, in order across them, so one team's busy minute holds up no
   * other team of its shard, and a resource's events keep their order. The consumer runs at most
   * shards x this at once; its share of concurrency (cdk.json `concurrency.streamConsumer`) is how many
   * run at once: past it, a batch is throttled and retried until the share frees.
   */
  parallelizationFactor: 10,
  /** Gathers what a burst (a bulk update) brings, at the cost of a second of delay. */
  maxBatchingWindow: Duration.seconds(1),
  /**
   * Bounded: a record that fails for good is given up after ten tries, instead of being retried until the
   * stream drops it 24 hours later while its shard waits; ten rather than fewer rides out a blip of the
   * table or the bus.
   */
  retryAttempts: 10,
  /**
   * Half the stream's 24-hour retention: a record this old goes to the on-failure queue while the stream
   * still holds it for another 12 hours, so it can be read again from the queue's pointer (shard and
   * sequence numbers); with a day, the pointer would name records the stream has already trimmed.
   */
  maxRecordAge: Duration.hours(12),
  /**
   * A batch is a few calls per record, one after another (events of one item stay in order), each ending
   * within SDK_CALL_BUDGET_MS (9 s) when a dependency fails: a minute lets the handler notice a failing
   * call and report the records it did not finish, rather than time out and fail the whole batch.
   */
  timeout: Duration.seconds(60),
  /**
   * Not on a request's path (no client waits for its cold start) and I/O bound: the largest batch Lambda
   * delivers is 6 MB of event, parsed well within 256 MB.
   */
  memorySize: 256,
};

/** An on-failure queue keeps its messages (pointers to the records) as long as SQS allows. */
const FAILED_RECORDS_RETENTION = Duration.days(14);

export interface ChangeEventsProps {
  /** The single table; its stream must be on (NEW_AND_OLD_IMAGES). */
  table: TableV2;
  /** What every function gets (the settings' variables). */
  environment: Record<string, string>;
  /** `PUBLIC_BASE_URL`: events render brand images as the API does. */
  publicBaseUrl: string;
  /** The public library: the consumer marks brand images no brand names any longer (orphaned-images.ts). */
  publicFiles: Bucket;
  /** What happens to the consumer's log group when the stack is deleted. */
  logRemovalPolicy: RemovalPolicy;
  /** The consumer starts webhook deliveries (`streamConsumer.deliversWebhooks`): it may invoke the deliverer. */
  webhookDeliveries: WebhookDeliveries;
  /** The consumer's share of the account's concurrency (lib/cdk/concurrency.ts); none when not given. */
  reservedConcurrency?: number;
  /** The consumer's memory (cdk.json `functionMemory`). @default STREAM_CONSUMER's */
  memorySize?: number;
  /** Active X-Ray tracing (ApiFunction's `traced`). @default true */
  traced?: boolean;
}

/**
 * Change events from the table's own stream: a consumer Lambda, built like the route functions,
 * reads the brand and contact-field records, writes event items into the table and puts each event on the
 * stack's EventBridge bus. A record that keeps failing is retried a bounded number of times, split out of
 * its batch, and then given up to the on-failure queue, so that it never holds up its shard.
 */
export class ChangeEvents extends Construct {
  readonly bus: EventBus;
  readonly consumer: ApiFunction;
  /** Where Lambda sends a pointer to each batch it gave up on (an alarm fires on any message). */
  readonly failedRecords: Queue;

  constructor(scope: Construct, id: string, props: ChangeEventsProps) {
    super(scope, id);
    const { table } = props;

    // Named after the stack (dev and production apart), so subscribers can name it in their rules.
    this.bus = new EventBus(this, 'Bus', { eventBusName: `${Stack.of(this).stackName}-change-events` });

    this.failedRecords = new Queue(this, 'FailedRecords', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: FAILED_RECORDS_RETENTION,
    });

    this.consumer = new ApiFunction(this, 'Consumer', {
      entry: streamConsumer.handler,
      environment: {
        ...props.environment,
        TABLE_NAME: table.tableName,
        EVENT_BUS_NAME: this.bus.eventBusName,
        PUBLIC_BASE_URL: props.publicBaseUrl,
        PUBLIC_BUCKET: props.publicFiles.bucketName,
      },
      timeout: STREAM_CONSUMER.timeout,
      memorySize: props.memorySize ?? STREAM_CONSUMER.memorySize,
      traced: props.traced,
      reservedConcurrentExecutions: props.reservedConcurrency,
      logRemovalPolicy: props.logRemovalPolicy,
    });
    grantTableAccess(this.consumer, table, streamConsumer.table);
    this.bus.grantPutEventsTo(this.consumer);
    if (streamConsumer.deliversWebhooks) props.webhookDeliveries.allowStart(this.consumer);
    acknowledgeObjectWildcards(this.consumer, grantObjectAccess(this.consumer, streamConsumer.files, props));

    this.consumer.addEventSource(
      new DynamoEventSource(table, {
        // A new mapping starts with the oldest record the stream still holds: no change is skipped.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: STREAM_CONSUMER.batchSize,
        maxBatchingWindow: STREAM_CONSUMER.maxBatchingWindow,
        bisectBatchOnError: true,
        retryAttempts: STREAM_CONSUMER.retryAttempts,
        maxRecordAge: STREAM_CONSUMER.maxRecordAge,
        // The handler reports the records it could not finish; Lambda retries from the first of them only.
        reportBatchItemFailures: true,
        parallelizationFactor: STREAM_CONSUMER.parallelizationFactor,
        onFailure: new SqsDlq(this.failedRecords),
        filters: [changeRecordFilter()],
      }),
    );
    acknowledgeFailedRecordsQueue(this.failedRecords);
  }
}

/**
 * The records of brand and contact-field items: their sort key begins with one of the prefixes. On the
 * stream record's `Keys`, which INSERT, MODIFY and REMOVE records all carry (a deletion is an event too).
 */
export function changeRecordFilter(): Record<string, unknown> {
  return FilterCriteria.filter({
    dynamodb: {
      Keys: {
        [TABLE_SCHEMA.sortKey]: {
          S: streamConsumer.sortKeyPrefixes.flatMap((prefix) => FilterRule.beginsWith(prefix)),
        },
      },
    },
  });
}
