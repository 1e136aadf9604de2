import { signedHeaders } from '../domain/webhook-signing.ts';
import type { PostAnswer } from '../outbound/guarded-fetch.ts';
import { FetchRefusal } from '../outbound/refusal.ts';
import { DELIVERY_TIMEOUT_MS } from './schedule.ts';
import { type WebhookTargetOptions, webhookClient } from './url-check.ts';

/**
 * Sends one webhook delivery (one try) and tells how it went. Whatever the receiver or the network does is an
 * outcome, never an exception: the deliverer records it and schedules the next try from it.
 */

export interface DeliveryOutcome {
  /** A 2xx within the timeout. */
  ok: boolean;
  /** The answer's status, when one came. */
  status?: number;
  /** Retry-After of a 429 or 503, in ms (delta-seconds or an HTTP date), when given and valid. */
  retryAfterMs?: number;
  /** Why no (good) answer: a refusal's reason ('timeout', 'private_address', …), or 'http_error' for a non-2xx. */
  error?: { code: string; message: string };
  durationMs: number;
  /** The first 1 KB (1024 bytes) of the answer body, decoded as UTF-8 (lossy; a cut multi-byte char dropped). */
  response: string;
}

export interface WebhookTarget {
  url: string;
  /** The endpoint's secrets in force, newest first: one signature each. */
  secrets: readonly string[];
}

/** A webhook as it goes out: its id (the `webhook-id` header) and its body (signed when sent). */
export interface OutgoingWebhook {
  id: string;
  body: string;
}

export interface SendOptions extends WebhookTargetOptions {
  /** The answer must come within this (default DELIVERY_TIMEOUT_MS, the specification's 15 s). */
  timeoutMs?: number;
  /** The clock durationMs is measured with (monotonic by default); the signed timestamp is always Date.now(). */
  now?: () => number;
}

const USER_AGENT = 'TeamMessagingWebhooks/1.0';
/** IMF-fixdate, the HTTP date every server sends (RFC 9110, 5.6.7); the two obsolete forms are ignored. */
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

export async function sendWebhook(
  target: WebhookTarget,
  delivery: OutgoingWebhook,
  options: SendOptions = {},
): Promise<DeliveryOutcome> {
  if (target.secrets.length === 0) throw new Error('a webhook delivery needs at least one signing secret');
  const now = options.now ?? (() => performance.now());
  const started = now();
  const elapsed = () => Math.round(now() - started);
  // The receiver's verifier refuses a timestamp more than 5 minutes off: always the real clock, at send time.
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    ...signedHeaders(target.secrets, delivery.id, timestamp, delivery.body),
  };
  const client = webhookClient(options);
  try {
    const answer = await client.post(target.url, {
      body: delivery.body,
      headers,
      timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    });
    return { ...judged(answer), durationMs: elapsed(), response: decodedPrefix(answer.body) };
  } catch (error) {
    if (!(error instanceof FetchRefusal)) throw error;
    return {
      ok: false,
      error: { code: error.reason, message: error.message },
      durationMs: elapsed(),
      response: '',
    };
  } finally {
    await client.close();
  }
}

function judged(answer: PostAnswer): Pick<DeliveryOutcome, 'ok' | 'status' | 'retryAfterMs' | 'error'> {
  const { status } = answer;
  if (status >= 200 && status <= 299) return { ok: true, status };
  const retryAfterMs =
    status === 429 || status === 503 ? retryAfter(answer.header('retry-after')) : undefined;
  const redirect = status >= 300 && status <= 399 ? ' (redirects are not followed)' : '';
  return {
    ok: false,
    status,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    error: { code: 'http_error', message: `endpoint responded with HTTP ${status}${redirect}` },
  };
}

/** Retry-After as ms from now: delta-seconds, or an HTTP date (a past one is 0); anything else is ignored. */
function retryAfter(value: string | null): number | undefined {
  const trimmed = value?.trim() ?? '';
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  if (HTTP_DATE.test(trimmed)) {
    const at = Date.parse(trimmed);
    if (!Number.isNaN(at)) return Math.max(0, at - Date.now());
  }
  return undefined;
}

/** UTF-8, invalid bytes replaced; `stream` holds back (and so drops) a character the 1 KB cut in two. */
function decodedPrefix(body: Uint8Array): string {
  return new TextDecoder().decode(body, { stream: true });
}
