import { afterEach, describe, expect, it, vi } from 'vitest';
import { httpErrorOf } from '../../../shared/http/errors.ts';
import { LIMITS } from '../../../shared/limits.ts';
import { FetchRefusal } from '../../../shared/outbound/refusal.ts';
import { checkWebhookUrl, type WebhookTargetOptions } from '../../../shared/webhooks/url-check.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';
import { answering } from '../autoconfigure/fixture-server.ts';

/**
 * The check of a webhook endpoint's URL when it is saved. DNS answers come from a scripted resolver (every
 * name is public unless a case says otherwise), so nothing is looked up or connected to.
 */

const PUBLIC = answering('93.184.216.34');

afterEach(() => {
  restoreSettings();
});

function check(url: string, options: WebhookTargetOptions = {}): Promise<string> {
  return checkWebhookUrl(url, { allowLoopback: false, resolveHost: PUBLIC, ...options });
}

async function refusalOf(url: string, options: WebhookTargetOptions = {}): Promise<FetchRefusal> {
  const error = await check(url, options).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(FetchRefusal);
  expect(httpErrorOf(error as FetchRefusal)?.status).toBe(422);
  return error as FetchRefusal;
}

const privateAddress = (host: string) =>
  `${host} resolves to a private address: webhooks are sent only to public addresses`;
/** Locally, a refusal of loopback names the switch that allows it. */
const loopback = (host: string) =>
  `${host} resolves to a private address: to send webhooks to a receiver on this machine, start the API with AUTOCONFIGURE_ALLOW_LOOPBACK=1`;
const TOO_LONG = `The url field must not be greater than ${LIMITS.webhookUrlLength} characters.`;
const FRAGMENT = 'URL must not contain a fragment (#…): it is never sent';

describe('checkWebhookUrl: accepted URLs, normalised', () => {
  it.each([
    ['https://hooks.example.com/webhooks?team=7', 'https://hooks.example.com/webhooks?team=7'],
    ['HTTPS://Hooks.Example.COM:443/a/../b', 'https://hooks.example.com/b'],
    ['  https://hooks.example.com  ', 'https://hooks.example.com/'],
    ['https://hooks.example.com/a b', 'https://hooks.example.com/a%20b'],
    ['https://bücher.example/hook', 'https://xn--bcher-kva.example/hook'],
    ['http://hooks.example.com/hook', 'http://hooks.example.com/hook'],
    ['https://93.184.216.34/hook', 'https://93.184.216.34/hook'],
    ['https://[2606:4700:4700::1111]/hook', 'https://[2606:4700:4700::1111]/hook'],
    [
      `https://hooks.example.com/${'a'.repeat(2048 - 26)}`,
      `https://hooks.example.com/${'a'.repeat(2048 - 26)}`,
    ],
  ])('%s → %s', async (url, normalised) => {
    expect(await check(url)).toBe(normalised);
  });

  it.each([
    ['http://127.0.0.1:8080/hook', 'http://127.0.0.1:8080/hook'],
    ['http://localhost:3000/hooks', 'http://localhost:3000/hooks'],
    ['http://[::1]:3000/hooks', 'http://[::1]:3000/hooks'],
  ])('accepts %s with the loopback switch (locally)', async (url, normalised) => {
    expect(await check(url, { allowLoopback: true })).toBe(normalised);
  });

  it('resolves the host and checks what it resolves to', async () => {
    const resolveHost = vi.fn(PUBLIC);
    await check('https://hooks.example.com/', { resolveHost });
    expect(resolveHost).toHaveBeenCalledWith('hooks.example.com');
  });
});

describe('checkWebhookUrl: refused URLs (422, errors.url)', () => {
  const INVALID = 'invalid URL (only http and https URLs are allowed)';
  it.each([
    [
      'not a URL (its scheme left out)',
      'hooks.example.com/hook',
      'invalid_url',
      `${INVALID}. Did you mean https://hooks.example.com/hook?`,
    ],
    ['another scheme', 'ftp://hooks.example.com/', 'invalid_url', INVALID],
    [
      'credentials',
      'https://user:secret@hooks.example.com/',
      'invalid_url',
      'URL must not contain credentials',
    ],
    ['a fragment', 'https://hooks.example.com/hook#part', 'invalid_url', FRAGMENT],
    ['an empty fragment', 'https://hooks.example.com/hook#', 'invalid_url', FRAGMENT],
    ['a URL over the limit', `https://hooks.example.com/${'a'.repeat(2049 - 26)}`, 'invalid_url', TOO_LONG],
    ['one over it once normalised', `https://hooks.example.com/${'é'.repeat(400)}`, 'invalid_url', TOO_LONG],
    [
      'another port',
      'https://hooks.example.com:8443/',
      'port_not_allowed',
      'port 8443 not allowed: webhooks are sent only to ports 80 and 443',
    ],
    ['a private address', 'https://10.0.0.1/hook', 'private_address', privateAddress('10.0.0.1')],
    ['the metadata service', 'http://169.254.169.254/', 'private_address', privateAddress('169.254.169.254')],
    ['0.0.0.0', 'http://0.0.0.0/', 'private_address', privateAddress('0.0.0.0')],
    ['loopback', 'http://127.0.0.1:8080/hook', 'private_address', loopback('127.0.0.1')],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/', 'private_address', loopback('::ffff:7f00:1')],
    ['decimal loopback', 'http://2130706433/', 'private_address', loopback('127.0.0.1')],
  ])('refuses %s: %s', async (_case, url, reason, message) => {
    const refusal = await refusalOf(url);
    expect(refusal.reason).toBe(reason);
    expect(refusal.errors).toEqual({ url: [message] });
  });

  it.each([
    ['a private address', answering('10.0.0.1')],
    ['a loopback address', answering('127.0.0.1')],
    ['public and private addresses', answering('93.184.216.34', '10.0.0.1')],
    ['public and link-local IPv6 addresses', answering('2606:4700:4700::1111', 'fe80::1')],
  ])('refuses a name resolving to %s', async (_case, resolveHost) => {
    const refusal = await refusalOf('https://hooks.example.com/', { resolveHost });
    expect(refusal.reason).toBe('private_address');
    expect(refusal.message).toMatch(/^hooks\.example\.com resolves to a private address/);
  });

  it.each([
    ['no address', answering()],
    ['a failed lookup', () => Promise.reject(new Error('ENOTFOUND'))],
  ])('refuses a name with %s', async (_case, resolveHost) => {
    const refusal = await refusalOf('https://hooks.invalid/', { resolveHost });
    expect(refusal.reason).toBe('unresolvable');
    expect(refusal.message).toBe('could not resolve host hooks.invalid');
  });

  it('refuses a URL over the limit without parsing or resolving it', async () => {
    const resolveHost = vi.fn(PUBLIC);
    const refusal = await refusalOf(`https://hooks.example.com/${'a'.repeat(10_000)}`, { resolveHost });
    expect(refusal.message).toBe(TOO_LONG);
    expect(resolveHost).not.toHaveBeenCalled();
  });
});

describe('checkWebhookUrl: inside Lambda', () => {
  it('accepts https only, and never loopback', async () => {
    useSettings({ AWS_LAMBDA_FUNCTION_NAME: 'webhook-endpoints-create' });

    expect(await check('https://hooks.example.com/hook')).toBe('https://hooks.example.com/hook');
    expect((await refusalOf('http://hooks.example.com/hook')).message).toBe('URL must use https');
    const refusal = await refusalOf('https://127.0.0.1/hook', { allowLoopback: true });
    expect(refusal.message).toBe(privateAddress('127.0.0.1'));
  });
});
