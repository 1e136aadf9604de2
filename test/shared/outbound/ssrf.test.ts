import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { autoConfigure } from '../../../shared/autoconfigure/index.ts';
import { httpErrorOf } from '../../../shared/http/errors.ts';
import type { HostResolver } from '../../../shared/outbound/guarded-fetch.ts';
import { FetchRefusal } from '../../../shared/outbound/refusal.ts';
import { assertPermittedAddresses, checkTargetUrl } from '../../../shared/outbound/target-policy.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';

/**
 * Server-side request forgery: every spelling of an internal address, and every DNS answer pointing at one, is
 * refused with a 422 before a connection is made. The loopback test hook is off here. DNS answers come from an
 * injected resolver, so no real lookup or connection happens.
 */

const PRIVATE = /resolves to a private address: /;
const INVALID = /^invalid URL/;

// [description, URL, expected message]
const LITERAL_CASES: Array<[string, string, RegExp | string]> = [
  ['loopback', 'http://127.0.0.1/', PRIVATE],
  ['loopback, other /8 address', 'http://127.53.1.9/', PRIVATE],
  ['short form 127.1', 'http://127.1/', PRIVATE],
  ['octal 0177.0.0.1', 'http://0177.0.0.1/', PRIVATE],
  ['hex octets 0x7f.0.0.1', 'http://0x7f.0.0.1/', PRIVATE],
  ['hex short 0x7f.1', 'http://0x7f.1/', PRIVATE],
  ['decimal 2130706433', 'http://2130706433/', PRIVATE],
  ['octal integer 017700000001', 'http://017700000001/', PRIVATE],
  ['hex integer 0x7f000001', 'http://0x7f000001/', PRIVATE],
  ['trailing dot 127.0.0.1.', 'http://127.0.0.1./', PRIVATE],
  ['percent-encoded host', 'http://%31%32%37.0.0.1/', PRIVATE],
  ['fullwidth digits and dots', 'http://１２７。０。０。１/', PRIVATE],
  ['circled digits', 'http://①②⑦.0.0.1/', PRIVATE],
  ['explicit port 80 on loopback', 'http://127.0.0.1:80/', PRIVATE],
  ['https on loopback', 'https://127.0.0.1/', PRIVATE],
  ['IPv6 loopback', 'http://[::1]/', PRIVATE],
  ['IPv6 loopback, long form', 'http://[0:0:0:0:0:0:0:1]/', PRIVATE],
  ['IPv4-mapped IPv6 dotted', 'http://[::ffff:127.0.0.1]/', PRIVATE],
  ['IPv4-mapped IPv6 hex', 'http://[::ffff:7f00:1]/', PRIVATE],
  ['IPv4-mapped IPv6 long form', 'http://[0:0:0:0:0:ffff:127.0.0.1]/', PRIVATE],
  ['IPv4-mapped private', 'http://[::ffff:10.0.0.1]/', PRIVATE],
  ['IPv4-mapped metadata', 'http://[::ffff:a9fe:a9fe]/', PRIVATE],
  ['IPv4-compatible (deprecated) loopback', 'http://[::127.0.0.1]/', PRIVATE],
  ['NAT64 of loopback', 'http://[64:ff9b::127.0.0.1]/', PRIVATE],
  ['NAT64 of private', 'http://[64:ff9b::a00:1]/', PRIVATE],
  ['local-use NAT64 of private', 'http://[64:ff9b:1::a00:1]/', PRIVATE],
  ['6to4 of loopback', 'http://[2002:7f00:1::]/', PRIVATE],
  ['6to4 of private', 'http://[2002:a00:1::1]/', PRIVATE],
  ['Teredo', 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', PRIVATE],
  ['IPv6 documentation range', 'http://[2001:db8::1]/', PRIVATE],
  ['unspecified 0.0.0.0', 'http://0.0.0.0/', PRIVATE],
  ['unspecified 0', 'http://0/', PRIVATE],
  ['IPv6 unspecified', 'http://[::]/', PRIVATE],
  ['private 10/8', 'http://10.0.0.1/', PRIVATE],
  ['private 172.16/12', 'http://172.16.0.1/', PRIVATE],
  ['private 172.31 edge', 'http://172.31.255.254/', PRIVATE],
  ['private 192.168/16', 'http://192.168.1.1/', PRIVATE],
  ['cloud metadata', 'http://169.254.169.254/latest/meta-data/', PRIVATE],
  ['cloud metadata, decimal', 'http://2852039166/', PRIVATE],
  ['cloud metadata, hex', 'http://0xa9.0xfe.0xa9.0xfe/', PRIVATE],
  ['cloud metadata, octal', 'http://0251.0376.0251.0376/', PRIVATE],
  ['AWS IPv6 metadata', 'http://[fd00:ec2::254]/', PRIVATE],
  ['carrier-grade NAT', 'http://100.64.0.1/', PRIVATE],
  ['Alibaba metadata (CGNAT)', 'http://100.100.100.200/', PRIVATE],
  ['IPv6 link-local', 'http://[fe80::1]/', PRIVATE],
  ['IPv6 unique local', 'http://[fc00::1]/', PRIVATE],
  ['IPv6 site-local (deprecated)', 'http://[fec0::1]/', PRIVATE],
  ['IPv4 multicast', 'http://224.0.0.1/', PRIVATE],
  ['IPv6 multicast', 'http://[ff02::1]/', PRIVATE],
  ['broadcast', 'http://255.255.255.255/', PRIVATE],
  ['IETF protocol assignments', 'http://192.0.0.8/', PRIVATE],
  ['benchmarking range', 'http://198.18.0.1/', PRIVATE],
  ['reserved 240/4', 'http://240.0.0.1/', PRIVATE],
  ['localhost', 'http://localhost/', PRIVATE],
  ['LOCALHOST with root dot', 'http://LOCALHOST./', PRIVATE],
  ['*.localhost', 'http://admin.localhost/', PRIVATE],
  ['deep *.localhost with root dot', 'http://a.b.localhost./', PRIVATE],
  ['credentials', 'https://user:pass@example.com/', 'URL must not contain credentials'],
  ['credentials hiding the real host', 'http://example.com@127.0.0.1/', 'URL must not contain credentials'],
  ['non-default port', 'http://example.com:22/', 'port 22 not allowed: only ports 80 and 443 can be read'],
  ['non-default port on loopback without the hook', 'http://127.0.0.1:8080/', PRIVATE],
  ['file URL', 'file:///etc/passwd', INVALID],
  ['gopher URL', 'gopher://127.0.0.1:25/', INVALID],
  ['ftp URL', 'ftp://example.com/', INVALID],
  ['data URL', 'data:text/html,<title>x</title>', INVALID],
  ['javascript URL', 'javascript:alert(1)', INVALID],
  ['not a URL', 'example.com', INVALID],
  ['NUL in host', 'http://127.0.0.1%00.example.com/', INVALID],
];

// [description, answers for rebind.example]
const DNS_CASES: Array<[string, string[]]> = [
  ['loopback', ['127.0.0.1']],
  ['private', ['10.0.0.1']],
  ['cloud metadata', ['169.254.169.254']],
  ['AWS IPv6 metadata', ['fd00:ec2::254']],
  ['IPv4-mapped private', ['::ffff:10.0.0.1']],
  ['IPv6 loopback', ['::1']],
  ['carrier-grade NAT', ['100.64.12.34']],
  ['unspecified', ['0.0.0.0']],
  ['NAT64 of metadata', ['64:ff9b::a9fe:a9fe']],
  ['public first, then private', ['93.184.216.34', '10.0.0.1']],
  ['private first, then public', ['192.168.0.10', '93.184.216.34']],
  ['public IPv6 and link-local IPv6', ['2606:2800:220:1:248:1893:25c8:1946', 'fe80::1']],
];

let resolveHost: ReturnType<typeof vi.fn<HostResolver>>;

beforeAll(() => {
  useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: undefined });
  resolveHost = vi.fn<HostResolver>(async (hostname) => {
    throw new Error(`unexpected DNS lookup of ${hostname}`);
  });
});

afterAll(() => {
  restoreSettings();
});

async function refusalOf(url: string, resolver: HostResolver): Promise<FetchRefusal> {
  const error = await autoConfigure(url, { resolveHost: resolver, timeoutMs: 2_000 }).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(FetchRefusal);
  return error as FetchRefusal;
}

describe('SSRF: URL spellings', () => {
  it('covers at least 50 bypass attempts in total', () => {
    expect(LITERAL_CASES.length + DNS_CASES.length).toBeGreaterThanOrEqual(50);
  });

  it.each(LITERAL_CASES)('refuses %s (%s) before any DNS lookup', async (_case, url, message) => {
    resolveHost.mockClear();
    const error = await refusalOf(url, resolveHost);

    expect(httpErrorOf(error)?.status).toBe(422);
    expect(error.message).toMatch(message);
    expect(resolveHost).not.toHaveBeenCalled();
  });
});

describe('SSRF: DNS answers, checked at connect time', () => {
  it.each(DNS_CASES)('refuses a name resolving to %s', async (_case, answers) => {
    const resolver = vi.fn<HostResolver>(async () =>
      answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
    const error = await refusalOf('http://rebind.example/', resolver);

    expect(httpErrorOf(error)?.status).toBe(422);
    expect(error.message).toMatch(/^rebind\.example resolves to a private address: /);
    expect(resolver).toHaveBeenCalledWith('rebind.example');
  });

  it('refuses over https too (the check does not depend on the scheme)', async () => {
    const error = await refusalOf('https://rebind.example/', async () => [
      { address: '10.1.2.3', family: 4 },
    ]);
    expect(error.message).toMatch(/^rebind\.example resolves to a private address: /);
  });
});

describe('SSRF: the policy does not over-block', () => {
  const policy = { allowLoopback: false, loopbackSwitchable: true };

  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:82b::200e'])(
    'permits the public address %s',
    (address) => {
      expect(() => assertPermittedAddresses('example.com', '', [address], policy)).not.toThrow();
    },
  );

  it.each([
    'https://example.com/',
    'http://www.example.co.uk/about',
    'https://93.184.216.34/',
    'http://example.com:80/',
  ])('accepts %s before connecting', (url) => {
    expect(checkTargetUrl(url, policy).href).toBe(new URL(url).href);
  });
});
