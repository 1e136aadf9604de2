import { describe, expect, it } from 'vitest';

/**
 * The run's DynamoDB Local (started by lib/local/services.ts, as `npm start` starts it) listens on every
 * interface, since it cannot be told one: what a page in the developer's browser could do with it is what
 * its CORS allow-list lets through, and that is nothing.
 */
describe('local DynamoDB', () => {
  const endpoint = () => process.env.DYNAMODB_ENDPOINT as string;

  it('refuses a browser page of any origin: no preflight passes, no answer is readable', async () => {
    const preflight = await fetch(endpoint(), {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://some-page.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-amz-target,authorization',
      },
    });
    // DynamoDB Local's default allow-list is `*`, which would answer `*` here and let the page through.
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();

    // A simple request a page could send without a preflight: DynamoDB Local answers, but not to the page.
    const simple = await fetch(endpoint(), {
      method: 'POST',
      headers: { Origin: 'http://some-page.example', 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(simple.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('still serves the API (requests without an Origin, as the SDK sends them)', async () => {
    const preflightFree = await fetch(endpoint(), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.ListTables',
        Authorization:
          'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: '{}',
    });
    expect(preflightFree.status).toBe(200);
    expect(((await preflightFree.json()) as { TableNames: unknown }).TableNames).toEqual(expect.any(Array));
  });
});
