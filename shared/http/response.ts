import type { APIGatewayProxyResult } from 'aws-lambda';

/** What a handler answers; rendered as an API Gateway proxy result with a JSON body. */
export interface ApiResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown): ApiResponse => ({ status: 200, body });
export const created = (body: unknown): ApiResponse => ({ status: 201, body });

/** 304 Not Modified: no body (the client keeps the representation it named with If-None-Match). */
export const notModified = (headers: Record<string, string>): ApiResponse => ({ status: 304, headers });

export function toProxyResult(response: ApiResponse, requestId: string): APIGatewayProxyResult {
  if (response.status === 304) {
    return { statusCode: 304, headers: { 'X-Request-Id': requestId, ...response.headers }, body: '' };
  }
  return {
    statusCode: response.status,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, ...response.headers },
    body: JSON.stringify(response.body ?? {}),
  };
}
