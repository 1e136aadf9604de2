import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AuthorizationType, LambdaIntegration, RestApi, TokenAuthorizer } from 'aws-cdk-lib/aws-apigateway';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { ApiFunction } from './api-function.ts';
import { authorizer as authorizerRoute, routes } from './routes.ts';

/** The whole API, built from the route table: one Lambda per row behind a REST API with a TOKEN authorizer. */
export class TeamMessagingStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    const table = new TableV2(this, 'Table', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billing: Billing.onDemand(),
      timeToLiveAttribute: 'expires_at',
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      globalSecondaryIndexes: [
        {
          indexName: 'byId',
          partitionKey: { name: 'gsi1pk', type: AttributeType.STRING },
          sortKey: { name: 'gsi1sk', type: AttributeType.STRING },
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const privateFiles = new Bucket(this, 'PrivateFiles', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
    });
    const publicFiles = new Bucket(this, 'PublicFiles', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
    });
    const environment = {
      TABLE_NAME: table.tableName,
      PRIVATE_BUCKET: privateFiles.bucketName,
      PUBLIC_BUCKET: publicFiles.bucketName,
      PUBLIC_BASE_URL: `https://${publicFiles.bucketRegionalDomainName}`,
    };

    const authorizerFunction = new ApiFunction(this, 'Authorizer', {
      entry: authorizerRoute.handler,
      environment,
    });
    table.grantReadData(authorizerFunction);
    const tokenAuthorizer = new TokenAuthorizer(this, 'TokenAuthorizer', {
      handler: authorizerFunction,
      resultsCacheTtl: Duration.minutes(5),
    });

    const api = new RestApi(this, 'Api', {
      restApiName: 'team-messaging-api',
      deployOptions: { stageName: 'v1' },
      defaultMethodOptions: { authorizer: tokenAuthorizer, authorizationType: AuthorizationType.CUSTOM },
    });

    for (const route of routes) {
      const fn = new ApiFunction(this, functionId(route.method, route.path), {
        entry: route.handler,
        environment,
        timeout: route.fetchesWeb ? Duration.seconds(15) : undefined,
      });
      if (route.table === 'read') table.grantReadData(fn);
      if (route.table === 'write') table.grantReadWriteData(fn);
      if (route.files?.includes('private:read')) privateFiles.grantRead(fn);
      if (route.files?.includes('private:write')) privateFiles.grantPut(fn);
      if (route.files?.includes('public:write')) publicFiles.grantPut(fn, 'brands/*');
      api.root.resourceForPath(route.path).addMethod(route.method, new LambdaIntegration(fn));
    }

    new CfnOutput(this, 'ApiUrl', { value: api.url });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'PrivateBucketName', { value: privateFiles.bucketName });
    new CfnOutput(this, 'PublicBucketName', { value: publicFiles.bucketName });
  }
}

/** `GET /api/v1/brands/{id}` -> `GetApiV1BrandsId`: a stable construct id per route. */
export function functionId(method: string, path: string): string {
  const words = `${method.toLowerCase()} ${path}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('');
}
