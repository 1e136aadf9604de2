import { expect } from 'vitest';
import type { BrandSuggestions } from '../../shared/autoconfigure/index.ts';

/**
 * The create-brand rules every suggestion must meet as it stands: text and URLs at most 255 characters, URLs
 * absolute http(s), colours `#rrggbb` lowercase, social links a map of valid URLs.
 */
export function expectValidBrandInput(suggestions: BrandSuggestions): void {
  expect(Object.keys(suggestions).sort()).toEqual(
    [
      'website_url',
      'name',
      'short_description',
      'primary_color',
      'secondary_color',
      'logo_image',
      'logo_square_image',
      'header_image',
      'footer_image',
      'social_share_image',
      'social_links',
    ].sort(),
  );
  for (const field of ['name', 'short_description'] as const) {
    const text = suggestions[field];
    if (text !== null) {
      expect(text.length, field).toBeGreaterThan(0);
      expect(text.length, field).toBeLessThanOrEqual(255);
      expect(text, field).toBe(text.trim());
    }
  }
  for (const field of ['primary_color', 'secondary_color'] as const) {
    const color = suggestions[field];
    if (color !== null) expect(color, field).toMatch(/^#[0-9a-f]{6}$/);
  }
  const urlFields = [
    'website_url',
    'logo_image',
    'logo_square_image',
    'header_image',
    'footer_image',
  ] as const;
  for (const field of [...urlFields, 'social_share_image'] as const) {
    const url = suggestions[field];
    if (url !== null) expectValidUrl(url, field);
  }
  if (suggestions.social_links !== null) {
    expect(Object.keys(suggestions.social_links).length).toBeGreaterThan(0);
    for (const [network, url] of Object.entries(suggestions.social_links)) {
      expect(network).toMatch(/^[a-z0-9-]+$/);
      expectValidUrl(url, `social_links.${network}`);
    }
  }
}

function expectValidUrl(url: string, field: string): void {
  expect(url.length, field).toBeLessThanOrEqual(255);
  expect(URL.canParse(url), `${field}: ${url}`).toBe(true);
  expect(['http:', 'https:'], field).toContain(new URL(url).protocol);
}
