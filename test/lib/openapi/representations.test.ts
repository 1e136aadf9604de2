import { describe, expectTypeOf, it } from 'vitest';
import type { components } from '../../../client/index.ts';
import type { Page } from '../../../shared/data/pages.ts';
import type { Attempt } from '../../../shared/data/webhook-deliveries/attempts.ts';
import type { DeliveryView, EventDeliveryView } from '../../../shared/data/webhook-deliveries/views.ts';
import type { webhookEndpointView } from '../../../shared/data/webhook-endpoints.ts';
import type { ChangeEvent } from '../../../shared/domain/event-shape.ts';

type Schemas = components['schemas'];

/**
 * The types of what the code answers are the document's (client/schema.d.ts, generated from it by
 * `npm run openapi`): checked by `tsc --noEmit`, so a field added to one and not the other does not compile.
 * A brand's and a contact field's are checked with their declarations (test/shared/domain/entity-fields.test.ts).
 */
describe('the answers the code builds', () => {
  it('have the types the document gives them', () => {
    expectTypeOf<Page>().toEqualTypeOf<Schemas['Page']>();
    expectTypeOf<ReturnType<typeof webhookEndpointView>>().toEqualTypeOf<Schemas['WebhookEndpoint']>();
    expectTypeOf<DeliveryView>().toEqualTypeOf<Schemas['WebhookDelivery']>();
    expectTypeOf<EventDeliveryView>().toEqualTypeOf<Schemas['EventDelivery']>();
    expectTypeOf<Attempt>().toEqualTypeOf<Schemas['WebhookAttempt']>();
    // An event's `data.object` is typed loosely in the code (any resource's representation, rendered by its
    // own module, whose types are checked above): the envelope and the keys of `data` are held here.
    expectTypeOf<Omit<ChangeEvent, 'data'>>().toEqualTypeOf<Omit<Schemas['Event'], 'data'>>();
    expectTypeOf<keyof ChangeEvent['data']>().toEqualTypeOf<keyof Schemas['Event']['data']>();
  });
});
