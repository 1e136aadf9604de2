import {
  App,
  type AppProps,
  CfnOutput,
  Duration,
  Fn,
  RemovalPolicy,
  Stack,
  type StackProps,
  Tags,
} from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { AttributeType, Billing, ProjectionType, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { EventBus } from 'aws-cdk-lib/aws-events';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Key } from 'aws-cdk-lib/aws-kms';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { type ILogGroup, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods } from 'aws-cdk-lib/aws-s3';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import { CfnSamplingRule } from 'aws-cdk-lib/aws-xray';
import type { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../../shared/data/table-schema.ts';
import { ORPHANED_TAG } from '../../shared/domain/public-urls.ts';
import { LIBRARIES_PREFIX } from '../../shared/files/library.ts';
import { BEARER_CHALLENGE, MESSAGES } from '../../shared/http/messages.ts';
import { LIMITS, TIMEOUTS } from '../../shared/limits.ts';
import { allowedMethods, authorizer as authorizerRoute, resourcePaths, routes } from '../../shared/routes.ts';
import { AUTHORIZATION_FORM } from '../../shared/token-form.ts';
import { accessLogTemplate } from './access-log.ts';
import { ApiFunction } from './api-function.ts';
import { ChangeEvents } from './change-events.ts';
import { reservation } from './concurrency.ts';
import { preflight } from './cors.ts';
import { grantTokenAccess, type RouteResources } from './grants.ts';
import { addMethodNotAllowed } from './method-not-allowed.ts';
import { BUCKET_METRICS_FILTER, StackMonitoring } from './monitoring.ts';
import { acknowledgeNagFindings, acknowledgePublicMethod, addAwsSolutionsChecks } from './nag.ts';
import { TeamRateLimits } from './rate-limits.ts';
import {
  areaStackId,
  functionId,
  MAIN_STACK_LOG_GROUPS,
  RouteArea,
  type RouteFunction,
  routesByArea,
} from './route-areas.ts';
import { retainServiceLogs } from './service-logs.ts';
import {
  DEFAULT_SETTINGS,
  functionEnvironment,
  rateLimitsEnvironment,
  rateLimitsOf,
  readSettings,
  type Settings,
} from './settings.ts';
import { allowOperatorsToSeal, allowSigningSecretsUse, signingSecretsKey } from './signing-secrets-key.ts';
import { WebhookDeliveries } from './webhook-deliveries.ts';

const { partitionKey, sortKey, idIndex, dueIndex, ttlAttribute } = TABLE_SCHEMA;

interface GatewayResponse {
  type: ResponseType;
  statusCode?: string;
  body: string;
  headers?: Record<string, string>;
}

/** Gateway-made errors: the same JSON `{message}` bodies as the local gateway and the handlers. */
const GATEWAY_RESPONSES: GatewayResponse[] = [
  {
    type: ResponseType.UNAUTHORIZED,
    statusCode: '401',
    body: message(MESSAGES.unauthenticated),
    headers: { 'WWW-Authenticate': `'${BEARER_CHALLENGE}'` },
  },
  { type: ResponseType.ACCESS_DENIED, statusCode: '403', body: message(MESSAGES.forbidden) },
  // API Gateway answers an unknown route with this 403 (a method a resource lacks is its ANY's 405): a 404
  // saying where the routes are, as the local gateway's.
  {
    type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
    statusCode: '404',
    body: message(MESSAGES.noSuchPath),
  },
  { type: ResponseType.RESOURCE_NOT_FOUND, statusCode: '404', body: message(MESSAGES.noSuchPath) },
  { type: ResponseType.REQUEST_TOO_LARGE, statusCode: '413', body: message(MESSAGES.tooLarge) },
  // Over the stage's throttle (its bucket refills within a second).
  {
    type: ResponseType.THROTTLED,
    statusCode: '429',
    body: message(MESSAGES.tooManyRequests),
    headers: { 'Retry-After': `'${TIMEOUTS.retryAfterSeconds}'` },
  },
  // The authorizer failed (its dependency is down), did not answer in time, or its share of concurrency is
  // full: an outage, not a bug.
  ...[ResponseType.AUTHORIZER_FAILURE, ResponseType.AUTHORIZER_CONFIGURATION_ERROR].map((type) => ({
    type,
    statusCode: '503',
    body: message(MESSAGES.unavailable),
    headers: { 'Retry-After': `'${TIMEOUTS.retryAfterSeconds}'` },
  })),
  { type: ResponseType.INTEGRATION_TIMEOUT, statusCode: '504', body: message(MESSAGES.timedOut) },
  // Lambda refused to run the route's function: its share of concurrency is full (Lambda's 429, which API
  // Gateway would answer as a bare 500 "Internal server error"), or Lambda failed. Nothing ran: retry.
  {
    type: ResponseType.INTEGRATION_FAILURE,
    statusCode: '503',
    body: message(MESSAGES.unavailable),
    headers: { 'Retry-After': `'${TIMEOUTS.retryAfterSeconds}'` },
  },
  // Any other gateway 4xx keeps its status and API Gateway's own (JSON-escaped) message.
  { type: ResponseType.DEFAULT_4XX, body: '{"message":$context.error.messageString}' },
  { type: ResponseType.DEFAULT_5XX, body: message(MESSAGES.serverError) },
];

function message(text: string): string {
  return JSON.stringify({ message: text });
}

/**
 * A token over its plan, or an address over its per-source limit: WAF blocked the request (lib/cdk/rate-
 * limits.ts) and API Gateway answers this instead of WAF's 403. WAF counts over a sliding window and does not
 * say which rule blocked, so Retry-After is the longest window: by then, the count is back under any limit.
 */
function rateLimitedResponse(settings: Settings): GatewayResponse {
  const windows = [...Object.values(settings.rateLimitPlans), settings.sourceRateLimit];
  const longestWindow = Math.max(...windows.map((plan) => plan.windowSeconds));
  return {
    type: ResponseType.WAF_FILTERED,
    statusCode: '429',
    body: message(MESSAGES.tooManyRequests),
    headers: { 'Retry-After': `'${longestWindow}'` },
  };
}

export interface TeamMessagingStackProps extends StackProps {
  /** A disposable stack: the table, buckets and logs are deleted with it. Production keeps them. */
  dev?: boolean;
  /** Browser origins allowed to PUT presigned uploads into the private library. @default ['*'] */
  uploadOrigins?: string[];
  /**
   * Roles (ARNs) of the operators who run `admin migrate`, which seals secrets kept in clear: the signing
   * secrets' key lets them seal, never open (signing-secrets-key.ts). @default [] (no one but the functions)
   */
  signingSecretSealers?: string[];
  /** What cdk.json's context configures (lib/cdk/settings.ts). @default DEFAULT_SETTINGS */
  settings?: Settings;
}

/** The whole API, built from the route table: one Lambda per row behind a REST API with a TOKEN authorizer. */
export class TeamMessagingStack extends Stack {
  readonly table: TableV2;
  readonly privateFiles: Bucket;
  readonly publicFiles: Bucket;
  readonly api: RestApi;
  /** API Gateway's access log: one JSON line per request. */
  readonly accessLogs: LogGroup;
  /** The change events of brands and contact fields: the table's stream, its consumer and the bus. */
  readonly changeEvents: ChangeEvents;
  /** Webhook deliveries: the deliverer and the sweeper on its schedule. */
  readonly webhookDeliveries: WebhookDeliveries;
  /** The KMS key webhook signing secrets are sealed under (envelope encryption; docs/webhooks.md). */
  readonly signingSecrets: Key;
  /** The alarm topic, and the nested stack of the alarms and the dashboard. */
  readonly monitoring: StackMonitoring;
  /** Each route's function, in its area's nested stack. */
  readonly routeFunctions: RouteFunction[];

  constructor(scope: Construct, id: string, props: TeamMessagingStackProps = {}) {
    // Production cannot be deleted by a mistaken `cdk destroy` (its data is retained even then). The
    // template is written without indentation: a fifth of its size, with CloudFormation's 1 MB in view
    // (the monitoring's nested stack too).
    super(scope, id, { terminationProtection: !props.dev, suppressTemplateIndentation: true, ...props });
    const dev = props.dev ?? false;
    const settings: Settings = props.settings ?? DEFAULT_SETTINGS;
    // Cost-allocation tags on every resource that takes tags: the bill per service and stage.
    Tags.of(this).add('service', settings.serviceName);
    Tags.of(this).add('stage', stageName(dev));
    const rateLimits = rateLimitsOf(settings);
    // The same in every function; the routes behind the authorizer add the rate limit plans.
    const functionSettings = functionEnvironment(settings);
    // Production keeps its data (and logs) when the stack is deleted; a dev stack takes everything with it.
    const removalPolicy = dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    this.table = this.singleTable(dev, removalPolicy, settings);
    this.privateFiles = this.privateLibrary(dev, removalPolicy, props.uploadOrigins ?? ['*']);
    this.publicFiles = this.publicLibrary(dev, removalPolicy);
    const cdn = this.publicCdn();
    const publicBaseUrl = `https://${cdn.distributionDomainName}`;
    const { concurrency } = settings;
    const authorizer = this.authorizerFunction(removalPolicy, functionSettings, settings);
    this.accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy,
    });
    this.api = this.restApi(id, dev, settings, authorizer);
    // Per-team limits as WAF rules counting each token, not usage plans: nothing per team in AWS, so no
    // AWS quota on the number of teams (docs/tenant-isolation.md "Rate limits", docs/rate-limits.md).
    const teamRateLimits = new TeamRateLimits(this, 'RateLimits', {
      stage: this.api.deploymentStage,
      limits: rateLimits,
    });
    // Kept as long as the table is (production: retained), since the table's secrets open only under it;
    // KMS rotates its key material yearly, and what it sealed before still opens. Its policy names who
    // may use it (signing-secrets-key.ts), once the functions exist (below).
    this.signingSecrets = signingSecretsKey(this, 'SigningSecretsKey', removalPolicy);
    new CfnOutput(this, 'SigningSecretsKeyArn', {
      description: 'admin migrate: SIGNING_SECRETS_KEY (seals secrets kept in clear)',
      value: this.signingSecrets.keyArn,
    });
    // Before the routes and the consumer, which start deliveries; it needs neither of them.
    this.webhookDeliveries = new WebhookDeliveries(this, 'WebhookDeliveries', {
      table: this.table,
      signingSecrets: this.signingSecrets,
      environment: functionSettings,
      publicBaseUrl,
      logRemovalPolicy: removalPolicy,
      reservedConcurrency: {
        deliverer: reservation(concurrency, 'webhookDeliverer'),
        sweeper: reservation(concurrency, 'webhookSweeper'),
      },
      memorySize: {
        deliverer: settings.functionMemory.webhookDeliverer,
        sweeper: settings.functionMemory.webhookSweeper,
      },
      traced: settings.xraySampleRate > 0,
    });
    this.routeFunctions = this.addRoutes(
      removalPolicy,
      settings,
      stageName(dev),
      this,
      {
        ...functionSettings,
        TABLE_NAME: this.table.tableName,
        PRIVATE_BUCKET: this.privateFiles.bucketName,
        PUBLIC_BUCKET: this.publicFiles.bucketName,
        PUBLIC_BASE_URL: publicBaseUrl,
      },
      rateLimitsEnvironment(settings),
    );
    // The key's users, each named in its policy for what IAM grants it (the route table's signingSecrets).
    for (const { route, fn, id } of this.routeFunctions) {
      if (route.signingSecrets) allowSigningSecretsUse(this.signingSecrets, fn, route.signingSecrets, id);
    }
    allowSigningSecretsUse(this.signingSecrets, this.webhookDeliveries.deliverer, 'open', 'WebhookDeliverer');
    allowOperatorsToSeal(this.signingSecrets, props.signingSecretSealers ?? []);
    this.changeEvents = new ChangeEvents(this, 'ChangeEvents', {
      table: this.table,
      publicFiles: this.publicFiles,
      environment: functionSettings,
      publicBaseUrl,
      logRemovalPolicy: removalPolicy,
      webhookDeliveries: this.webhookDeliveries,
      reservedConcurrency: reservation(concurrency, 'streamConsumer'),
      memorySize: settings.functionMemory.streamConsumer,
      traced: settings.xraySampleRate > 0,
    });
    this.addMethodsNotAllowed(settings.corsOrigins);
    retainServiceLogs(this, this.api);
    this.monitoring = new StackMonitoring(this, 'Monitoring', {
      api: this.api,
      apiStage: stageName(dev),
      routeFunctions: this.routeFunctions,
      authorizer,
      table: this.table,
      indexNames: [idIndex.name, dueIndex.name],
      publicFiles: this.publicFiles,
      changeEvents: this.changeEvents,
      webhookDeliveries: this.webhookDeliveries,
      settings,
    });
    this.addOutputs(publicBaseUrl, this.monitoring.alarmTopic, teamRateLimits, this.changeEvents.bus);
    acknowledgeNagFindings({
      api: this.api,
      privateFiles: this.privateFiles,
      publicFiles: this.publicFiles,
      cdn,
    });
  }

  /**
   * The single table: pk/sk, the KEYS_ONLY `byId` and `byDueTime` indexes (as locally), TTL on `expires_at`,
   * PITR, and its stream with both images of each change, which the change-event consumer reads (an
   * in-place update).
   */
  private singleTable(dev: boolean, removalPolicy: RemovalPolicy, settings: Settings): TableV2 {
    return new TableV2(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      sortKey: { name: sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      timeToLiveAttribute: ttlAttribute,
      dynamoStream: StreamViewType.NEW_AND_OLD_IMAGES,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: settings.pointInTimeRecovery },
      // Both keys only; adding one is an in-place update (CloudFormation creates one index per update).
      globalSecondaryIndexes: [idIndex, dueIndex].map((index) => ({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.KEYS_ONLY,
      })),
      deletionProtection: !dev,
      removalPolicy,
    });
  }

  /** Both buckets: nothing public, SSE-S3, TLS only; a dev stack empties them on deletion. */
  private bucketDefaults(dev: boolean, removalPolicy: RemovalPolicy) {
    return {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy,
      autoDeleteObjects: dev,
    };
  }

  /** The teams' private file libraries (`teams/<team id>/<path>`). */
  private privateLibrary(dev: boolean, removalPolicy: RemovalPolicy, uploadOrigins: string[]): Bucket {
    const bucket = new Bucket(this, 'PrivateFiles', {
      ...this.bucketDefaults(dev, removalPolicy),
      // A deleted library file (an operator's doing: the API deletes none) can be recovered for 30 days.
      // Nothing overwrites one (below), so every version was written by one upload, counted in its quota.
      versioned: true,
      lifecycleRules: [
        {
          noncurrentVersionExpiration: Duration.days(30),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      // Browsers upload straight to S3 with presigned PUT URLs; the signature is the credential.
      cors: [
        {
          allowedMethods: [HttpMethods.PUT],
          allowedOrigins: uploadOrigins,
          allowedHeaders: ['*'],
          exposedHeaders: ['ETag'],
          maxAge: 3600,
        },
      ],
    });
    // A library file is written once: a write under `teams/` must be conditioned on the key holding no
    // object (`If-None-Match: *`, signed into every upload URL: shared/files/uploads.ts). Else one URL
    // could be PUT again and again for its 15 minutes, and S3 would keep every version, past the quota
    // that counted it once. It also refuses multipart uploads there (their parts carry no condition),
    // which no one makes: a presigned PUT cannot start one.
    bucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'LibraryFilesAreWrittenOnce',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['s3:PutObject'],
        resources: [bucket.arnForObjects(`${LIBRARIES_PREFIX}*`)],
        conditions: { Null: { 's3:if-none-match': 'true' } },
      }),
    );
    return bucket;
  }

  /** Brand images copied out of the private libraries (`brands/...`), served by the CDN only. */
  private publicLibrary(dev: boolean, removalPolicy: RemovalPolicy): Bucket {
    return new Bucket(this, 'PublicFiles', {
      ...this.bucketDefaults(dev, removalPolicy),
      lifecycleRules: [
        { abortIncompleteMultipartUploadAfter: Duration.days(1) },
        {
          // Brand images no brand names any longer, marked when the last one stopped naming them (the
          // stream consumer: shared/files/orphaned-images.ts), after mails sent before had their time.
          id: 'OrphanedBrandImages',
          prefix: 'brands/',
          tagFilters: { [ORPHANED_TAG.Key]: ORPHANED_TAG.Value },
          expiration: Duration.days(LIMITS.orphanedImageDays),
        },
      ],
      // S3 request metrics (requests, 4xx, 5xx) for the alarm on its 5xx.
      metrics: [{ id: BUCKET_METRICS_FILTER }],
    });
  }

  /** The public library stays private: only this distribution reads it (origin access control). */
  private publicCdn(): Distribution {
    return new Distribution(this, 'PublicFilesCdn', {
      comment: `${this.stackName}: public file library`,
      httpVersion: HttpVersion.HTTP2_AND_3,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.publicFiles),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
      },
    });
  }

  /**
   * One function per route table row, in its area's nested stack (lib/cdk/route-areas.ts), granted what the
   * row declares, with its class's share of concurrency; its method here, on the main stack's API. A route
   * behind the authorizer (not `public`) also gets `rateLimits`' variables.
   */
  private addRoutes(
    removalPolicy: RemovalPolicy,
    settings: Settings,
    stage: string,
    resources: RouteResources,
    environment: Record<string, string>,
    rateLimits: Record<string, string>,
  ): RouteFunction[] {
    const logGroups = this.mainStackLogGroups(removalPolicy);
    return [...routesByArea(routes)].flatMap(([area, areaRoutes]) => {
      const { functions } = new RouteArea(this, areaStackId(area), {
        routes: areaRoutes,
        settings,
        resources,
        api: this.api,
        stageName: stage,
        environment,
        rateLimits,
        logGroups,
        logRemovalPolicy: removalPolicy,
      });
      for (const { route, fn, id } of functions) {
        // The function as the method's stack sees it: API Gateway's permission is in the area's stack.
        const handler = LambdaFunction.fromFunctionAttributes(this, `${id}Handler`, {
          functionArn: fn.functionArn,
          sameEnvironment: false,
          skipPermissions: true,
        });
        const method = this.api.root
          .resourceForPath(route.path)
          .addMethod(
            route.method,
            new LambdaIntegration(handler, { allowTestInvoke: false }),
            route.public ? { authorizationType: AuthorizationType.NONE } : {},
          );
        if (route.public) acknowledgePublicMethod(method);
      }
      return functions;
    });
  }

  /** The log groups that stay in this stack (route-areas.ts, MAIN_STACK_LOG_GROUPS), of the routes there are. */
  private mainStackLogGroups(removalPolicy: RemovalPolicy): Map<string, ILogGroup> {
    const current = new Set(routes.map((route) => functionId(route.method, route.path)));
    return new Map(
      MAIN_STACK_LOG_GROUPS.filter((id) => current.has(id)).map((id) => [
        id,
        new LogGroup(this, `${id}Logs`, { retention: RetentionDays.ONE_MONTH, removalPolicy }),
      ]),
    );
  }

  /**
   * On each resource of the route table, a 405 naming its methods for any other method (not a 404), and the
   * CORS preflight when the deployment allows browser origins.
   */
  private addMethodsNotAllowed(origins: readonly string[]): void {
    for (const path of resourcePaths()) {
      const methods = allowedMethods(path);
      addMethodNotAllowed(
        this.api.root.resourceForPath(path),
        methods,
        origins.length ? preflight(methods, origins) : undefined,
      );
    }
  }

  /** The TOKEN authorizer's function: reads the table to turn a token into its team. */
  private authorizerFunction(
    removalPolicy: RemovalPolicy,
    functionSettings: Record<string, string>,
    { concurrency, functionMemory, xraySampleRate }: Settings,
  ): ApiFunction {
    const fn = new ApiFunction(this, 'Authorizer', {
      entry: authorizerRoute.handler,
      environment: { ...functionSettings, TABLE_NAME: this.table.tableName },
      timeout: Duration.seconds(TIMEOUTS.authorizerSeconds),
      memorySize: functionMemory.authorizer,
      traced: xraySampleRate > 0,
      reservedConcurrentExecutions: reservation(concurrency, 'authorizer'),
      logRemovalPolicy: removalPolicy,
    });
    // Bounded to the tokens' partitions (partition-boundaries.ts), not the route table's `read` of everything.
    grantTokenAccess(fn, this.table);
    return fn;
  }

  /**
   * What clients, the admin CLI (`--table`, `--private-bucket`, `--public-bucket`, `--rest-api`,
   * `--default-plan`), operators and the change events' subscribers need.
   */
  private addOutputs(
    publicBaseUrl: string,
    alarmTopic: Topic,
    rateLimits: TeamRateLimits,
    eventBus: EventBus,
  ): void {
    // RestApi adds its own output under a hashed name; one `ApiUrl` output is enough.
    this.api.node.tryRemoveChild('Endpoint');
    new CfnOutput(this, 'ApiUrl', { description: 'Base URL of the API', value: this.api.url });
    new CfnOutput(this, 'TableName', { description: 'admin CLI --table', value: this.table.tableName });
    new CfnOutput(this, 'PrivateBucketName', {
      description: 'admin CLI --private-bucket',
      value: this.privateFiles.bucketName,
    });
    new CfnOutput(this, 'PublicBucketName', {
      description: 'admin CLI --public-bucket',
      value: this.publicFiles.bucketName,
    });
    new CfnOutput(this, 'PublicBaseUrl', {
      description: 'CDN URL of the public library',
      value: publicBaseUrl,
    });
    new CfnOutput(this, 'AccessLogGroupName', {
      description: 'Access log: one JSON line per request',
      value: this.accessLogs.logGroupName,
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      description: 'SNS topic every alarm notifies',
      value: alarmTopic.topicArn,
    });
    new CfnOutput(this, 'EventBusName', {
      description:
        'EventBridge bus of the change events (source team-messaging-api): subscribe with a rule on this bus',
      value: eventBus.eventBusName,
    });
    new CfnOutput(this, 'WebAclArn', {
      description: "The web ACL that counts each token's requests",
      value: rateLimits.webAcl.attrArn,
    });
    // `--rest-api`: the admin CLI's `migrate` deletes the API keys of the former usage plans from it.
    // `--default-plan`: the plan a new token names when its team has none assigned, `--plans` those `team
    // plan` may assign (WAF counts tokens by the plan they name: no WAF resource for the CLI to write).
    new CfnOutput(this, 'AdminTarget', {
      description: 'Flags that point the admin CLI at this stack',
      value: Fn.join(' ', [
        '--table',
        this.table.tableName,
        '--private-bucket',
        this.privateFiles.bucketName,
        '--public-bucket',
        this.publicFiles.bucketName,
        '--rest-api',
        this.api.restApiId,
        '--default-plan',
        rateLimits.defaultPlan,
        '--plans',
        rateLimits.planNames.join(','),
      ]),
    });
  }

  /**
   * The stage's X-Ray sampling (cdk.json `xraySampleRate`): one request a second, and that share of the rest.
   * A sampling rule is the Region's, named after the stack; it matches this stage only (its ARN as
   * https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-configuring-xray-sampling-rules.html
   * gives it).
   */
  private apiSamplingRule(api: RestApi, rate: number): void {
    new CfnSamplingRule(this, 'ApiSampling', {
      samplingRule: {
        ruleName: `${this.stackName.slice(0, MAX_SAMPLING_RULE_NAME - 4)}-api`,
        priority: 1000,
        fixedRate: rate,
        reservoirSize: 1,
        serviceName: '*',
        serviceType: 'AWS::ApiGateway::Stage',
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        resourceArn: `arn:${this.partition}:apigateway:${this.region}::/restapis/${api.restApiId}/stages/${api.deploymentStage.stageName}`,
        version: 1,
      },
    });
  }

  /**
   * The REST API: the TOKEN authorizer on every method, JSON gateway errors, throttling, X-Ray tracing,
   * JSON access logs.
   */
  private restApi(id: string, dev: boolean, settings: Settings, authorizerFunction: ApiFunction): RestApi {
    const tokenAuthorizer = new TokenAuthorizer(this, 'TokenAuthorizer', {
      handler: authorizerFunction,
      // Cached per token (cdk.json authorizerCacheSeconds: how long a revoked token may still work); the
      // policy covers the whole stage, so one answer serves every route.
      resultsCacheTtl: Duration.seconds(settings.authorizerCacheSeconds),
      // A header that cannot hold a token is API Gateway's 401 before the authorizer runs (no run, no
      // read), and the one spelling it takes keeps the cache to one entry per token (shared/token-form.ts).
      validationRegex: AUTHORIZATION_FORM,
    });

    const api = new RestApi(this, 'Api', {
      restApiName: id,
      description: 'Team Messaging API',
      endpointTypes: [EndpointType.REGIONAL],
      // Access and execution logs need the account's API Gateway CloudWatch role.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: stageName(dev),
        throttlingRateLimit: settings.throttleRate,
        throttlingBurstLimit: settings.throttleBurst,
        // Sampled by the rule below (cdk.json `xraySampleRate`); 0: untraced.
        tracingEnabled: settings.xraySampleRate > 0,
        loggingLevel: MethodLoggingLevel.ERROR,
        // Request and response bodies carry customer data: never written to execution logs.
        dataTraceEnabled: false,
        metricsEnabled: true,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        // One line per request, of cdk.json's `accessLogFields` (lib/cdk/access-log.ts).
        accessLogFormat: AccessLogFormat.custom(accessLogTemplate(settings.accessLogFields)),
      },
      defaultMethodOptions: { authorizer: tokenAuthorizer, authorizationType: AuthorizationType.CUSTOM },
    });
    if (settings.xraySampleRate > 0) this.apiSamplingRule(api, settings.xraySampleRate);
    for (const response of [...GATEWAY_RESPONSES, rateLimitedResponse(settings)]) {
      api.addGatewayResponse(`GatewayResponse${response.type.responseType}`, {
        type: response.type,
        statusCode: response.statusCode,
        // The id clients quote in a support request; handlers set the same header from the same id.
        responseHeaders: { 'X-Request-Id': 'context.requestId', ...response.headers },
        templates: { 'application/json': response.body },
      });
    }
    return api;
  }
}

/** X-Ray's longest sampling rule name. */
const MAX_SAMPLING_RULE_NAME = 32;
/** The API's stage, also the `stage` cost-allocation tag. */
const stageName = (dev: boolean): string => (dev ? 'dev' : 'prod');

/**
 * The CDK app of `cdk synth`/`cdk deploy`, with the AwsSolutions checks: `-c dev=true` makes the disposable
 * `TeamMessagingApiDev` stack, otherwise the production `TeamMessagingApi` stack; the rest of the context
 * (cdk.json) is read by readSettings.
 */
export function createApp(props: AppProps = {}): App {
  const app = new App(props);
  const dev = [true, 'true'].includes(app.node.tryGetContext('dev'));
  const uploadOrigins = app.node.tryGetContext('uploadOrigins') as string | undefined;
  // A list in cdk.json, comma-separated text with -c.
  const sealers = app.node.tryGetContext('signingSecretSealers') as string | string[] | undefined;
  new TeamMessagingStack(app, dev ? 'TeamMessagingApiDev' : 'TeamMessagingApi', {
    dev,
    uploadOrigins: uploadOrigins?.split(',').map((origin) => origin.trim()),
    signingSecretSealers: (typeof sealers === 'string' ? sealers.split(',') : (sealers ?? []))
      .map((arn) => arn.trim())
      .filter(Boolean),
    settings: readSettings(app.node),
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  addAwsSolutionsChecks(app);
  return app;
}
