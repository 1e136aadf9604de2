import type { APIGatewayProxyResult } from 'aws-lambda';

/** What a handler answers; rendered as an API Gateway proxy result with a JSON body. */
export interface ApiResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown): ApiResponse => ({ status: 200, body });
export const created = (body: unknown): ApiResponse => ({ status: 201, body });

export function toProxyResult(response: ApiResponse, requestId: string): APIGatewayProxyResult {
  return {
    statusCode: response.status,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, ...response.headers },
    body: JSON.stringify(response.body ?? {}),
  };
}
