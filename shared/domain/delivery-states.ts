/**
 * Where a webhook delivery stands, as the API shows it and as its item stores it: due (`pending`), a try in
 * flight (`sending`), done (`succeeded`), or given up (`failed`: the schedule ran out, or the endpoint was
 * disabled). The one place the states are spelled: the types, the OpenAPI enum and the data module's
 * transitions take them from here.
 */
export const DELIVERY_STATES = ['pending', 'sending', 'succeeded', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** Each state by name, for the code that writes or compares one. */
export const [PENDING, SENDING, SUCCEEDED, FAILED] = DELIVERY_STATES;

/** The states a delivery ends in. */
export type FinishedState = typeof SUCCEEDED | typeof FAILED;
