import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { config } from '../config.ts';
import { schemeHint } from '../domain/url-hints.ts';
import { FetchRefusal } from './refusal.ts';

/**
 * Which hosts the guarded client (auto-configure, webhooks) may talk to. Everything that is not a public unicast
 * address is refused, whatever spelling or DNS answer leads to it; the loopback test hook is the only exception.
 */
export interface TargetPolicy {
  /** Loopback addresses (and any port on them) are allowed: a test hook, never on inside Lambda. */
  readonly allowLoopback: boolean;
  /** The loopback switch can be turned on here (not inside Lambda): a refusal of loopback names it. */
  readonly loopbackSwitchable: boolean;
  /** Only https URLs: webhooks inside AWS, where what they carry leaves our network. Off for auto-configure. */
  readonly requireHttps?: boolean;
  /** What the target is, so that a refusal says it in the caller's terms: a site unless said. */
  readonly target?: TargetKind;
}

/** A site auto-configure reads, or a webhook receiver the API sends to. */
export type TargetKind = 'site' | 'receiver';

/** What a refusal says of each kind of target: what is allowed, and what the loopback switch is for. */
const WORDING: Record<TargetKind, { publicOnly: string; ports: string; onThisMachine: string }> = {
  site: {
    publicOnly: 'only sites on public addresses can be read',
    ports: 'only ports 80 and 443 can be read',
    onThisMachine: 'to read a site on this machine',
  },
  receiver: {
    publicOnly: 'webhooks are sent only to public addresses',
    ports: 'webhooks are sent only to ports 80 and 443',
    onThisMachine: 'to send webhooks to a receiver on this machine',
  },
};

/** The setting that allows loopback targets locally (shared/config.ts reads it). */
export const LOOPBACK_SWITCH = 'AUTOCONFIGURE_ALLOW_LOOPBACK';
const ALLOWED_PORTS = new Set(['', '80', '443']);
/** `localhost` and `*.localhost` reach these, whatever a resolver says (RFC 6761): tried in this order. */
const LOCALHOST_ADDRESSES = ['127.0.0.1', '::1'];
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** The policy for this call: the configured loopback switch (or the caller's), never inside Lambda. */
export function targetPolicy(
  allowLoopback?: boolean,
  requireHttps = false,
  target: TargetKind = 'site',
): TargetPolicy {
  const loopbackSwitchable = !config.insideLambda();
  return {
    allowLoopback: (allowLoopback ?? config.autoconfigureAllowLoopback()) && loopbackSwitchable,
    loopbackSwitchable,
    requireHttps,
    target,
  };
}

/**
 * Parses and checks a URL before any request is made to it (the page, and every redirect hop). The WHATWG parser has
 * already normalised decimal/hex/octal/short IPv4 spellings and IPv6 forms, so the parsed hostname is what we check.
 * `base` resolves a relative redirect Location.
 */
export function checkTargetUrl(raw: string, policy: TargetPolicy, base?: URL): URL {
  const url = URL.canParse(raw, base?.href) ? new URL(raw, base) : null;
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    // A URL the caller gave (not a redirect's) without its scheme is told which one it probably meant.
    const hint = base === undefined ? schemeHint(raw) : '';
    const message = 'invalid URL (only http and https URLs are allowed)';
    throw new FetchRefusal('invalid_url', hint ? `${message}.${hint}` : message);
  }
  if (url.username !== '' || url.password !== '') {
    throw new FetchRefusal('invalid_url', 'URL must not contain credentials');
  }
  if (policy.requireHttps && url.protocol !== 'https:') {
    throw new FetchRefusal('invalid_url', 'URL must use https');
  }
  // The host first, so that a loopback target is refused with the switch that allows it, whatever its port.
  const host = hostOf(url);
  if (isLocalhostName(host)) assertPermittedAddresses(host, url.port, LOCALHOST_ADDRESSES, policy);
  else if (isIP(host)) assertPermittedAddresses(host, url.port, [host], policy);
  // Non-default ports exist only for the loopback switch; for names, the connector checks what they resolve to.
  else if (!ALLOWED_PORTS.has(url.port) && !policy.allowLoopback) throw portRefusal(url.port, policy);
  return url;
}

/** The hostname without IPv6 brackets or a trailing root dot. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.+$/, '');
}

/**
 * Checks every address a host resolved to, right before connecting: one private answer is enough to refuse (DNS
 * rebinding, mixed answers). A non-default port is only ever allowed towards loopback under the test hook.
 */
export function assertPermittedAddresses(
  host: string,
  port: string,
  addresses: readonly string[],
  policy: TargetPolicy,
): void {
  const kinds = addresses.map(addressKind);
  const wording = WORDING[policy.target ?? 'site'];
  if (kinds.includes('other')) throw privateAddressRefusal(host, wording.publicOnly);
  if (kinds.includes('loopback') && !policy.allowLoopback) {
    throw privateAddressRefusal(
      host,
      policy.loopbackSwitchable
        ? `${wording.onThisMachine}, start the API with ${LOOPBACK_SWITCH}=1`
        : wording.publicOnly,
    );
  }
  if (!ALLOWED_PORTS.has(port) && kinds.some((kind) => kind !== 'loopback')) throw portRefusal(port, policy);
}

/** The addresses a host is connected to: `localhost` names never ask a resolver (RFC 6761). */
export function localhostAddresses(host: string): readonly string[] | null {
  return isLocalhostName(host) ? LOCALHOST_ADDRESSES : null;
}

function privateAddressRefusal(host: string, why: string): FetchRefusal {
  return new FetchRefusal('private_address', `${host} resolves to a private address: ${why}`);
}

function portRefusal(port: string, policy: TargetPolicy): FetchRefusal {
  return new FetchRefusal(
    'port_not_allowed',
    `port ${port} not allowed: ${WORDING[policy.target ?? 'site'].ports}`,
  );
}

/** `localhost` and `*.localhost` are loopback by definition (RFC 6761), whatever a resolver says. */
function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost');
}

function addressKind(address: string): 'public' | 'loopback' | 'other' {
  if (!ipaddr.isValid(address)) return 'other';
  // process() turns IPv4-mapped IPv6 (::ffff:a.b.c.d) into the IPv4 address it reaches.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'loopback') return 'loopback';
  if (range !== 'unicast') return 'other';
  // IPv6 'unicast' also covers unallocated and IPv4-compatible (::a.b.c.d) space; only 2000::/3 is global unicast.
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'other';
  return 'public';
}
