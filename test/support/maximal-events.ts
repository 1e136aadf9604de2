import type { ChangeEvent } from '../../shared/domain/event-shape.ts';
import { EVENT_ID_LENGTH } from '../../shared/domain/event-shape.ts';
import { LIMITS } from '../../shared/limits.ts';

/**
 * The largest brand event the limits allow, computed from them: every string at LIMITS.textLength of
 * 3-byte UTF-8 characters (the most bytes a UTF-16 unit can take), URLs included, every list full, every
 * image set, and an update that changed every field (the former values as large). An upper bound: the API
 * refuses some of it (non-ASCII hosts, say), never more.
 */
const text = (seed: number) =>
  Array.from({ length: LIMITS.textLength }, (_, i) =>
    String.fromCharCode(0x4e00 + ((seed * 31 + i) % 20_000)),
  ).join('');
const LARGEST_ID = 10 ** LIMITS.idDigits - 1;
const AT = '2026-11-25T09:46:31.123000Z';

export function maximalBrand(seed: number): Record<string, unknown> {
  return {
    id: LARGEST_ID,
    team_id: LARGEST_ID,
    name: text(seed),
    short_description: text(seed + 1),
    website_url: text(seed + 2),
    primary_color: '#abcdef',
    secondary_color: '#fedcba',
    is_default: seed % 2 === 0,
    logo_image: text(seed + 3),
    logo_square_image: text(seed + 4),
    header_image: text(seed + 5),
    footer_image: text(seed + 6),
    social_share_image: text(seed + 7),
    email_address_id: LARGEST_ID,
    phone_id: LARGEST_ID,
    social_links: Object.fromEntries(
      Array.from({ length: LIMITS.brandSocialLinks }, (_, i) => [
        `${'n'.repeat(62)}${String(i).padStart(2, '0')}`,
        text(seed + 10 + i),
      ]),
    ),
    tags: Array.from({ length: LIMITS.brandTags }, (_, i) => text(seed + 100 + i)),
    created_at: AT,
    updated_at: AT,
  };
}

export function maximalBrandEvent(): ChangeEvent {
  return {
    id: `evt_${'9'.repeat(EVENT_ID_LENGTH - 4)}`.slice(0, EVENT_ID_LENGTH),
    type: 'brand.updated',
    created_at: AT,
    team_id: LARGEST_ID,
    resource: `brand:${LARGEST_ID}`,
    resource_version: LARGEST_ID,
    request_id: 'r'.repeat(64),
    data: { object: maximalBrand(0), previous_attributes: maximalBrand(1) },
  };
}
