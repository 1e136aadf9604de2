import type { APIGatewayProxyResult } from 'aws-lambda';

/** What a handler answers; rendered as an API Gateway proxy result with a JSON body unless it is text. */
export interface ApiResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** The media type of a `body` that is text sent as is, not JSON (the docs page and its script). */
  contentType?: string;
}

export const ok = (body: unknown): ApiResponse => ({ status: 200, body });
export const created = (body: unknown): ApiResponse => ({ status: 201, body });
/** 202: the work is queued (webhook deliveries), its outcome comes later. */
export const accepted = (body: unknown): ApiResponse => ({ status: 202, body });

/** 200 with a text body of this media type, sent as is. */
export const okText = (contentType: string, body: string): ApiResponse => ({
  status: 200,
  body,
  contentType,
});

/** 304 Not Modified: no body (the client keeps the representation it named with If-None-Match). */
export const notModified = (headers: Record<string, string>): ApiResponse => ({ status: 304, headers });

export function toProxyResult(response: ApiResponse, requestId: string): APIGatewayProxyResult {
  if (response.status === 304) {
    return { statusCode: 304, headers: { 'X-Request-Id': requestId, ...response.headers }, body: '' };
  }
  const { contentType } = response;
  return {
    statusCode: response.status,
    headers: {
      'Content-Type': contentType ?? 'application/json',
      'X-Request-Id': requestId,
      ...response.headers,
    },
    body: contentType === undefined ? JSON.stringify(response.body ?? {}) : String(response.body ?? ''),
  };
}
