import { routes } from '../../shared/routes.ts';
import { ACCESS_LOG_FIELDS, type AccessLogFieldName } from '../cdk/access-log.ts';
import type { Settings } from '../cdk/settings.ts';
import { ASSUMPTIONS, REQUEST_MIX } from './assumptions.ts';
import { BYTES_PER_GB, PRICES, type PriceName } from './prices.ts';

/** One item of the bill: dollars per million API requests and per million webhook deliveries. */
export interface CostLine {
  item: string;
  perMillionRequests: number;
  perMillionDeliveries: number;
  /** How it is counted, at these settings. */
  basis: string;
}

/** One fixed item a month, whatever the traffic. */
export interface MonthlyLine {
  item: string;
  usd: number;
  basis: string;
}

const MILLION = 1e6;
const price = (name: PriceName): number => PRICES[name].usd;
/** Dollars of `count` things priced per million, per million requests. */
const perMillion = (count: number, name: PriceName) => count * price(name);
const logDollars = (bytesPerItem: number) =>
  ((bytesPerItem * MILLION) / BYTES_PER_GB) * price('logsIngestionPerGb');
const gbSeconds = (memoryMb: number, durationMs: number) => (memoryMb / 1024) * (durationMs / 1000);
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

/** LOG_LEVEL at which the handlers' one info line per request is written. */
const writesInfo = (level: string) => ['TRACE', 'DEBUG', 'INFO'].includes(level);

/** Bytes of one access log line with these fields: `"name":"value",` each, and the braces. */
export function accessLogLineBytes(fields: readonly string[]): number {
  const known = fields.filter((field): field is AccessLogFieldName => field in ACCESS_LOG_FIELDS);
  return 2 + known.reduce((sum, field) => sum + field.length + ACCESS_LOG_FIELDS[field].typicalBytes + 6, 0);
}

/** Authorizer invocations per request: one per token per cache time, at most one per request. */
export function authorizerChecksPerRequest(cacheSeconds: number): number {
  const requestsPerCache = (ASSUMPTIONS.requestsPerTokenPerMinute * cacheSeconds) / 60;
  return requestsPerCache <= 1 ? 1 : 1 / requestsPerCache;
}

/** The itemized cost per million API requests and per million webhook deliveries at these settings. */
export function costLines(settings: Settings): CostLine[] {
  const a = ASSUMPTIONS;
  const memory = settings.functionMemory;
  const kinds = Object.values(REQUEST_MIX);
  const sum = (of: (kind: (typeof kinds)[number]) => number) =>
    kinds.reduce((total, kind) => total + kind.share * of(kind), 0);
  const checks = authorizerChecksPerRequest(settings.authorizerCacheSeconds);
  const changes = sum((kind) => kind.changes);
  const consumerInvocations = changes * a.consumerInvocationsPerChange;
  const deliveryInvocations = 1 / a.deliveriesPerInvocation;
  const infoLine = writesInfo(settings.logLevel);

  const routeGbSeconds = sum((kind) => gbSeconds(memory[kind.functionClass], kind.durationMs));
  const authorizerGbSeconds = checks * gbSeconds(memory.authorizer, a.authorizerDurationMs);
  const consumerGbSeconds = consumerInvocations * gbSeconds(memory.streamConsumer, a.consumerDurationMs);
  const delivererGbSeconds = deliveryInvocations * gbSeconds(memory.webhookDeliverer, a.delivererDurationMs);

  const accessLogBytes = accessLogLineBytes(settings.accessLogFields) + a.logEventOverheadBytes;
  const invocations = 1 + checks + consumerInvocations;
  const requestFunctionLogBytes =
    invocations * (a.platformLogBytesPerInvocation + 3 * a.logEventOverheadBytes) +
    (infoLine ? a.requestLogLineBytes + a.logEventOverheadBytes : 0);
  const deliveryFunctionLogBytes =
    deliveryInvocations * (a.platformLogBytesPerInvocation + 3 * a.logEventOverheadBytes) +
    (infoLine ? a.deliveryLogBytes : 0);
  const metricBytes = a.metricLogLineBytes + a.logEventOverheadBytes;
  const traced = settings.xraySampleRate > 0;
  const readUnits =
    sum((kind) => kind.readUnits) + checks * a.authorizerReadUnits + changes * a.consumerReadUnits;
  const writeUnits = sum((kind) => kind.writeUnits) + changes * a.consumerWriteUnits;

  const lines: CostLine[] = [
    {
      item: 'API Gateway REST requests',
      perMillionRequests: price('apiGatewayRestPerMillion'),
      perMillionDeliveries: 0,
      basis: 'every request',
    },
    {
      item: 'WAF requests',
      perMillionRequests: price('wafRequestsPerMillion'),
      perMillionDeliveries: 0,
      basis: `every request, inspected by the per-source rule and the ${Object.keys(settings.rateLimitPlans).length} plans' rules`,
    },
    {
      item: 'Lambda requests',
      perMillionRequests: perMillion(invocations, 'lambdaRequestsPerMillion'),
      perMillionDeliveries: perMillion(deliveryInvocations, 'lambdaRequestsPerMillion'),
      basis:
        `a request: its route, ${fixed(checks, 3)} authorizer checks (${settings.authorizerCacheSeconds} s cache, ` +
        `${a.requestsPerTokenPerMinute} requests a token a minute), ${fixed(consumerInvocations, 2)} consumer runs; ` +
        `a delivery: ${fixed(deliveryInvocations, 2)} deliverer run(s)`,
    },
    {
      item: 'Lambda duration (Arm)',
      perMillionRequests:
        (routeGbSeconds + authorizerGbSeconds + consumerGbSeconds) * MILLION * price('lambdaArmGbSecond'),
      perMillionDeliveries: delivererGbSeconds * MILLION * price('lambdaArmGbSecond'),
      basis:
        `routes ${memory.apiRoute} MB (auto-configure ${memory.autoConfigure}) for the mix's durations, ` +
        `authorizer ${memory.authorizer} MB × ${a.authorizerDurationMs} ms, consumer ${memory.streamConsumer} MB × ` +
        `${a.consumerDurationMs} ms, deliverer ${memory.webhookDeliverer} MB × ${a.delivererDurationMs} ms`,
    },
    {
      item: 'DynamoDB reads (on demand)',
      perMillionRequests: perMillion(readUnits, 'dynamoReadPerMillion'),
      perMillionDeliveries: perMillion(a.deliveryReadUnits, 'dynamoReadPerMillion'),
      basis: `${fixed(readUnits, 2)} read units a request (mix, authorizer, consumer); ${a.deliveryReadUnits} a delivery`,
    },
    {
      item: 'DynamoDB writes (on demand, index entries included)',
      perMillionRequests: perMillion(writeUnits, 'dynamoWritePerMillion'),
      perMillionDeliveries: perMillion(a.deliveryWriteUnits, 'dynamoWritePerMillion'),
      basis: `${fixed(writeUnits, 2)} write units a request (mix, event items); ${a.deliveryWriteUnits} a delivery (bench)`,
    },
    {
      item: 'DynamoDB Streams reads',
      perMillionRequests: perMillion(changes, 'dynamoStreamReadPerMillion'),
      perMillionDeliveries: 0,
      basis: 'read by a Lambda trigger: free',
    },
    {
      item: 'EventBridge PutEvents',
      perMillionRequests: perMillion(changes * a.putEventsPerChange, 'eventBridgePutEventsPerMillion'),
      perMillionDeliveries: 0,
      basis: `one event per change: ${fixed(changes, 2)} a request`,
    },
    {
      item: 'CloudWatch Logs: access log',
      perMillionRequests: logDollars(accessLogBytes),
      perMillionDeliveries: 0,
      basis: `${accessLogBytes} bytes a line (${settings.accessLogFields.length} fields)`,
    },
    {
      item: 'CloudWatch Logs: function logs',
      perMillionRequests: logDollars(requestFunctionLogBytes),
      perMillionDeliveries: logDollars(deliveryFunctionLogBytes),
      basis:
        `LOG_LEVEL ${settings.logLevel}: Lambda's lines, ${infoLine ? 'and the info line of each request' : 'no info lines'}; ` +
        `${Math.round(requestFunctionLogBytes)} bytes a request, ${Math.round(deliveryFunctionLogBytes)} a delivery`,
    },
    {
      item: 'CloudWatch metrics (EMF lines)',
      perMillionRequests: logDollars(metricBytes),
      perMillionDeliveries: logDollars(metricBytes),
      basis: `one ${metricBytes}-byte line each; the metrics themselves are monthly (below)`,
    },
    {
      item: 'X-Ray traces',
      perMillionRequests: traced ? perMillion(settings.xraySampleRate, 'xrayTracesPerMillion') : 0,
      perMillionDeliveries: traced ? perMillion(a.lambdaAsyncTraceShare, 'xrayTracesPerMillion') : 0,
      basis: traced
        ? `${percent(settings.xraySampleRate)} of requests; deliveries: Lambda's own ${percent(a.lambdaAsyncTraceShare)}`
        : 'xraySampleRate 0: nothing traced',
    },
    {
      item: 'KMS (signing secrets)',
      perMillionRequests: 0,
      perMillionDeliveries: perMillion(a.kmsDecryptsPerDelivery, 'kmsRequestsPerMillion'),
      basis: `one Decrypt per ${Math.round(1 / a.kmsDecryptsPerDelivery)} deliveries from a warm deliverer (bench)`,
    },
    {
      item: 'S3 PUTs (presigned uploads)',
      perMillionRequests: perMillion(
        sum((kind) => kind.s3Puts),
        's3PutPerMillion',
      ),
      perMillionDeliveries: 0,
      basis: `${fixed(
        sum((kind) => kind.s3Puts),
        3,
      )} uploads a request`,
    },
  ];
  return lines.map((line) => ({
    ...line,
    perMillionRequests: round(line.perMillionRequests, 4),
    perMillionDeliveries: round(line.perMillionDeliveries, 4),
  }));
}

/** What the stack costs a month whatever the traffic. */
export function monthlyLines(settings: Settings): MonthlyLine[] {
  // One rule per plan and the per-source rule (lib/cdk/rate-limits.ts).
  const rules = Object.keys(settings.rateLimitPlans).length + 1;
  const secondsPerMonth = 30 * 24 * 3600;
  const lines: MonthlyLine[] = [
    {
      item: 'WAF web ACL and rules',
      usd: price('wafWebAclPerMonth') + rules * price('wafRulePerMonth'),
      basis: `one web ACL, ${rules} rate-based rules (sourceRateLimit, rateLimitPlans)`,
    },
    { item: 'KMS key', usd: price('kmsKeyPerMonth'), basis: 'the signing secrets key' },
    {
      item: 'CloudWatch custom metrics',
      usd: routes.length * ASSUMPTIONS.metricsPerRoute * price('customMetricPerMonth'),
      basis: `${ASSUMPTIONS.metricsPerRoute} metrics × ${routes.length} routes`,
    },
    {
      item: 'X-Ray reservoir',
      usd: settings.xraySampleRate > 0 ? (secondsPerMonth / MILLION) * price('xrayTracesPerMillion') : 0,
      basis: settings.xraySampleRate > 0 ? 'one trace a second, besides the share' : 'xraySampleRate 0',
    },
    {
      item: 'DynamoDB PITR',
      usd: settings.pointInTimeRecovery ? ASSUMPTIONS.tableGb * price('dynamoPitrPerGbMonth') : 0,
      basis: settings.pointInTimeRecovery ? `a ${ASSUMPTIONS.tableGb} GB table` : 'pointInTimeRecovery off',
    },
  ];
  return lines.map((line) => ({ ...line, usd: round(line.usd) }));
}

const fixed = (value: number, digits: number) => Number(value.toFixed(digits)).toString();
const percent = (share: number) => `${Number((share * 100).toFixed(2))}%`;
