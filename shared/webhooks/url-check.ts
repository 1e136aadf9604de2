import { config } from '../config.ts';
import { LIMITS } from '../limits.ts';
import { GuardedClient, type HostResolver } from '../outbound/guarded-fetch.ts';
import { FetchRefusal } from '../outbound/refusal.ts';

/**
 * Which URLs webhooks are sent to: auto-configure's target policy (public addresses only, ports 80 and 443,
 * no credentials, the loopback test hook), and https only inside AWS, since a delivery carries a team's data
 * out of our network. Locally http is allowed, for receivers on this machine.
 */
export interface WebhookTargetOptions {
  /** Overrides `AUTOCONFIGURE_ALLOW_LOOPBACK=1`; ignored inside Lambda. */
  allowLoopback?: boolean;
  resolveHost?: HostResolver;
}

/** The guarded client under the webhook policy; the caller closes it. */
export function webhookClient(options: WebhookTargetOptions = {}): GuardedClient {
  return new GuardedClient({ ...options, requireHttps: config.insideLambda(), target: 'receiver' });
}

/**
 * Checks an endpoint's URL when it is saved, as a delivery will be checked (and each delivery is checked again,
 * DNS included, right before it connects): returns it normalised (URL.href), or throws a FetchRefusal (422 with
 * errors.url) naming why not.
 */
export async function checkWebhookUrl(url: string, options: WebhookTargetOptions = {}): Promise<string> {
  assertLength(url);
  const client = webhookClient(options);
  try {
    const { href } = await client.check(url);
    // A '#' can only stand in the href as the fragment's start (anywhere else it is percent-encoded).
    if (href.includes('#')) {
      throw new FetchRefusal('invalid_url', 'URL must not contain a fragment (#…): it is never sent');
    }
    // Normalising can lengthen a URL (percent-encoding, punycode): what is stored keeps the limit too.
    assertLength(href);
    return href;
  } finally {
    await client.close();
  }
}

function assertLength(url: string): void {
  if (url.length > LIMITS.webhookUrlLength) {
    throw new FetchRefusal(
      'invalid_url',
      `The url field must not be greater than ${LIMITS.webhookUrlLength} characters.`,
    );
  }
}
