/**
 * AWS's list prices in us-east-1 that `npm run cost` uses, each with the page it is listed on. Written
 * into this table on 2026-11-29 from the pricing pages as last known to the author, not read from them
 * that day: check each against its page before quoting the table (PRICES_AS_OF says so in the output).
 * Free tiers are left out: at scale they round to nothing.
 */
export const PRICES_AS_OF = '2026-11-29';

export const PRICES = {
  apiGatewayRestPerMillion: {
    usd: 3.5,
    what: 'REST API requests, first 333 million a month',
    source: 'https://aws.amazon.com/api-gateway/pricing/',
  },
  wafRequestsPerMillion: {
    usd: 0.6,
    what: 'AWS WAF requests inspected',
    source: 'https://aws.amazon.com/waf/pricing/',
  },
  wafWebAclPerMonth: { usd: 5, what: 'AWS WAF web ACL', source: 'https://aws.amazon.com/waf/pricing/' },
  wafRulePerMonth: { usd: 1, what: 'AWS WAF rule', source: 'https://aws.amazon.com/waf/pricing/' },
  lambdaRequestsPerMillion: {
    usd: 0.2,
    what: 'Lambda invocations',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  lambdaArmGbSecond: {
    usd: 0.0000133334,
    what: 'Lambda duration, Arm, first 7.5 billion GB-s a month',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  dynamoWritePerMillion: {
    usd: 0.625,
    what: 'DynamoDB on-demand write request units (standard table class)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoReadPerMillion: {
    usd: 0.125,
    what: 'DynamoDB on-demand read request units (standard table class)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoStreamReadPerMillion: {
    usd: 0,
    what: 'DynamoDB Streams reads by a Lambda trigger: free (other readers $0.02 per 100,000)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoPitrPerGbMonth: {
    usd: 0.2,
    what: 'DynamoDB continuous backups (PITR), per GB of table',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  eventBridgePutEventsPerMillion: {
    usd: 1,
    what: 'EventBridge custom events published (each 64 KB chunk)',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  logsIngestionPerGb: {
    usd: 0.5,
    what: 'CloudWatch Logs ingestion, standard class (vended Lambda logs: the same in their first tier)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  customMetricPerMonth: {
    usd: 0.3,
    what: 'CloudWatch custom metric (first 10,000), EMF included',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  xrayTracesPerMillion: {
    usd: 5,
    what: 'X-Ray traces recorded',
    source: 'https://aws.amazon.com/xray/pricing/',
  },
  kmsRequestsPerMillion: {
    usd: 3,
    what: 'KMS requests ($0.03 per 10,000)',
    source: 'https://aws.amazon.com/kms/pricing/',
  },
  kmsKeyPerMonth: { usd: 1, what: 'KMS customer managed key', source: 'https://aws.amazon.com/kms/pricing/' },
  s3PutPerMillion: {
    usd: 5,
    what: 'S3 Standard PUT requests ($0.005 per 1,000)',
    source: 'https://aws.amazon.com/s3/pricing/',
  },
} as const;

export type PriceName = keyof typeof PRICES;

/** Log and trace sizes are priced per GB: 2^30 bytes. */
export const BYTES_PER_GB = 1024 ** 3;
