import { App } from 'aws-cdk-lib';
import { TeamMessagingStack } from '../lib/stack.ts';

const app = new App();
new TeamMessagingStack(app, 'TeamMessagingApi', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
