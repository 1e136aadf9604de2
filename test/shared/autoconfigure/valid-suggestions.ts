import { expect } from 'vitest';
import type { AutoConfiguration, BrandSuggestions } from '../../../shared/autoconfigure/index.ts';
import { SUGGESTED_FIELDS } from '../../../shared/domain/brand.ts';

/**
 * The create-brand rules every suggestion must meet as it stands: text and URLs at most 255 characters, URLs
 * absolute http(s), colours `#rrggbb` lowercase, social links a map of valid URLs.
 */
export function expectValidBrandInput(suggestions: BrandSuggestions): void {
  expect(Object.keys(suggestions)).toEqual([...SUGGESTED_FIELDS, 'social_links']);
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

/**
 * A whole answer: valid suggestions; a source and a confidence for exactly the suggested (non-null) fields and
 * networks; dark variants either absent or non-empty, each value valid create-brand input.
 */
export function expectValidAutoConfiguration(configuration: AutoConfiguration): void {
  const { suggestions, sources, confidence, variants } = configuration;
  expect(Object.keys(configuration).sort()).toEqual(['confidence', 'sources', 'suggestions', 'variants']);
  expectValidBrandInput(suggestions);
  const suggested = Object.keys(suggestions).filter(
    (field) => suggestions[field as keyof BrandSuggestions] !== null,
  );
  expect(Object.keys(sources)).toEqual(suggested);
  expect(Object.keys(confidence)).toEqual(suggested);
  const networks = Object.keys(suggestions.social_links ?? {});
  expect(Object.keys(sources.social_links ?? {})).toEqual(networks);
  expect(Object.keys(confidence.social_links ?? {})).toEqual(networks);
  const levels = [
    ...Object.values(confidence).filter((level) => typeof level === 'string'),
    ...Object.values(confidence.social_links ?? {}),
  ];
  for (const level of levels) expect(['high', 'medium', 'low']).toContain(level);
  for (const source of [...Object.values(sources), ...Object.values(sources.social_links ?? {})]) {
    if (typeof source === 'string') expect(source).toMatch(/^[\w:=.-]+$/);
  }
  expect(Object.keys(variants).every((scheme) => scheme === 'dark')).toBe(true);
  if (variants.dark !== undefined) {
    expect(Object.keys(variants.dark).length).toBeGreaterThan(0);
    for (const field of ['primary_color', 'secondary_color'] as const) {
      const color = variants.dark[field];
      if (color !== undefined) expect(color, `dark ${field}`).toMatch(/^#[0-9a-f]{6}$/);
    }
    for (const field of ['logo_image', 'logo_square_image'] as const) {
      const url = variants.dark[field];
      if (url !== undefined && url !== null) expectValidUrl(url, `dark ${field}`);
    }
  }
}
