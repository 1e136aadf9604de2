/**
 * Where a webhook delivery stands, as the API shows it: due (`pending`), a try in flight (`sending`),
 * done (`succeeded`), or given up (`failed`: the schedule ran out, or the endpoint was disabled).
 */
export const DELIVERY_STATES = ['pending', 'sending', 'succeeded', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];
