import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, signedHeaders } from '../../../shared/domain/webhook-signing.ts';

/** Our signatures, verified by the Standard Webhooks reference library (never by our own code). */
describe('webhook signatures', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it('verify with the standardwebhooks package for any body', () => {
    const secret = newSigningSecret();
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const body = JSON.stringify(value);
        const headers = signedHeaders([secret], 'evt_1_2_3_0', now(), body);
        expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
      }),
      { seed: 30, numRuns: 200 },
    );
  });

  it('carry one signature per secret while a rotated secret is in force: either verifies', () => {
    const [old, rotated] = [newSigningSecret(), newSigningSecret()];
    const body = '{"type":"brand.updated"}';
    const headers = signedHeaders([rotated, old], 'evt_1_2_3_0', now(), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [old, rotated])
      expect(new Webhook(secret).verify(body, { ...headers })).toBeTruthy();
    const afterwards = signedHeaders([rotated], 'evt_1_2_3_0', now(), body);
    expect(() => new Webhook(old).verify(body, { ...afterwards })).toThrow();
  });

  it('fail for another body, id, timestamp or secret', () => {
    const secret = newSigningSecret();
    const body = '{"a":1}';
    // Another timestamp than the one signed: from the signed one, not from the clock (a busy machine can
    // pass a second between two readings, and `now() - 1` would then be the signed one).
    const signedAt = now();
    const headers = signedHeaders([secret], 'evt_1_2_3_0', signedAt, body);
    expect(() => new Webhook(secret).verify('{"a":2}', { ...headers })).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_1_2_3_1' })).toThrow();
    expect(() =>
      new Webhook(secret).verify(body, { ...headers, 'webhook-timestamp': String(signedAt - 1) }),
    ).toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(body, { ...headers })).toThrow();
  });

  it('makes secrets of the form whsec_<base64 of 24 bytes>, each new', () => {
    const secrets = new Set(Array.from({ length: 50 }, newSigningSecret));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    }
  });
});
