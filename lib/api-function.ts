import { resolve } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

const ROOT = resolve(import.meta.dirname, '..');

export interface ApiFunctionProps {
  /** Handler module relative to the repository root (a route table row's `handler`). */
  entry: string;
  environment: Record<string, string>;
  timeout?: Duration;
}

/**
 * Every Lambda of the API: Node.js 22 on arm64, a minified ESM bundle with source maps and the AWS SDK
 * bundled (tree-shaken, not the runtime's copy), its own log group with a retention.
 */
export class ApiFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id, {
      entry: resolve(ROOT, props.entry),
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: 512,
      timeout: props.timeout ?? Duration.seconds(10),
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      logGroup: new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH }),
      projectRoot: ROOT,
      depsLockFilePath: resolve(ROOT, 'package-lock.json'),
      bundling: {
        format: OutputFormat.ESM,
        minify: true,
        sourceMap: true,
        target: 'node22',
        bundleAwsSDK: true,
        mainFields: ['module', 'main'],
        // ESM bundles of CommonJS dependencies need a real `require`.
        banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
      },
    });
  }
}
