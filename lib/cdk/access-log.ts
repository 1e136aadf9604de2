import { AccessLogField } from 'aws-cdk-lib/aws-apigateway';

/**
 * Every field the access log's JSON line may carry (cdk.json `accessLogFields` picks them), in the line's
 * order. `requestId` is the X-Request-Id clients see, `xrayTraceId` leads to the trace; `typicalBytes` is
 * the value's usual length, what `npm run cost` counts a line at (lib/cost).
 */
export const ACCESS_LOG_FIELDS = {
  requestId: { value: AccessLogField.contextRequestId(), typicalBytes: 36 },
  xrayTraceId: { value: AccessLogField.contextXrayTraceId(), typicalBytes: 35 },
  time: { value: AccessLogField.contextRequestTime(), typicalBytes: 26 },
  ip: { value: AccessLogField.contextIdentitySourceIp(), typicalBytes: 14 },
  userAgent: { value: AccessLogField.contextIdentityUserAgent(), typicalBytes: 60 },
  method: { value: AccessLogField.contextHttpMethod(), typicalBytes: 4 },
  resource: { value: AccessLogField.contextResourcePath(), typicalBytes: 22 },
  path: { value: AccessLogField.contextPath(), typicalBytes: 28 },
  status: { value: AccessLogField.contextStatus(), typicalBytes: 3 },
  responseLength: { value: AccessLogField.contextResponseLength(), typicalBytes: 4 },
  latencyMs: { value: AccessLogField.contextResponseLatency(), typicalBytes: 2 },
  authorizerLatencyMs: { value: AccessLogField.contextAuthorizerLatency(), typicalBytes: 2 },
  integrationLatencyMs: { value: AccessLogField.contextIntegrationLatency(), typicalBytes: 2 },
  integrationStatus: { value: AccessLogField.contextIntegrationStatus(), typicalBytes: 3 },
  teamId: { value: AccessLogField.contextAuthorizer('teamId'), typicalBytes: 6 },
  error: { value: AccessLogField.contextErrorMessage(), typicalBytes: 1 },
  errorType: { value: AccessLogField.contextErrorResponseType(), typicalBytes: 1 },
  authorizerError: { value: AccessLogField.contextAuthorizerError(), typicalBytes: 1 },
  integrationError: { value: AccessLogField.contextIntegrationErrorMessage(), typicalBytes: 1 },
} as const;

export type AccessLogFieldName = keyof typeof ACCESS_LOG_FIELDS;
export const ACCESS_LOG_FIELD_NAMES = Object.keys(ACCESS_LOG_FIELDS) as AccessLogFieldName[] as string[];

/** The line's template: the chosen fields in ACCESS_LOG_FIELDS' order. */
export function accessLogTemplate(fields: readonly string[]): string {
  const chosen = ACCESS_LOG_FIELD_NAMES.filter((name) => fields.includes(name)) as AccessLogFieldName[];
  return JSON.stringify(Object.fromEntries(chosen.map((name) => [name, ACCESS_LOG_FIELDS[name].value])));
}
