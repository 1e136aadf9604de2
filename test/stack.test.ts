import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../lib/routes.ts';
import { TeamMessagingStack } from '../lib/stack.ts';

/** The CDK app synthesizes offline: bundles are built with the local esbuild, no Docker, no AWS. */
let template: Template;
beforeAll(() => {
  const app = new App();
  template = Template.fromStack(new TeamMessagingStack(app, 'Test'));
}, 120_000);

describe('CDK stack', () => {
  it('has one Node.js 22 arm64 function per route plus the authorizer', () => {
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: { Runtime: 'nodejs22.x', Architectures: ['arm64'] },
    });
    expect(Object.keys(functions)).toHaveLength(routes.length + 1);
  });

  it('serves every route of the table through the token authorizer', () => {
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', { Type: 'TOKEN' });
    for (const route of routes) {
      const last = route.path.split('/').at(-1);
      const resources = template.findResources('AWS::ApiGateway::Resource', {
        Properties: { PathPart: last },
      });
      expect(Object.keys(resources).length, route.path).toBeGreaterThan(0);
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: route.method,
        AuthorizationType: 'CUSTOM',
        AuthorizerId: Match.anyValue(),
      });
    }
    template.resourceCountIs('AWS::ApiGateway::Method', routes.length);
  });

  it('keeps the table with its TTL attribute and id index', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
      GlobalSecondaryIndexes: [Match.objectLike({ IndexName: 'byId' })],
    });
  });
});
