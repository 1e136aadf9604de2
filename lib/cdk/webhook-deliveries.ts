import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { EventInvokeConfig } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { SDK_CALL_BUDGET_MS } from '../../shared/limits.ts';
import { webhookDelivery } from '../../shared/routes.ts';
import { DELIVERY_TIMEOUT_MS } from '../../shared/webhooks/schedule.ts';
import { ApiFunction } from './api-function.ts';
import { grantDeliveryStart, grantSigningSecrets, grantTableAccess } from './grants.ts';

/**
 * What one deliverer invocation does at most (the handler's batch): this many deliveries of one endpoint,
 * so many at a time, each answered within DELIVERY_TIMEOUT_MS or failed.
 */
const DELIVERIES_PER_INVOCATION = 50;
const CONCURRENT_DELIVERIES = 10;
const DELIVERY_ROUNDS = Math.ceil(DELIVERIES_PER_INVOCATION / CONCURRENT_DELIVERIES);

/** The two functions' sizes and how Lambda invokes them. */
export const WEBHOOK_DELIVERIES = {
  deliverer: {
    /**
     * Five rounds of ten deliveries, each round up to 15 s of waiting for the endpoints and then its table
     * writes, each ending within SDK_CALL_BUDGET_MS when the table fails: 5 × (15 + 9) s = 120 s.
     */
    timeout: Duration.millis(DELIVERY_ROUNDS * (DELIVERY_TIMEOUT_MS + SDK_CALL_BUDGET_MS)),
    /** I/O bound: ten requests in flight and their answers (read up to a limit) fit in 256 MB. */
    memorySize: 256,
    /**
     * Invoked asynchronously only (the stream consumer, the sweeper, redeliver and recover). A first try
     * writes no due record (the success path's three write units), so Lambda's retries are the crash net:
     * an invocation that failed or timed out is run again (after about 1 and 2 minutes, AWS Lambda
     * Developer Guide, "Error handling and automatic retries"), and the retried run claims again what it
     * carried: a claim whose lease ran out is taken over and tried, a live one (its first run still tries)
     * is put in the due index at its lease's end and left to the sweep. No delivery is sent twice at once:
     * every try is claimed. The retry schedule of failed tries lives in the table (schedule.ts), not here.
     */
    retryAttempts: 2,
    /**
     * A throttled invocation (the deliverer's share of concurrency is full) waits in Lambda's queue and is
     * retried until it is this old: Lambda's most, six hours, since a first try's deliveries are in no
     * index while it waits. Past it (or its retries spent), the invocation goes to its on-failure
     * destination, the sweeper, which puts what it carried in the due index (leaveDue).
     */
    maxEventAge: Duration.hours(6),
  },
  sweeper: {
    /** Reads the due index's shards and sends one asynchronous invocation per endpoint with deliveries due. */
    timeout: Duration.seconds(60),
    memorySize: 256,
    /**
     * A failed or late sweep is not retried: the next one, a minute later, finds all that it would have.
     * Retried, it would run beside the next one and invoke the deliverer twice for the same endpoints.
     * 60 s is the least EventBridge and Lambda take.
     */
    retryAttempts: 0,
    maxEventAge: Duration.minutes(1),
  },
};

export interface WebhookDeliveriesProps {
  /** The single table, with its `byDueTime` index. */
  table: TableV2;
  /** What every function gets (the settings' variables). */
  environment: Record<string, string>;
  /** `PUBLIC_BASE_URL`: event payloads render brand images as the API does. */
  publicBaseUrl: string;
  /** What happens to the functions' log groups when the stack is deleted. */
  logRemovalPolicy: RemovalPolicy;
  /** Each function's share of the account's concurrency (lib/cdk/concurrency.ts); none when not given. */
  reservedConcurrency?: { deliverer?: number; sweeper?: number };
  /** Each function's memory (cdk.json `functionMemory`). @default WEBHOOK_DELIVERIES' */
  memorySize?: { deliverer?: number; sweeper?: number };
  /** Active X-Ray tracing (ApiFunction's `traced`). @default true */
  traced?: boolean;
  /** The key webhook signing secrets are sealed under: the deliverer opens them to sign. */
  signingSecrets: IKey;
}

/**
 * Webhook deliveries: the deliverer, which sends one endpoint's due deliveries per invocation,
 * and the sweeper, which runs every `webhookDelivery.sweeper.everyMinutes` minutes and invokes the
 * deliverer for every endpoint with deliveries due. Whatever else starts deliveries (the stream consumer,
 * the redeliver and recover routes) is let to with `allowStart`. Made before the routes and the consumer,
 * and needing neither: the grants point one way only, so no dependency cycle.
 *
 * Each has its share of the account's concurrency (cdk.json `concurrency`). The deliverer's is how many
 * endpoints are delivered to at once (an invocation holds one endpoint, CONCURRENT_DELIVERIES requests at a
 * time): a burst of many endpoints' deliveries fills it, not the API's; past it, invocations wait in Lambda's
 * queue (`maxEventAge`) and the sweeper invokes again for what is still due. The sweeper's is 1: a sweep
 * still running when the next is due makes the next one wait (and be dropped after its minute), so two
 * sweeps never invoke the deliverer for the same endpoints.
 */
export class WebhookDeliveries extends Construct {
  readonly deliverer: ApiFunction;
  readonly sweeper: ApiFunction;
  /** The EventBridge rule that runs the sweeper. */
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: WebhookDeliveriesProps) {
    super(scope, id);
    const { table } = props;
    const { deliverer, sweeper } = WEBHOOK_DELIVERIES;

    this.deliverer = new ApiFunction(this, 'Deliverer', {
      entry: webhookDelivery.deliverer.handler,
      environment: {
        ...props.environment,
        TABLE_NAME: table.tableName,
        PUBLIC_BASE_URL: props.publicBaseUrl,
      },
      timeout: deliverer.timeout,
      memorySize: props.memorySize?.deliverer ?? deliverer.memorySize,
      traced: props.traced,
      reservedConcurrentExecutions: props.reservedConcurrency?.deliverer,
      logRemovalPolicy: props.logRemovalPolicy,
    });
    grantTableAccess(this.deliverer, table, webhookDelivery.deliverer.table);
    // Signs: decrypts the data keys of the endpoints' secrets (the sweeper never signs).
    grantSigningSecrets(this.deliverer, props.signingSecrets, 'open');

    this.sweeper = new ApiFunction(this, 'Sweeper', {
      entry: webhookDelivery.sweeper.handler,
      environment: { ...props.environment, TABLE_NAME: table.tableName },
      timeout: sweeper.timeout,
      memorySize: props.memorySize?.sweeper ?? sweeper.memorySize,
      traced: props.traced,
      reservedConcurrentExecutions: props.reservedConcurrency?.sweeper,
      logRemovalPolicy: props.logRemovalPolicy,
    });
    grantTableAccess(this.sweeper, table, webhookDelivery.sweeper.table);
    this.allowStart(this.sweeper);

    // The deliverer's retries and its on-failure destination, the sweeper. The permission to invoke it is a
    // policy of its own, which the deliverer does not depend on: the sweeper's grant names the deliverer,
    // so the deliverer's role policy naming the sweeper would make a dependency cycle.
    const destination = new Policy(this, 'DelivererOnFailure', {
      roles: this.deliverer.role ? [this.deliverer.role] : [],
      statements: [
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.sweeper.functionArn] }),
      ],
    });
    const sweeperArn = this.sweeper.functionArn;
    const invokeConfig = new EventInvokeConfig(this, 'DelivererInvokeConfig', {
      function: this.deliverer,
      retryAttempts: deliverer.retryAttempts,
      maxEventAge: deliverer.maxEventAge,
      onFailure: { bind: () => ({ destination: sweeperArn }) },
    });
    invokeConfig.node.addDependency(destination);

    // A rule rather than EventBridge Scheduler: a fixed rate is all it needs, and a rule invokes through
    // the function's resource policy (scoped to this rule), where a schedule would need a role of its own.
    this.schedule = new Rule(this, 'Schedule', {
      description: 'Runs the webhook sweeper: deliveries that are due',
      schedule: Schedule.rate(Duration.minutes(webhookDelivery.sweeper.everyMinutes)),
    });
    this.schedule.addTarget(
      new LambdaFunction(this.sweeper, {
        retryAttempts: sweeper.retryAttempts,
        maxEventAge: sweeper.maxEventAge,
      }),
    );
    this.sweeper.configureAsyncInvoke({
      retryAttempts: sweeper.retryAttempts,
      maxEventAge: sweeper.maxEventAge,
    });
  }

  /** Lets `fn` start deliveries: invoke the deliverer (and nothing else), whose name it is given. */
  allowStart(fn: ApiFunction): void {
    grantDeliveryStart(fn, this.deliverer);
  }
}
