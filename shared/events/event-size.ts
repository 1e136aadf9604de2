import { itemSize } from '../data/item-size.ts';
import type { ChangeEvent } from '../domain/event-shape.ts';
import { logger } from '../telemetry.ts';

type Representation = Record<string, unknown>;

/**
 * The event as it is when `fits` holds: itself, or without its largest former values, one by one, named in
 * `data.omitted` (`previous_attributes.<field>`); when the object alone is over, its id stands for it
 * (`object` named) and the former values stay if they fit. An event is never dropped: the consumer is no
 * caller to answer a 422, and a store that refuses an event would fail its batch on every retry. Used for
 * the log (LIMITS.eventBytes) and the bus (EventBridge's entry size).
 */
export function withLargestOmitted(
  event: ChangeEvent,
  fits: (event: ChangeEvent) => boolean,
  where: string,
): ChangeEvent {
  if (fits(event)) return event;
  const withData = (data: Partial<ChangeEvent['data']>): ChangeEvent => ({
    ...event,
    data: { ...event.data, ...data },
  });
  const former = event.data.previous_attributes;
  const omitted = [...(event.data.omitted ?? [])];
  let object = event.data.object;
  if (!fits(withData({ previous_attributes: former && {} }))) {
    object = { id: object.id };
    omitted.push('object');
  }
  const previous: Representation | null = former && { ...former };
  const largestFirst = Object.keys(previous ?? {}).sort(
    (a, b) => itemSize({ [b]: previous?.[b] }) - itemSize({ [a]: previous?.[a] }),
  );
  for (let dropped = 0; ; dropped++) {
    const fitted = withData({
      object,
      previous_attributes: previous && { ...previous },
      omitted: [...omitted],
    });
    if (fits(fitted) || dropped === largestFirst.length) {
      logger().warn('event over its size: parts left out', { event_id: event.id, where, omitted });
      return fitted;
    }
    const field = largestFirst[dropped] as string;
    delete previous?.[field];
    omitted.push(`previous_attributes.${field}`);
  }
}
