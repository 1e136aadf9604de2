import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../lib/cdk/settings.ts';
import { synthesize } from '../../support/synth.ts';

/**
 * How long API Gateway keeps the authorizer's answer for a token, and so how long a revoked token may still
 * work: cdk.json's `authorizerCacheSeconds`, within API Gateway's range (0, no cache, to 3600). The default
 * stack's 300 is test/lib/cdk/team-messaging-stack.stack.test.ts's.
 */
const ttlOf = (context: Record<string, unknown>) => {
  const { template } = synthesize({ full: false, context });
  const [authorizer] = Object.values(template.findResources('AWS::ApiGateway::Authorizer'));
  return authorizer?.Properties.AuthorizerResultTtlInSeconds;
};

describe('the authorizer cache bound (cdk.json authorizerCacheSeconds)', () => {
  it('defaults to 5 minutes and takes what cdk.json or -c sets, 0 (no cache) included', () => {
    expect(DEFAULT_SETTINGS.authorizerCacheSeconds).toBe(300);
    expect(ttlOf({ authorizerCacheSeconds: '0' })).toBe(0);
    expect(ttlOf({ authorizerCacheSeconds: 3600 })).toBe(3600);
  });

  it.each([['3601'], ['-1'], ['1.5'], ['soon'], [3601]])(
    'refuses %j, naming the key and the range',
    (value) => {
      expect(() => synthesize({ full: false, context: { authorizerCacheSeconds: value } })).toThrow(
        "context authorizerCacheSeconds: whole seconds, 0 (no cache) to 3600 (API Gateway's range for an authorizer's cache)",
      );
    },
  );
});
