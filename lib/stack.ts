import {
  App,
  type AppProps,
  CfnOutput,
  Duration,
  Fn,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import {
  AccessLogField,
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
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket, HttpMethods } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../shared/data/table-schema.ts';
import { MESSAGES } from '../shared/http/messages.ts';
import { TIMEOUTS } from '../shared/limits.ts';
import { ApiFunction } from './api-function.ts';
import { authorizer as authorizerRoute, functionTimeoutSeconds, type Route, routes } from './routes.ts';

const { partitionKey, sortKey, idIndex, ttlAttribute } = TABLE_SCHEMA;

/** IAM actions behind the route table's `table` access levels (transactions need the per-item actions). */
const TABLE_READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
];
const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

/** Objects of the private library live under `teams/<team id>/`, public brand images under `brands/`. */
const PRIVATE_LIBRARY_KEYS = 'teams/*';
const PUBLIC_BRAND_KEYS = 'brands/*';

/** Gateway-made errors: the same JSON `{message}` bodies as the local gateway and the handlers. */
const GATEWAY_RESPONSES: Array<{
  type: ResponseType;
  statusCode?: string;
  body: string;
  headers?: Record<string, string>;
}> = [
  { type: ResponseType.UNAUTHORIZED, statusCode: '401', body: message(MESSAGES.unauthenticated) },
  { type: ResponseType.ACCESS_DENIED, statusCode: '403', body: message(MESSAGES.forbidden) },
  // API Gateway answers an unknown route or method with this 403; clients should see a 404.
  {
    type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
    statusCode: '404',
    body: message(MESSAGES.notFound),
  },
  { type: ResponseType.RESOURCE_NOT_FOUND, statusCode: '404', body: message(MESSAGES.notFound) },
  { type: ResponseType.REQUEST_TOO_LARGE, statusCode: '413', body: message(MESSAGES.tooLarge) },
  { type: ResponseType.THROTTLED, statusCode: '429', body: message(MESSAGES.tooManyRequests) },
  { type: ResponseType.QUOTA_EXCEEDED, statusCode: '429', body: message(MESSAGES.tooManyRequests) },
  // The authorizer failed (its dependency is down) or did not answer in time: an outage, not a bug.
  ...[ResponseType.AUTHORIZER_FAILURE, ResponseType.AUTHORIZER_CONFIGURATION_ERROR].map((type) => ({
    type,
    statusCode: '503',
    body: message(MESSAGES.unavailable),
    headers: { 'Retry-After': `'${TIMEOUTS.retryAfterSeconds}'` },
  })),
  { type: ResponseType.INTEGRATION_TIMEOUT, statusCode: '504', body: message(MESSAGES.timedOut) },
  { type: ResponseType.INTEGRATION_FAILURE, statusCode: '504', body: message(MESSAGES.timedOut) },
  // Any other gateway 4xx keeps its status and API Gateway's own (JSON-escaped) message.
  { type: ResponseType.DEFAULT_4XX, body: '{"message":$context.error.messageString}' },
  { type: ResponseType.DEFAULT_5XX, body: message(MESSAGES.serverError) },
];

function message(text: string): string {
  return JSON.stringify({ message: text });
}

export interface TeamMessagingStackProps extends StackProps {
  /** A disposable stack: the table, buckets and logs are deleted with it. Production keeps them. */
  dev?: boolean;
  /** Browser origins allowed to PUT presigned uploads into the private library. @default ['*'] */
  uploadOrigins?: string[];
  /** Stage-wide request rate limit (steady requests per second, burst). @default 100 / 200 */
  throttling?: { rateLimit: number; burstLimit: number };
}

/** The whole API, built from the route table: one Lambda per row behind a REST API with a TOKEN authorizer. */
export class TeamMessagingStack extends Stack {
  readonly table: TableV2;
  readonly privateFiles: Bucket;
  readonly publicFiles: Bucket;
  readonly api: RestApi;

  constructor(scope: Construct, id: string, props: TeamMessagingStackProps = {}) {
    super(scope, id, props);
    const dev = props.dev ?? false;
    // Production keeps its data (and logs) when the stack is deleted; a dev stack takes everything with it.
    const removalPolicy = dev ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    this.table = this.singleTable(dev, removalPolicy);
    this.privateFiles = this.privateLibrary(dev, removalPolicy, props.uploadOrigins ?? ['*']);
    this.publicFiles = this.publicLibrary(dev, removalPolicy);
    const cdn = this.publicCdn();
    const publicBaseUrl = `https://${cdn.distributionDomainName}`;
    this.api = this.restApi(id, dev, removalPolicy, props.throttling ?? { rateLimit: 100, burstLimit: 200 });
    this.addRoutes(removalPolicy, {
      TABLE_NAME: this.table.tableName,
      PRIVATE_BUCKET: this.privateFiles.bucketName,
      PUBLIC_BUCKET: this.publicFiles.bucketName,
      PUBLIC_BASE_URL: publicBaseUrl,
    });
    this.addOutputs(publicBaseUrl);
    this.acknowledgeNagFindings(cdn);
  }

  /** The single table: pk/sk, the KEYS_ONLY `byId` index (as locally), TTL on `expires_at`, PITR. */
  private singleTable(dev: boolean, removalPolicy: RemovalPolicy): TableV2 {
    return new TableV2(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      sortKey: { name: sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      timeToLiveAttribute: ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      globalSecondaryIndexes: [
        {
          indexName: idIndex.name,
          partitionKey: { name: idIndex.partitionKey, type: AttributeType.STRING },
          sortKey: { name: idIndex.sortKey, type: AttributeType.STRING },
          projectionType: ProjectionType.KEYS_ONLY,
        },
      ],
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
    return new Bucket(this, 'PrivateFiles', {
      ...this.bucketDefaults(dev, removalPolicy),
      // An overwritten or deleted library file can be recovered for 30 days.
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
  }

  /** Brand images copied out of the private libraries (`brands/...`), served by the CDN only. */
  private publicLibrary(dev: boolean, removalPolicy: RemovalPolicy): Bucket {
    return new Bucket(this, 'PublicFiles', {
      ...this.bucketDefaults(dev, removalPolicy),
      lifecycleRules: [{ abortIncompleteMultipartUploadAfter: Duration.days(1) }],
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

  /** One function per route table row, wired to its method and granted what the row declares. */
  private addRoutes(removalPolicy: RemovalPolicy, environment: Record<string, string>): void {
    for (const route of routes) {
      const fn = new ApiFunction(this, functionId(route.method, route.path), {
        entry: route.handler,
        environment,
        timeout: Duration.seconds(functionTimeoutSeconds(route)),
        memorySize: route.fetchesWeb ? 1024 : 512,
        logRemovalPolicy: removalPolicy,
      });
      this.grantRouteAccess(fn, route);
      this.api.root
        .resourceForPath(route.path)
        .addMethod(route.method, new LambdaIntegration(fn, { allowTestInvoke: false }));
    }
  }

  /** What clients and the admin CLI (`--table`, `--private-bucket`, `--public-bucket`) need. */
  private addOutputs(publicBaseUrl: string): void {
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
    new CfnOutput(this, 'AdminTarget', {
      description: 'Flags that point the admin CLI at this stack',
      value: Fn.join(' ', [
        '--table',
        this.table.tableName,
        '--private-bucket',
        this.privateFiles.bucketName,
        '--public-bucket',
        this.publicFiles.bucketName,
      ]),
    });
  }

  /** The REST API: the TOKEN authorizer on every method, JSON gateway errors, throttling, JSON access logs. */
  private restApi(
    id: string,
    dev: boolean,
    removalPolicy: RemovalPolicy,
    throttling: { rateLimit: number; burstLimit: number },
  ): RestApi {
    const authorizerFunction = new ApiFunction(this, 'Authorizer', {
      entry: authorizerRoute.handler,
      environment: { TABLE_NAME: this.table.tableName },
      timeout: Duration.seconds(TIMEOUTS.authorizerSeconds),
      logRemovalPolicy: removalPolicy,
    });
    this.grantTableAccess(authorizerFunction, authorizerRoute.table);
    const tokenAuthorizer = new TokenAuthorizer(this, 'TokenAuthorizer', {
      handler: authorizerFunction,
      // Cached per token; the policy covers the whole stage, so one answer serves every route.
      resultsCacheTtl: Duration.minutes(5),
    });

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy,
    });
    const api = new RestApi(this, 'Api', {
      restApiName: id,
      description: 'Team Messaging API',
      endpointTypes: [EndpointType.REGIONAL],
      // Access and execution logs need the account's API Gateway CloudWatch role.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: dev ? 'dev' : 'prod',
        throttlingRateLimit: throttling.rateLimit,
        throttlingBurstLimit: throttling.burstLimit,
        loggingLevel: MethodLoggingLevel.ERROR,
        // Request and response bodies carry customer data: never written to execution logs.
        dataTraceEnabled: false,
        metricsEnabled: true,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: AccessLogField.contextRequestId(),
            time: AccessLogField.contextRequestTime(),
            ip: AccessLogField.contextIdentitySourceIp(),
            userAgent: AccessLogField.contextIdentityUserAgent(),
            method: AccessLogField.contextHttpMethod(),
            resource: AccessLogField.contextResourcePath(),
            path: AccessLogField.contextPath(),
            status: AccessLogField.contextStatus(),
            responseLength: AccessLogField.contextResponseLength(),
            latencyMs: AccessLogField.contextResponseLatency(),
            integrationLatencyMs: AccessLogField.contextIntegrationLatency(),
            teamId: AccessLogField.contextAuthorizer('teamId'),
            error: AccessLogField.contextErrorMessage(),
            errorType: AccessLogField.contextErrorResponseType(),
            authorizerError: AccessLogField.contextAuthorizerError(),
            integrationError: AccessLogField.contextIntegrationErrorMessage(),
          }),
        ),
      },
      defaultMethodOptions: { authorizer: tokenAuthorizer, authorizationType: AuthorizationType.CUSTOM },
    });
    for (const response of GATEWAY_RESPONSES) {
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

  /** Exactly what the route table row declares, as explicit actions on explicit resources. */
  private grantRouteAccess(fn: ApiFunction, route: Route): void {
    this.grantTableAccess(fn, route.table);
    const files = new Set(route.files ?? []);
    if (files.has('private:read')) {
      fn.addToRolePolicy(
        new PolicyStatement({
          // GetObject also covers HeadObject and the source side of CopyObject.
          actions: ['s3:GetObject'],
          resources: [this.privateFiles.arnForObjects(PRIVATE_LIBRARY_KEYS)],
        }),
      );
      fn.addToRolePolicy(
        new PolicyStatement({
          // Without ListBucket S3 answers a missing key with 403 AccessDenied instead of 404 NoSuchKey, and
          // "no such file in your library" could not be told from a real failure (s3rver always says 404).
          actions: ['s3:ListBucket'],
          resources: [this.privateFiles.bucketArn],
        }),
      );
    }
    if (files.has('private:write')) {
      fn.addToRolePolicy(
        new PolicyStatement({
          // Also what presigned upload URLs signed by this function's role are allowed to do.
          actions: ['s3:PutObject'],
          resources: [this.privateFiles.arnForObjects(PRIVATE_LIBRARY_KEYS)],
        }),
      );
    }
    if (files.has('public:write')) {
      fn.addToRolePolicy(
        new PolicyStatement({
          // The destination side of CopyObject (promoting a library image to the public brand images).
          actions: ['s3:PutObject'],
          resources: [this.publicFiles.arnForObjects(PUBLIC_BRAND_KEYS)],
        }),
      );
    }
    this.acknowledgeObjectWildcards(fn, files);
  }

  private grantTableAccess(fn: ApiFunction, access: Route['table']): void {
    if (access === 'none') return;
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: access === 'write' ? [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS] : TABLE_READ_ACTIONS,
        resources: [this.table.tableArn],
      }),
    );
    // Every route may need to tell 403 from 404 through the id index.
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${this.table.tableArn}/index/${idIndex.name}`],
      }),
    );
  }

  /** Object keys are per team and per file, so object grants end in a prefix wildcard. */
  private acknowledgeObjectWildcards(fn: ApiFunction, files: Set<string>): void {
    const objects = (bucket: Bucket, keys: string) =>
      `Resource::<${this.getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>/${keys}`;
    const wildcards = new Set<string>();
    if (files.has('private:read') || files.has('private:write')) {
      wildcards.add(objects(this.privateFiles, PRIVATE_LIBRARY_KEYS));
    }
    if (files.has('public:write')) wildcards.add(objects(this.publicFiles, PUBLIC_BRAND_KEYS));
    for (const wildcard of wildcards) {
      Validations.of(fn.role ?? fn).acknowledge({
        id: `AwsSolutions-IAM5[${wildcard}]`,
        reason:
          'Object keys are created per team and per file at run time; the grant is limited to one key prefix ' +
          'of one bucket and to the single action the route table row declares.',
      });
    }
  }

  /** Every finding AwsSolutions reports that is a deliberate choice, with the reason. */
  private acknowledgeNagFindings(cdn: Distribution): void {
    const acknowledge = (scope: Construct, id: string, reason: string) =>
      Validations.of(scope).acknowledge({ id, reason });

    acknowledge(
      this.api,
      'AwsSolutions-APIG2',
      'Each handler validates its input (zod) and answers Laravel-style 422 bodies the clients rely on; a ' +
        'gateway request validator would answer 400 with a different body.',
    );
    acknowledge(
      this.api,
      'AwsSolutions-APIG3',
      'No WAF web ACL by default: every route needs a bearer token checked by the authorizer and the stage ' +
        'is throttled. Associate a web ACL with the stage where an account requires one.',
    );
    acknowledge(
      this.api,
      'AwsSolutions-COG4',
      'Clients authenticate with team API tokens (bearer), verified by the Lambda TOKEN authorizer on every ' +
        'method; there are no Cognito users.',
    );
    acknowledge(
      this.api,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      "The account-wide API Gateway logging role uses AWS's managed policy made for exactly that purpose.",
    );
    for (const bucket of [this.privateFiles, this.publicFiles]) {
      acknowledge(
        bucket,
        'AwsSolutions-S1',
        'All access goes through the API (access logs, one log group per function) or CloudFront; S3 server ' +
          'access logs would need another bucket. Enable CloudTrail data events where an audit needs them.',
      );
    }
    acknowledge(
      cdn,
      'AwsSolutions-CFR1',
      'Brand images are shown to recipients anywhere in the world; no geo restriction.',
    );
    acknowledge(
      cdn,
      'AwsSolutions-CFR2',
      'Read-only public images behind CloudFront caching; no WAF by default.',
    );
    acknowledge(
      cdn,
      'AwsSolutions-CFR3',
      'Public, cacheable brand images only; CloudFront access logs would need a log bucket with ACLs.',
    );
    acknowledge(
      cdn,
      'AwsSolutions-CFR4',
      'The default *.cloudfront.net certificate does not let the minimum TLS version be chosen; set a custom ' +
        'domain and certificate (TLSv1.2_2021) to change it.',
    );
  }
}

/** `GET /api/v1/brands/{id}` -> `GetApiV1BrandsId`: a stable construct id per route. */
export function functionId(method: string, path: string): string {
  const words = `${method.toLowerCase()} ${path}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('');
}

/**
 * The CDK app of `cdk synth`/`cdk deploy`, with the AwsSolutions checks: `-c dev=true` makes the disposable
 * `TeamMessagingApiDev` stack, otherwise the production `TeamMessagingApi` stack.
 */
export function createApp(props: AppProps = {}): App {
  const app = new App(props);
  const dev = [true, 'true'].includes(app.node.tryGetContext('dev'));
  const uploadOrigins = app.node.tryGetContext('uploadOrigins') as string | undefined;
  new TeamMessagingStack(app, dev ? 'TeamMessagingApiDev' : 'TeamMessagingApi', {
    dev,
    uploadOrigins: uploadOrigins?.split(',').map((origin) => origin.trim()),
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return app;
}
