import { Duration, NestedStack, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { BillingMode, type TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import {
  type CustomMetricGroup,
  type CustomThreshold,
  DefaultDashboardFactory,
  type MetricFactory,
  MetricStatistic,
  MonitoringFacade,
  SnsAlarmActionStrategy,
} from 'cdk-monitoring-constructs';
import { Construct } from 'constructs';
import { routeKey } from '../../shared/routes.ts';
import type { ChangeEvents } from './change-events.ts';
import type { RouteFunction } from './route-areas.ts';
import type { AlarmThresholds, Settings } from './settings.ts';
import type { WebhookDeliveries } from './webhook-deliveries.ts';

/** The thresholds in cdk.json are per period of this length. */
const PERIOD = Duration.minutes(5);
/** The S3 request metrics configuration of the public bucket (the stack adds it to the bucket). */
export const BUCKET_METRICS_FILTER = 'EntireBucket';
/** The logical id of the nested stack of the alarms and the dashboard, in the stack's template. */
export const NESTED_STACK_ID = 'Monitoring';
/** Ends every alarm's description: where its reader finds what it means and what to check first. */
const RUNBOOK = 'What to check first: the README, "Operating it".';

export interface StackMonitoringProps {
  api: RestApi;
  /**
   * The name of the API's stage, as the stack names it: a literal rather than the stage's reference, which
   * would take 40-odd characters instead of 3 in each of the dashboard's and alarms' 250 or so API Gateway
   * metrics (10 KB of the template), and tell CloudWatch nothing more.
   */
  apiStage: string;
  /** Each route and its construct id (alarm names use it). */
  routeFunctions: Pick<RouteFunction, 'route' | 'id'>[];
  authorizer: IFunction;
  table: TableV2;
  /** The table's indexes: each alarms on its own throttles. */
  indexNames: string[];
  publicFiles: Bucket;
  changeEvents: ChangeEvents;
  webhookDeliveries: WebhookDeliveries;
  settings: Settings;
}

/**
 * The alarms and the one dashboard (cdk-monitoring-constructs, `MonitoringFacade`), in a nested stack of
 * their own; every alarm notifies one SNS topic, which stays in the stack. Alarms: the stage's 5xx rate; per
 * route, the p99 latency of its API Gateway method (what the client waits for, authorizer included, rather
 * than its function's duration); across routes, two Metrics Insights alarms whose contributors name the
 * route (5xx answered, by Method and Resource) or the function (throttles); the authorizer's failures and
 * throttles; the table's and its indexes' throttles and system errors; the public bucket's 5xx; the
 * change-event consumer's errors, throttles and iterator age, and its on-failure queue; the webhook
 * deliverer's and sweeper's errors and throttles, and any webhook endpoint disabled. The dashboard adds the
 * functions' own metrics. Nothing on it grows with the routes: each route is a line on one graph per signal
 * (SEARCH() by dimension), so its widgets stay under CloudWatch's 500 a dashboard at any number of routes.
 *
 * Why a nested stack: the dashboard (a third of the template at the largest settings) and the alarms (three
 * resources a route) would otherwise take the stack to CloudFormation's limits on a template's size and its
 * resources as routes are added. What they watch reaches the nested stack as its parameters (a function's
 * name, the table's, ...), one per resource watched, well under CloudFormation's 200; it has no outputs.
 * The topic stays in the stack: its ARN, its subscriptions (confirmed emails, whatever was subscribed by
 * hand) and the `AlarmTopicArn` output do not change.
 */
export class StackMonitoring extends Construct {
  readonly alarmTopic: Topic;
  /** The nested stack that holds the alarms and the dashboard. */
  readonly nestedStack: NestedStack;
  /** Metrics built with the facade's defaults (period), for the math and custom metric groups. */
  private readonly metrics: MetricFactory;

  constructor(scope: Construct, id: string, props: StackMonitoringProps) {
    super(scope, id);
    const { api, apiStage, routeFunctions, authorizer, table, indexNames, settings } = props;
    const { alarms } = settings;
    const stackName = Stack.of(this).stackName;

    // No KMS key: a notification holds alarm names and metric values only, and CloudWatch cannot publish
    // to a topic under the AWS-managed SNS key (a customer-managed key would be needed for nothing secret).
    this.alarmTopic = new Topic(this, 'AlarmTopic', { displayName: `${stackName} alarms`, enforceSSL: true });
    if (settings.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(settings.alarmEmail));

    // Without indentation, as the stack's own template.
    this.nestedStack = new NestedStack(this, 'Stack', {
      description: `${stackName}: alarms and dashboard`,
      suppressTemplateIndentation: true,
    });
    // CloudFormation names a nested stack after its parent and its logical id: `TeamMessagingApi-Monitoring-…`
    // in the console rather than `…-MonitoringStackNestedStackStackNestedStackResource7C9BD3AE-…`.
    this.nestedStack.nestedStackResource?.overrideLogicalId(NESTED_STACK_ID);
    // The alarms' and the dashboard's names begin `<stack>-Monitoring`, not `<stack>` as when they were the
    // stack's own resources. A name is an alarm's or a dashboard's identity, and CloudFormation creates the
    // nested stack's resources before it deletes those the stack no longer has: under their former names,
    // the update of a stack deployed before would fail on names already taken (or, were the old ones deleted
    // by hand, the stack's clean-up would delete the new ones by name). New names move them in one update,
    // the former alarms watching until the new ones exist.
    const namePrefix = `${stackName}-${NESTED_STACK_ID}`;
    const facade = new MonitoringFacade(this.nestedStack, 'Facade', {
      metricFactoryDefaults: { period: PERIOD },
      alarmFactoryDefaults: {
        // Names like `TeamMessagingApi-Monitoring-GetApiV1BrandsId-Latency-P99-Critical`.
        alarmNamePrefix: namePrefix,
        actionsEnabled: true,
        // Back to OK is sent too: whoever got the alarm hears that it is over.
        action: new SnsAlarmActionStrategy({ onAlarmTopic: this.alarmTopic, onOkTopic: this.alarmTopic }),
        datapointsToAlarm: alarms.datapointsToAlarm,
        evaluationPeriods: alarms.evaluationPeriods,
      },
      dashboardFactory: new DefaultDashboardFactory(this.nestedStack, 'Dashboards', {
        dashboardNamePrefix: namePrefix,
      }),
    });
    this.metrics = facade.createMetricFactory();

    facade.addLargeHeader(`${stackName}: the API (stage "${apiStage}")`);
    facade.monitorApiGateway({
      api,
      apiStage,
      alarmFriendlyName: 'Api',
      humanReadableName: 'All routes',
      // API Gateway's 5XXError averages to the share of requests answered 5xx.
      add5XXFaultRateAlarm: critical({
        maxErrorRate: alarms.api5xxRatePercent / 100,
        alarmDescriptionOverride: `More than ${alarms.api5xxRatePercent}% of requests answered 5xx.`,
      }),
    });

    facade.addLargeHeader('Routes: one line per route on each graph');
    // Per route, one alarm and no widget: its p99 latency at API Gateway (what the client waits for, authorizer
    // included). Metrics Insights has no percentile, so p99 cannot be one alarm across routes; the alarm is
    // the route's, named after it, on its Method and Resource (literals: no parameter of the nested stack).
    for (const { route, id: routeId } of routeFunctions) {
      const name = routeKey(route);
      const p99LatencyMs = route.fetchesWeb ? alarms.webP99LatencyMs : alarms.p99LatencyMs;
      // Per-method metrics: the stage's `metricsEnabled` turns on API Gateway's detailed metrics.
      facade.monitorApiGateway({
        api,
        apiStage,
        apiMethod: route.method,
        apiResource: route.path,
        alarmFriendlyName: routeId,
        humanReadableName: name,
        addToDetailDashboard: false,
        addToSummaryDashboard: false,
        addToAlarmDashboard: false,
        addLatencyP99Alarm: critical({
          maxLatency: Duration.millis(p99LatencyMs),
          alarmDescriptionOverride: `p99 latency of ${name} over ${p99LatencyMs} ms.`,
        }),
      });
    }
    // Errors and throttles of every route: one Metrics Insights alarm each, over a GROUP BY query. Each series
    // it returns (a route; a function) is a contributor of the alarm, alarming and notifying on its own, its
    // dimensions naming it; the alarm is the same whatever the number of routes.
    facade.monitorCustom({
      alarmFriendlyName: 'Routes',
      humanReadableName: 'Every route: traffic, errors, latency (one line per route)',
      metricGroups: this.routeGroups(api.restApiName, apiStage, stackName, settings),
    });

    facade.addLargeHeader('Authorizer');
    facade.monitorLambdaFunction({
      lambdaFunction: authorizer,
      isIterator: false,
      alarmFriendlyName: 'AuthorizerFunction',
      humanReadableName: 'Function of the TOKEN authorizer',
      addThrottlesCountAlarm: critical(throttled('The authorizer', alarms.lambdaThrottles)),
    });
    facade.monitorCustom({
      alarmFriendlyName: 'Authorizer',
      humanReadableName: 'Authorizer answers and failures',
      metricGroups: [
        {
          title: 'Failures: errors that were not 401 denials (clients got 503)',
          metrics: [
            {
              metric: this.authorizerFailures(authorizer, settings),
              alarmFriendlyName: 'Failures',
              addAlarm: critical(
                above(
                  alarms.lambdaErrors,
                  'The TOKEN authorizer failed (not a 401 denial): clients got 503.',
                ),
              ),
            },
          ],
        },
        {
          title: 'Answers (its own metrics)',
          metrics: ['AuthorizerAllowed', 'AuthorizerDenied'].map((name) =>
            this.ownMetric(settings, name, MetricStatistic.SUM),
          ),
        },
      ],
    });

    facade.addLargeHeader('Data');
    facade.monitorDynamoTable({
      table,
      billingMode: BillingMode.PAY_PER_REQUEST,
      alarmFriendlyName: 'Table',
      humanReadableName: 'Single table',
      addReadThrottledEventsCountAlarm: critical(
        tableThrottled('Reads of the table', alarms.dynamoThrottled),
      ),
      addWriteThrottledEventsCountAlarm: critical(
        tableThrottled('Writes to the table', alarms.dynamoThrottled),
      ),
      addSystemErrorCountAlarm: critical({
        maxErrorCount: alarms.dynamoSystemErrors,
        alarmDescriptionOverride: 'DynamoDB answered 500s (system errors).',
      }),
    });
    // A throttled index also throttles the table writes that update it.
    for (const indexName of indexNames) {
      facade.monitorDynamoTableGlobalSecondaryIndex({
        table,
        globalSecondaryIndexName: indexName,
        alarmFriendlyName: `Table-${indexName}`,
        humanReadableName: `Index ${indexName}`,
        addReadThrottledEventsCountAlarm: critical(
          tableThrottled(`Reads of the ${indexName} index`, alarms.dynamoThrottled),
        ),
        addWriteThrottledEventsCountAlarm: critical(
          tableThrottled(`Writes to the ${indexName} index`, alarms.dynamoThrottled),
        ),
      });
    }
    facade.monitorCustom({
      alarmFriendlyName: 'PublicFiles',
      humanReadableName: 'Public library bucket (read by CloudFront, written by the brand routes)',
      metricGroups: [this.bucketRequests(props.publicFiles, alarms.publicBucket5xx)],
    });

    this.monitorChangeEvents(facade, props.changeEvents, alarms);
    this.monitorWebhookDeliveries(facade, props.webhookDeliveries, settings);

    facade.addLargeHeader("The functions' own metrics");
    facade.monitorCustom({
      alarmFriendlyName: 'RouteMetrics',
      humanReadableName: `Namespace ${settings.metricsNamespace}, service ${settings.serviceName}, per route`,
      metricGroups: this.routeMetrics(settings),
    });
  }

  /**
   * The stream consumer: its errors and throttles as any function's (a failed batch is retried, then split,
   * then given up), how far behind the stream it is, and the batches given up on (any is an alarm).
   */
  private monitorChangeEvents(facade: MonitoringFacade, changeEvents: ChangeEvents, alarms: AlarmThresholds) {
    facade.addLargeHeader('Change events: the table stream, its consumer, the on-failure queue');
    facade.monitorLambdaFunction({
      lambdaFunction: changeEvents.consumer,
      isIterator: true,
      alarmFriendlyName: 'ChangeEventsFunction',
      humanReadableName: 'Change-event consumer (table stream)',
      addFaultCountAlarm: critical({
        maxErrorCount: alarms.lambdaErrors,
        alarmDescriptionOverride:
          'The change-event consumer failed a batch (crash, timeout or thrown error); Lambda retries it.',
      }),
      addThrottlesCountAlarm: critical(throttled('The change-event consumer', alarms.lambdaThrottles)),
      addMaxIteratorAgeAlarm: critical({
        maxAgeInMillis: alarms.streamIteratorAgeSeconds * 1000,
        // A quiet stream invokes nothing and reports no age: that is not falling behind.
        treatMissingDataOverride: TreatMissingData.NOT_BREACHING,
        alarmDescriptionOverride:
          `The change-event consumer is over ${alarms.streamIteratorAgeSeconds} s behind the table ` +
          'stream: events are late.',
      }),
    });
    facade.monitorSqsQueue({
      queue: changeEvents.failedRecords,
      alarmFriendlyName: 'ChangeEventsFailed',
      humanReadableName: 'Change-event records given up on (on-failure queue)',
      addQueueMaxSizeAlarm: critical({
        maxMessageCount: 0,
        treatMissingDataOverride: TreatMissingData.NOT_BREACHING,
        alarmDescriptionOverride:
          'The change-event consumer gave up on stream records: their events were not written or published.',
      }),
    });
  }

  /**
   * Webhook deliveries: the deliverer's and the sweeper's errors and throttles as any function's (a failed
   * invocation is not retried by Lambda: its deliveries stay due for the next sweep), and the endpoints the
   * deliverer disabled (its own metric; any one is an alarm at once, not after 2 of 3 periods, since one
   * endpoint is disabled once).
   */
  private monitorWebhookDeliveries(
    facade: MonitoringFacade,
    webhooks: WebhookDeliveries,
    settings: Settings,
  ) {
    const { alarms } = settings;
    facade.addLargeHeader('Webhook deliveries: the deliverer, the sweeper, endpoints disabled');
    for (const [fn, friendlyName, humanName, what, consequence] of [
      [
        webhooks.deliverer,
        'WebhookDelivererFunction',
        'Webhook deliverer (one endpoint per invocation)',
        'The webhook deliverer',
        'crashed or timed out: its deliveries stay due, the next sweep sends them.',
      ],
      [
        webhooks.sweeper,
        'WebhookSweeperFunction',
        'Webhook sweeper (every minute)',
        'The webhook sweeper',
        'failed a run: due deliveries wait for a sweep that succeeds.',
      ],
    ] as const) {
      facade.monitorLambdaFunction({
        lambdaFunction: fn,
        isIterator: false,
        alarmFriendlyName: friendlyName,
        humanReadableName: humanName,
        addFaultCountAlarm: critical({
          maxErrorCount: alarms.lambdaErrors,
          alarmDescriptionOverride: `${what} ${consequence}`,
        }),
        addThrottlesCountAlarm: critical(throttled(what, alarms.lambdaThrottles)),
      });
    }
    facade.monitorCustom({
      alarmFriendlyName: 'Webhooks',
      humanReadableName: "Webhook endpoints disabled (the deliverer's own metric)",
      metricGroups: [
        {
          title: 'Endpoints disabled: failing for 5 days, or answered 410 Gone',
          metrics: [
            {
              metric: this.ownMetric(settings, 'WebhookEndpointsDisabled', MetricStatistic.SUM),
              alarmFriendlyName: 'EndpointsDisabled',
              addAlarm: critical({
                ...above(
                  0,
                  'A webhook endpoint was disabled (it failed for 5 days or answered 410 Gone): nothing is ' +
                    "sent to it until its team enables it again. The deliverer's log group says which.",
                ),
                evaluationPeriods: 1,
                datapointsToAlarm: 1,
              }),
            },
          ],
        },
      ],
    });
  }

  /** Lambda errors of the authorizer minus its 401 denials (its own `AuthorizerDenied` metric). */
  private authorizerFailures(authorizer: IFunction, settings: Settings): MathExpression {
    return new MathExpression({
      expression: 'FILL(errors, 0) - FILL(denied, 0)',
      usingMetrics: {
        errors: authorizer.metricErrors({ period: PERIOD }),
        denied: this.ownMetric(settings, 'AuthorizerDenied', MetricStatistic.SUM),
      },
      label: 'Failures',
      period: PERIOD,
    });
  }

  /** S3 reports requests and errors only for a bucket with a request metrics configuration. */
  private bucketRequests(bucket: Bucket, max5xx: number): CustomMetricGroup {
    const dimensions = { BucketName: bucket.bucketName, FilterId: BUCKET_METRICS_FILTER };
    const s3Metric = (name: string, label: string) =>
      this.metrics.createMetric(name, MetricStatistic.SUM, label, dimensions, undefined, 'AWS/S3');
    return {
      title: 'Requests and errors',
      metrics: [
        s3Metric('AllRequests', 'Requests'),
        s3Metric('4xxErrors', '4xx'),
        {
          metric: s3Metric('5xxErrors', '5xx'),
          alarmFriendlyName: '5xx',
          addAlarm: critical(above(max5xx, 'The public library bucket answered 5xx.')),
        },
      ],
    };
  }

  /**
   * Every route on one graph per signal, whatever their number: SEARCH() expressions (graphs only; they take
   * percentiles, which Metrics Insights does not), and the two Metrics Insights alarms across routes.
   */
  private routeGroups(apiName: string, apiStage: string, stackName: string, settings: Settings) {
    const { alarms } = settings;
    const apiSchema = ['AWS/ApiGateway', 'ApiName', 'Method', 'Resource', 'Stage'];
    const apiTerms = { ApiName: apiName, Stage: apiStage };
    const byRoute = dimensionLabel('Method', 'Resource');
    const api = (metricName: string, statistic: string) =>
      search(apiSchema, metricName, apiTerms, statistic, byRoute);
    // CloudFormation names a route's function `<stack>-<Area>Routes-<suffix>-<route's id>…` (its area's nested
    // stack's name first): a partial match on the stack's name takes them all.
    const functions = (metricName: string) =>
      new MathExpression({
        expression: `SEARCH('{AWS/Lambda,FunctionName} MetricName="${metricName}" FunctionName=${stackName}', 'Sum', ${PERIOD.toSeconds()})`,
        usingMetrics: {},
        label: dimensionLabel('FunctionName'),
        period: PERIOD,
      });
    const routeErrors = insightsQuery(
      `SELECT SUM("5XXError") FROM SCHEMA("AWS/ApiGateway", ApiName, Method, Resource, Stage) ` +
        `WHERE ApiName = '${apiName}' AND Stage = '${apiStage}' GROUP BY Method, Resource ` +
        'ORDER BY SUM() DESC LIMIT 500',
    );
    // Every function of the account and Region: a Metrics Insights WHERE matches a label exactly (=, !=), so
    // it cannot take the stack's functions by their name's prefix. A throttled route also answers 503 at its
    // method (INTEGRATION_FAILURE), so it is a contributor of the 5xx alarm too, named by its route.
    const throttles = insightsQuery(
      'SELECT SUM(Throttles) FROM SCHEMA("AWS/Lambda", FunctionName) GROUP BY FunctionName ' +
        'ORDER BY SUM() DESC LIMIT 500',
    );
    return [
      { title: 'Requests (API Gateway)', metrics: [api('Count', 'Sum')] },
      {
        title: 'Answered 5xx (API Gateway): alarms per route',
        metrics: [
          {
            metric: routeErrors,
            alarmFriendlyName: '5xx',
            addAlarm: critical(
              above(
                alarms.lambdaErrors,
                `A route answered more than ${alarms.lambdaErrors} 5xx in 5 minutes (its function crashed, ` +
                  'timed out or was throttled, or answered 500 or 503). The contributor in ALARM names it: ' +
                  'its Method and Resource.',
              ),
            ),
          },
        ],
      },
      { title: 'Answered 4xx (API Gateway)', metrics: [api('4XXError', 'Sum')] },
      { title: 'Latency p99 (API Gateway, ms)', metrics: [api('Latency', 'p99')] },
      { title: 'Function errors', metrics: [functions('Errors')] },
      {
        title: 'Function throttles: alarms per function',
        metrics: [
          {
            metric: throttles,
            alarmFriendlyName: 'Throttles',
            addAlarm: critical(
              above(
                alarms.lambdaThrottles,
                "A function was throttled (its share of concurrency, cdk.json's concurrency, is full). The " +
                  `contributor in ALARM names it: FunctionName \`${stackName}-<route's id>...\`.`,
              ),
            ),
          },
        ],
      },
    ];
  }

  /** What the route handlers emit, dimensions `service` and `route` (the route table's `GET /api/v1/...`). */
  private routeMetrics(settings: Settings): CustomMetricGroup[] {
    const schema = [settings.metricsNamespace, 'service', 'route'];
    const terms = { service: settings.serviceName };
    const perRoute = (metricName: string, statistic: string) =>
      search(schema, metricName, terms, statistic, dimensionLabel('route'));
    return [
      { title: 'Requests', metrics: [perRoute('Requests', 'Sum')] },
      { title: 'Server errors (5xx)', metrics: [perRoute('ServerErrors', 'Sum')] },
      { title: 'Dependency unavailable (503)', metrics: [perRoute('DependencyUnavailable', 'Sum')] },
      { title: 'Client errors (4xx)', metrics: [perRoute('ClientErrors', 'Sum')] },
      { title: 'Latency p99 (ms)', metrics: [perRoute('Latency', 'p99')] },
      {
        title: 'Idempotency: replays, key conflicts',
        metrics: [
          this.ownSearch(settings, 'IdempotentReplays', ['route']),
          this.ownSearch(settings, 'IdempotencyKeyConflicts', ['route']),
        ],
      },
      {
        title: 'Auto-configure: suggested, refused (by reason)',
        metrics: [
          this.ownSearch(settings, 'AutoConfigureSuggested', ['route']),
          this.ownSearch(settings, 'AutoConfigureRefused', ['route', 'reason']),
        ],
      },
    ];
  }

  /** One of the functions' own metrics: namespace METRICS_NAMESPACE, dimension `service`, and `more`. */
  private ownMetric(
    settings: Settings,
    metricName: string,
    statistic: MetricStatistic,
    more: Record<string, string> = {},
    label = metricName,
  ) {
    const dimensions = { service: settings.serviceName, ...more };
    return this.metrics.createMetric(
      metricName,
      statistic,
      label,
      dimensions,
      undefined,
      settings.metricsNamespace,
    );
  }

  /** Every series of one of the functions' own metrics, whatever the values of `dimensions` (graphs only). */
  private ownSearch(settings: Settings, metricName: string, dimensions: string[]): MathExpression {
    const schema = [settings.metricsNamespace, 'service', ...dimensions].map((name) => `"${name}"`).join(',');
    const terms = `MetricName="${metricName}" "service"="${settings.serviceName}"`;
    return new MathExpression({
      expression: `SEARCH('{${schema}} ${terms}', 'Sum', ${PERIOD.toSeconds()})`,
      usingMetrics: {},
      label: metricName,
      period: PERIOD,
    });
  }
}

/**
 * A graph's SEARCH() of `metricName` in `schema` (namespace first), these dimensions exactly, one line per
 * series, labelled by `label` (a dynamic label: the series' own dimensions).
 */
function search(
  schema: string[],
  metricName: string,
  terms: Record<string, string>,
  statistic: string,
  label: string,
): MathExpression {
  const quoted = schema.map((name) => `"${name}"`).join(',');
  const exact = Object.entries(terms)
    .map(([name, value]) => ` "${name}"="${value}"`)
    .join('');
  return new MathExpression({
    expression: `SEARCH('{${quoted}} MetricName="${metricName}"${exact}', '${statistic}', ${PERIOD.toSeconds()})`,
    usingMetrics: {},
    label,
    period: PERIOD,
  });
}

/** A dynamic label: each series of a SEARCH() named by its own values of these dimensions. */
const dimensionLabel = (...names: string[]) => names.map((name) => `\${PROP('Dim.${name}')}`).join(' ');

/** A Metrics Insights query: an alarm on it with GROUP BY alarms per series returned (its contributors). */
function insightsQuery(query: string): MathExpression {
  return new MathExpression({ expression: query, usingMetrics: {}, period: PERIOD });
}

/** Every alarm is of one severity (all page the same topic); the library appends the word to the names. */
function critical<T extends { alarmDescriptionOverride?: string }>(threshold: T): Record<string, T> {
  const description = `${threshold.alarmDescriptionOverride ?? ''} ${RUNBOOK}`.trim();
  return { Critical: { ...threshold, alarmDescriptionOverride: description } };
}

/** A custom alarm: above `threshold` in a period. */
function above(threshold: number, description: string): CustomThreshold {
  return {
    threshold,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingDataOverride: TreatMissingData.NOT_BREACHING,
    alarmDescriptionOverride: description,
  };
}

function throttled(what: string, maxErrorCount: number) {
  return {
    maxErrorCount,
    alarmDescriptionOverride: `${what} was throttled (its share of concurrency, cdk.json's concurrency, is full).`,
  };
}

function tableThrottled(what: string, maxThrottledEventsThreshold: number) {
  return { maxThrottledEventsThreshold, alarmDescriptionOverride: `${what} were throttled.` };
}
