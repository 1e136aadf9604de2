import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../shared/limits.ts';
import { configure } from './synthetic-page.ts';

/** Logos on synthetic pages: the square logo ranked by declared size, the image that links home. */

const ORIGIN = 'https://www.acme-widgets.co.uk';

/** The square logo with its source and confidence. */
function squareLogo(head: string, manifestJson: string | null = null) {
  const { suggestions, sources, confidence } = configure(head, '', manifestJson);
  return {
    value: suggestions.logo_square_image,
    source: sources.logo_square_image,
    confidence: confidence.logo_square_image,
  };
}

const touchIcon = (href: string, sizes?: string) =>
  `<link rel="apple-touch-icon" href="${href}"${sizes === undefined ? '' : ` sizes="${sizes}"`}>`;
const pngIcon = (href: string, sizes: string) =>
  `<link rel="icon" type="image/png" sizes="${sizes}" href="${href}">`;

describe('square logo: a small icon is not the logo while a larger one is declared', () => {
  it('prefers a larger icon of a later source to a 57-pixel touch icon', () => {
    expect(squareLogo(touchIcon('/touch-57.png', '57x57') + pngIcon('/icon-192.png', '192x192'))).toEqual({
      value: `${ORIGIN}/icon-192.png`,
      source: 'icon',
      confidence: 'medium',
    });
    expect(
      squareLogo(
        touchIcon('/touch-57.png', '57x57'),
        '{"icons":[{"src":"/icon-512.png","sizes":"512x512"}]}',
      ),
    ).toEqual({ value: `${ORIGIN}/icon-512.png`, source: 'manifest:icons', confidence: 'high' });
    const squareJsonLd =
      '<script type="application/ld+json">{"@type":"Organization","url":"/","logo":{"url":"/logo-sq.png","width":400,"height":400}}</script>';
    expect(squareLogo(touchIcon('/touch-72.png', '72x72') + squareJsonLd)).toEqual({
      value: `${ORIGIN}/logo-sq.png`,
      source: 'json-ld:Organization.logo',
      confidence: 'high',
    });
  });

  it('reads a size the page declares for the same URL elsewhere, then a 57x57 in the file name', () => {
    // The touch icon has no sizes; the favicon link declares the same file 32 pixels.
    expect(
      squareLogo(
        touchIcon('/i/small.png') + pngIcon('/i/small.png', '32x32') + pngIcon('/i/big.png', '192x192'),
      ).value,
    ).toBe(`${ORIGIN}/i/big.png`);
    expect(
      squareLogo(
        touchIcon('/apple-touch-icon-57x57-precomposed.png') + pngIcon('/android-192.png', '192x192'),
      ),
    ).toMatchObject({ value: `${ORIGIN}/android-192.png`, source: 'icon' });
    // Only an equal pair is a size: a hash or a non-square pair says nothing.
    expect(
      squareLogo(touchIcon('/touch-icon-120x57.png') + pngIcon('/android-192.png', '192x192')).source,
    ).toBe('apple-touch-icon');
  });

  it('keeps the order of the sources among icons of a fitting or unknown size', () => {
    // Of one source the largest, an unknown size after every known one; a touch icon of unknown size is still
    // the touch icon (most are 180 pixels), before a larger favicon.
    expect(
      squareLogo(touchIcon('/t.png') + touchIcon('/t-180.png', '180x180') + pngIcon('/i.png', '512x512'))
        .value,
    ).toBe(`${ORIGIN}/t-180.png`);
    expect(squareLogo(touchIcon('/t.png') + pngIcon('/i.png', '512x512'))).toMatchObject({
      value: `${ORIGIN}/t.png`,
      confidence: 'high',
    });
    // A small icon of the first source never hides an unknown one of the same source.
    expect(squareLogo(touchIcon('/t-57.png', '57x57') + touchIcon('/t.png')).value).toBe(`${ORIGIN}/t.png`);
  });

  it(`draws the line at ${LIMITS.autoConfigureSquareLogoMinSide} pixels`, () => {
    const side = LIMITS.autoConfigureSquareLogoMinSide;
    const fitting = squareLogo(touchIcon('/t.png', `${side}x${side}`) + pngIcon('/i.png', '512x512'));
    expect(fitting).toMatchObject({ value: `${ORIGIN}/t.png`, confidence: 'high' });
    const small = `${side - 1}x${side - 1}`;
    expect(squareLogo(touchIcon('/t.png', small) + pngIcon('/i.png', '512x512')).value).toBe(
      `${ORIGIN}/i.png`,
    );
  });

  it('suggests the largest small icon with low confidence when nothing larger is declared', () => {
    expect(
      squareLogo(
        touchIcon('/touch-57.png', '57x57') +
          touchIcon('/touch-72.png', '72x72') +
          pngIcon('/i-96.png', '96x96'),
      ),
    ).toEqual({ value: `${ORIGIN}/i-96.png`, source: 'icon', confidence: 'low' });
    expect(squareLogo(touchIcon('/touch-icon-72x72.png'))).toEqual({
      value: `${ORIGIN}/touch-icon-72x72.png`,
      source: 'apple-touch-icon',
      confidence: 'low',
    });
    expect(
      squareLogo(
        '<script type="application/ld+json">{"@type":"Organization","url":"/","logo":{"url":"/l.png","width":"60px","height":"60"}}</script>',
      ),
    ).toMatchObject({ value: `${ORIGIN}/l.png`, confidence: 'low' });
  });

  it('skips an icon whose URL create-brand would refuse and ranks the rest', () => {
    expect(
      squareLogo(touchIcon('javascript:alert(1)', '180x180') + touchIcon('/t-120.png', '120x120')).value,
    ).toBe(`${ORIGIN}/t-120.png`);
  });

  it('ranks the dark-mode icons the same way', () => {
    const dark = (html: string) => html.replace('<link ', '<link media="(prefers-color-scheme: dark)" ');
    const { variants } = configure(
      dark(touchIcon('/dark-57.png', '57x57')) + dark(pngIcon('/dark-192.png', '192x192')),
    );
    expect(variants).toEqual({ dark: { logo_square_image: `${ORIGIN}/dark-192.png` } });
  });
});

describe('logo: the image a link to the home page holds', () => {
  const logo = (body: string) => {
    const { suggestions, sources, confidence } = configure('', body);
    return { value: suggestions.logo_image, source: sources.logo_image, confidence: confidence.logo_image };
  };

  it('takes it from a banner no header element or class names, with low confidence', () => {
    expect(
      logo(
        '<div id="Banner"><a href="/" title="Home"><img src="/graphics/masthead.png" alt="Acme"></a></div>',
      ),
    ).toEqual({
      value: `${ORIGIN}/graphics/masthead.png`,
      source: 'home-link:img',
      confidence: 'low',
    });
    // The site's root written in full, or as its index page; a <picture> is looked past.
    expect(
      logo(`<h1><a href="${ORIGIN}/index.html"><picture><img src="/m.png"></picture></a></h1>`).value,
    ).toBe(`${ORIGIN}/m.png`);
    expect(logo('<a href="https://acme-widgets.co.uk/"><img src="/m.png"></a>').value).toBe(
      `${ORIGIN}/m.png`,
    );
  });

  it('comes after a logo the header marks', () => {
    const header = '<header><a href="/shop/"><img class="logo" src="/header-logo.png"></a></header>';
    expect(logo(`${header}<div><a href="/"><img src="/m.png"></a></div>`)).toMatchObject({
      value: `${ORIGIN}/header-logo.png`,
      source: 'header:img',
    });
  });

  it('is not an image linking elsewhere, beside text, in the footer or an article, nor a spacer', () => {
    for (const body of [
      '<a href="/shop/"><img src="/m.png"></a>',
      '<a href="/?ref=logo"><img src="/m.png"></a>',
      '<a href="#top"><img src="/m.png"></a>',
      '<a href="https://www.other.example/"><img src="/m.png"></a>',
      '<a href="/"><img src="/m.png"> Home</a>',
      '<a href="/"><img src="/m.png"><img src="/n.png"></a>',
      '<footer><a href="/"><img src="/m.png"></a></footer>',
      '<article><a href="/"><img src="/m.png"></a></article>',
      '<a href="/"><img src="/assets/transparent.gif" alt="Acme"></a>',
      '<a href="/"><img src="/m.png" width="1" height="1"></a>',
      '<nav><a href="/"><img src="/house.png" width="16" height="16" alt="Home"></a></nav>',
    ]) {
      expect(logo(body).value, body).toBeNull();
    }
    // A slim wordmark is not an icon.
    expect(logo('<a href="/"><img src="/wordmark.png" width="120" height="20"></a>').value).toBe(
      `${ORIGIN}/wordmark.png`,
    );
  });

  it('is the first one: the banner comes before a sidebar', () => {
    expect(
      logo(
        '<div><a href="/"><img src="/banner.png"></a></div><aside><a href="/"><img src="/side.png"></a></aside>',
      ).value,
    ).toBe(`${ORIGIN}/banner.png`);
  });
});
