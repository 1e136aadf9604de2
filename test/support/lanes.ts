/**
 * The test lanes (vitest.config.ts): which files need DynamoDB Local, s3rver and the change-event pipeline
 * (services), which only synthesize the stack (stack), and which need neither (unit: every other file).
 * The services files whose `admin migrate` works on the whole shared table (whole table) run first, one at a
 * time. Until the tests are laid out by name, the lanes are these lists.
 */
export type Lane = 'unit' | 'stack' | 'services' | 'services-whole-table';

export const STACK: string[] = [
  'test/authorizer-cache.test.ts',
  'test/cost.test.ts',
  'test/stack-areas.test.ts',
  'test/stack-deploy-limits.test.ts',
  'test/stack-dev.test.ts',
  'test/stack-events.test.ts',
  'test/stack-least-privilege.test.ts',
  'test/stack-methods.test.ts',
  'test/stack-monitoring-scale.test.ts',
  'test/stack-operations.test.ts',
  'test/stack-private-library.test.ts',
  'test/stack-rate-limits.test.ts',
  'test/stack-room.test.ts',
  'test/stack-signing-key.test.ts',
  'test/stack-stateful.test.ts',
  'test/stack-variants.test.ts',
  'test/stack-webhooks.test.ts',
  'test/stack.test.ts',
  'test/tenant-isolation/concurrency.test.ts',
  'test/webhooks/secrets-stack.test.ts',
];

export const WHOLE_TABLE: string[] = [
  'test/webhooks/delivery-keys.test.ts',
  'test/webhooks/endpoint-keys.test.ts',
];

export const SERVICES: string[] = [
  'test/admin-cli-commands.test.ts',
  'test/admin-cli.test.ts',
  'test/auth.test.ts',
  'test/autoconfigure/endpoint.test.ts',
  'test/bench-harness.test.ts',
  'test/brand-images.test.ts',
  'test/brands.test.ts',
  'test/contact-fields.test.ts',
  'test/cors.test.ts',
  'test/dependency-faults.test.ts',
  'test/docs-page.test.ts',
  'test/error-guidance.test.ts',
  'test/etags.test.ts',
  'test/events/consumer-crash.test.ts',
  'test/events/event-truth.test.ts',
  'test/events/events-api.test.ts',
  'test/events/stream-events.test.ts',
  'test/fuzz.test.ts',
  'test/gateway-protocol.test.ts',
  'test/idempotency.test.ts',
  'test/invoke.test.ts',
  'test/least-privilege-stream.test.ts',
  'test/least-privilege.test.ts',
  'test/list-links.test.ts',
  'test/local-concurrency.test.ts',
  'test/local-server.test.ts',
  'test/local-services.test.ts',
  'test/methods.test.ts',
  'test/newcomer-cli.test.ts',
  'test/observability.test.ts',
  'test/openapi-agreement.test.ts',
  'test/openapi-examples.test.ts',
  'test/openapi-parameters.test.ts',
  'test/openapi.test.ts',
  'test/outages.test.ts',
  'test/pages.test.ts',
  'test/pagination.test.ts',
  'test/quotas.test.ts',
  'test/rate-limit-plans.test.ts',
  'test/rate-limits.test.ts',
  'test/readme-examples.test.ts',
  'test/scopes.test.ts',
  'test/sdk-timeouts.test.ts',
  'test/stack-bundles.test.ts',
  'test/tenant-isolation/auto-configure-share.test.ts',
  'test/tenant-isolation/auto-configure.test.ts',
  'test/tenant-isolation/front-door.test.ts',
  'test/tenant-isolation/images.test.ts',
  'test/tenant-isolation/scoped-reads.test.ts',
  'test/tenant-isolation/storage.test.ts',
  'test/tenant-isolation/webhook-shares.test.ts',
  'test/tenant-isolation/webhooks.test.ts',
  'test/typed-client.test.ts',
  'test/webhooks/deliveries.test.ts',
  'test/webhooks/delivery-state.test.ts',
  'test/webhooks/endpoints-api.test.ts',
  'test/webhooks/function-invoker.test.ts',
  'test/webhooks/secrets-at-rest.test.ts',
  'test/webhooks/write-units.test.ts',
];

/** The lane a test file (its path from the repository's root) is in. */
export const laneOf = (file: string): Lane =>
  SERVICES.includes(file)
    ? 'services'
    : WHOLE_TABLE.includes(file)
      ? 'services-whole-table'
      : STACK.includes(file)
        ? 'stack'
        : 'unit';
