import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (standardwebhooks.com): a secret is `whsec_` and the base64 of its key; a
 * delivery carries `webhook-id`, `webhook-timestamp` (epoch seconds) and `webhook-signature`, a
 * space-separated list of `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per secret in force
 * (two while a rotated secret's old one still is), so receivers verify with the libraries they have.
 */
const SECRET_PREFIX = 'whsec_';
/** 24 bytes: the specification allows 24 to 64. */
const KEY_BYTES = 24;

export const newSigningSecret = (): string => SECRET_PREFIX + randomBytes(KEY_BYTES).toString('base64');

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The headers of one delivery of `body`, signed under every secret given (newest first). */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): SignedHeaders {
  const content = `${id}.${timestampSeconds}.${body}`;
  const signatures = secrets.map(
    (secret) => `v1,${createHmac('sha256', keyOf(secret)).update(content).digest('base64')}`,
  );
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('not a webhook signing secret');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}
