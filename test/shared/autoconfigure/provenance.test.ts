import { describe, expect, it } from 'vitest';
import { configure } from './synthetic-page.ts';

/** JSON-LD node choice, sources, confidence and dark variants, on synthetic pages. */

const jsonLd = (...blocks: unknown[]) =>
  blocks.map((block) => `<script type="application/ld+json">${JSON.stringify(block)}</script>`).join('');

describe('JSON-LD: every block and node, the site itself first', () => {
  it('reads every block and @graph, joining @id references to the node they name', () => {
    const { suggestions, sources } = configure(
      jsonLd(
        { '@type': 'Recipe', name: 'Soup', author: { '@type': 'Person', name: 'Jo' } },
        {
          '@graph': [
            { '@type': 'WebSite', '@id': '#site', url: '/', publisher: { '@id': '#org' } },
            {
              '@type': 'Organization',
              '@id': '#org',
              name: 'Acme Widgets',
              logo: 'https://cdn.example/acme.svg',
              sameAs: ['https://twitter.com/acme'],
            },
          ],
        },
      ),
    );
    expect(suggestions).toMatchObject({
      name: 'Acme Widgets',
      logo_image: 'https://cdn.example/acme.svg',
      social_links: { x: 'https://x.com/acme' },
    });
    expect(sources).toMatchObject({
      name: 'json-ld:Organization.name',
      logo_image: 'json-ld:Organization.logo',
      social_links: { x: 'json-ld:Organization.sameAs' },
    });
  });

  it('prefers the organisation whose url is on the site over a parent publisher, even nested', () => {
    const { suggestions, sources, confidence } = configure(
      jsonLd({
        '@type': 'Article',
        publisher: {
          '@type': 'NewsMediaOrganization',
          name: 'Parent Media',
          url: 'https://www.parent.example/',
          logo: 'https://www.parent.example/logo.png',
          sameAs: ['https://twitter.com/parentmedia'],
          subOrganization: {
            '@type': 'Organization',
            name: 'Acme Widgets',
            url: 'https://acme-widgets.co.uk/',
            logo: 'https://cdn.example/acme.png',
          },
        },
      }),
    );
    expect(suggestions).toMatchObject({ name: 'Acme Widgets', logo_image: 'https://cdn.example/acme.png' });
    expect(suggestions.social_links).toBeNull();
    expect(sources.name).toBe('json-ld:Organization.name');
    expect(confidence.name).toBe('high');
  });

  it('takes the publisher the page states when nothing is shown to be the site, with medium confidence', () => {
    const { suggestions, sources, confidence } = configure(
      jsonLd({
        '@type': 'NewsArticle',
        author: { '@type': 'Organization', name: 'Wire Service' },
        publisher: { '@type': 'NewsMediaOrganization', name: 'The Ledger', logo: '/ledger.png' },
      }),
    );
    expect(suggestions.name).toBe('The Ledger');
    expect(suggestions.logo_image).toBe('https://www.acme-widgets.co.uk/ledger.png');
    expect(sources.logo_image).toBe('json-ld:NewsMediaOrganization.logo');
    expect(confidence.logo_image).toBe('medium');
  });

  it('ignores nested organisations not tied to the site (an author, a manufacturer)', () => {
    const { suggestions } = configure(
      jsonLd({
        '@type': 'Product',
        manufacturer: { '@type': 'Corporation', name: 'Gizmo Corp', logo: 'https://gizmo.example/logo.png' },
        review: { author: { '@type': 'Organization', name: 'Reviews Inc' } },
      }),
    );
    expect(suggestions.name).toBe('Acme-widgets');
    expect(suggestions.logo_image).toBeNull();
  });
});

describe('sources and confidence', () => {
  it('names a source and a confidence for every suggested field, and nothing for the others', () => {
    const configuration = configure(
      '<meta property="og:site_name" content="Acme"><meta name="twitter:description" content="Widgets">' +
        '<meta name="theme-color" content="#e4572e"><link rel="icon" type="image/png" href="/i.png">' +
        '<meta name="twitter:site" content="@acme"><title>Acme</title>',
      '<header><img class="logo" src="/logo.png"></header><footer><a href="https://www.facebook.com/acme">f</a></footer>',
    );
    expect(configuration.sources).toEqual({
      website_url: 'url',
      name: 'og:site_name',
      short_description: 'twitter:description',
      primary_color: 'theme-color',
      logo_image: 'header:img',
      logo_square_image: 'icon',
      social_links: { x: 'twitter:site', facebook: 'footer:a' },
    });
    expect(configuration.confidence).toEqual({
      website_url: 'high',
      name: 'high',
      short_description: 'medium',
      primary_color: 'high',
      logo_image: 'low',
      logo_square_image: 'medium',
      social_links: { x: 'high', facebook: 'low' },
    });
  });

  it('says a name from the title or the domain is low confidence', () => {
    expect(configure('<title>Shop | Acme Widgets</title>')).toMatchObject({
      sources: { name: 'title' },
      confidence: { name: 'low' },
    });
    expect(configure('')).toMatchObject({ sources: { name: 'domain' }, confidence: { name: 'low' } });
  });

  it('names the manifest as the source of what it gives', () => {
    const configuration = configure(
      '',
      '',
      '{"name":"Acme","theme_color":"#2f6b3a","icons":[{"src":"/icon-512.png","sizes":"512x512"}]}',
    );
    expect(configuration.sources).toMatchObject({
      name: 'manifest:name',
      primary_color: 'manifest:theme_color',
      logo_square_image: 'manifest:icons',
    });
  });
});

describe('dark variants', () => {
  it('is empty when the page declares nothing for dark mode', () => {
    expect(configure('<meta name="theme-color" content="#e4572e">').variants).toEqual({});
  });

  it('keeps a dark theme-color out of the suggestions and returns it as variants.dark', () => {
    const configuration = configure(
      '<meta name="theme-color" media="(prefers-color-scheme: dark)" content="#101820">' +
        '<meta name="theme-color" media="(prefers-color-scheme: light)" content="#f2aa4c">',
    );
    expect(configuration.suggestions.primary_color).toBe('#f2aa4c');
    expect(configuration.suggestions.secondary_color).toBeNull();
    expect(configuration.variants).toEqual({ dark: { primary_color: '#101820' } });
  });

  it('reads the dark <source> of a logo <picture> and dark icon links', () => {
    const configuration = configure(
      '<link rel="icon" type="image/svg+xml" href="/icon.svg">' +
        '<link rel="icon" type="image/svg+xml" media="(prefers-color-scheme: dark)" href="/icon-dark.svg">',
      '<header><a class="site-logo" href="/"><picture>' +
        '<source media="(prefers-color-scheme: dark)" srcset="/logo-dark.png 1x, /logo-dark@2x.png 2x">' +
        '<img src="/logo.png" alt="Acme"></picture></a></header>',
    );
    expect(configuration.suggestions).toMatchObject({
      logo_image: 'https://www.acme-widgets.co.uk/logo.png',
      logo_square_image: 'https://www.acme-widgets.co.uk/icon.svg',
    });
    expect(configuration.variants).toEqual({
      dark: {
        logo_image: 'https://www.acme-widgets.co.uk/logo-dark.png',
        logo_square_image: 'https://www.acme-widgets.co.uk/icon-dark.svg',
      },
    });
  });

  it("reads the manifest's dark overrides: color_scheme_dark, and user_preferences for icons", () => {
    const configuration = configure(
      '',
      '',
      JSON.stringify({
        theme_color: '#2f6b3a',
        icons: [{ src: '/icon.png', sizes: '512x512', purpose: 'any monochrome' }],
        color_scheme_dark: { theme_color: '#0b1f10', background_color: '#000000' },
        user_preferences: {
          color_scheme: {
            dark: { theme_color: '#999999', icons: [{ src: '/icon-dark.png', sizes: '512x512' }] },
          },
        },
      }),
    );
    expect(configuration.suggestions).toMatchObject({
      primary_color: '#2f6b3a',
      logo_square_image: 'https://www.acme-widgets.co.uk/icon.png',
    });
    expect(configuration.variants).toEqual({
      dark: {
        primary_color: '#0b1f10',
        secondary_color: '#000000',
        logo_square_image: 'https://www.acme-widgets.co.uk/icon-dark.png',
      },
    });
  });
});
