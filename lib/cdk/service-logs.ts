import type { CustomResourceProviderBase, Stack } from 'aws-cdk-lib';
import { Fn } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { LogRetention, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { acknowledgeLogRetentionProvider } from './nag.ts';

/** CDK's function that empties a dev stack's buckets (`autoDeleteObjects`), a singleton of the stack. */
const AUTO_DELETE_PROVIDER = 'Custom::S3AutoDeleteObjectsCustomResourceProvider';

/**
 * Log groups that AWS creates on first use, outside the template: API Gateway's execution logs of the stage
 * and the log group of CDK's bucket-emptying function (dev stacks). The template cannot declare them: one
 * that already exists (a stack deployed by an earlier version) would fail the deploy. CDK's LogRetention
 * custom resource sets their retention instead, creating them if need be (its own function's logs are kept
 * one day). They outlive the stack, as they did before, now with a retention.
 */
export function retainServiceLogs(stack: Stack, api: RestApi): void {
  new LogRetention(stack, 'ApiExecutionLogsRetention', {
    logGroupName: `API-Gateway-Execution-Logs_${api.restApiId}/${api.deploymentStage.stageName}`,
    retention: RetentionDays.ONE_MONTH,
  });
  const autoDelete = stack.node.tryFindChild(AUTO_DELETE_PROVIDER) as CustomResourceProviderBase | undefined;
  if (autoDelete) {
    // arn:aws:lambda:<region>:<account>:function:<name>
    const functionName = Fn.select(6, Fn.split(':', autoDelete.serviceToken));
    new LogRetention(stack, 'AutoDeleteObjectsLogsRetention', {
      logGroupName: `/aws/lambda/${functionName}`,
      retention: RetentionDays.ONE_DAY,
    });
  }
  acknowledgeLogRetentionProvider(stack);
}
