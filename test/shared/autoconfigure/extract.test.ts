import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseColor, pickBrandColors } from '../../../shared/autoconfigure/colors.ts';
import {
  type BrandSuggestions,
  extractSuggestions,
  manifestUrlOf,
} from '../../../shared/autoconfigure/extract.ts';
import { parsePage } from '../../../shared/autoconfigure/html-document.ts';
import { candidate } from '../../../shared/autoconfigure/provenance.ts';
import { profileUrl, xHandleUrl } from '../../../shared/autoconfigure/social-profiles.ts';
import { readWebManifest } from '../../../shared/autoconfigure/web-manifest.ts';
import { expectValidBrandInput } from './valid-suggestions.ts';

const PAGE_URL = 'https://www.acme-widgets.co.uk/shop/';

function extract(head: string, body = '', pageUrl = PAGE_URL): BrandSuggestions {
  const suggestions = extractSuggestions(
    parsePage(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`, pageUrl),
  );
  expectValidBrandInput(suggestions);
  return suggestions;
}

describe('colours', () => {
  it.each([
    ['#ABC', '#aabbcc'],
    ['#AaBbCc', '#aabbcc'],
    ['#aabbcc80', '#aabbcc'],
    ['#abcd', '#aabbcc'],
    [' rgb(255, 0, 0) ', '#ff0000'],
    ['rgba(0,128,255,0.5)', '#0080ff'],
    ['rgb(100% 0% 50%)', '#ff0080'],
    ['Navy', '#000080'],
    ['rebeccapurple', '#663399'],
  ])('normalises %s to %s', (input, expected) => {
    expect(normaliseColor(input)).toBe(expected);
  });

  it.each(['transparent', 'var(--brand)', '#abcde', 'rgb(1, 2)', 'hsl(10 20% 30%)', ''])(
    'rejects %j',
    (input) => {
      expect(normaliseColor(input)).toBeNull();
    },
  );

  it('ranks chromatic colours before black, white and greys, and keeps the secondary distinct', () => {
    const pick = (...colors: string[]) => {
      const { primary, secondary } = pickBrandColors(colors.map((color) => candidate(color, 'theme-color')));
      return { primary: primary?.value ?? null, secondary: secondary?.value ?? null };
    };
    expect(pick('#ffffff', '#FFF', '#333333', '#e4572e', '#e4572e', '#0a7d3b')).toEqual({
      primary: '#e4572e',
      secondary: '#0a7d3b',
    });
    expect(pick('#ffffff', 'white', '#000000')).toEqual({ primary: '#ffffff', secondary: '#000000' });
    expect(pick('nonsense')).toEqual({ primary: null, secondary: null });
  });

  it('keeps the source of the first candidate of each colour', () => {
    const colors = pickBrandColors([
      candidate('#FFF', 'theme-color'),
      candidate('#ffffff', 'msapplication-TileColor'),
      candidate('#0a7d3b', 'mask-icon'),
    ]);
    expect(colors.primary).toEqual({ value: '#0a7d3b', source: 'mask-icon', confidence: 'medium' });
    expect(colors.secondary).toEqual({ value: '#ffffff', source: 'theme-color', confidence: 'high' });
  });

  it('prefers theme-color without media or for light, then other media, and never takes the dark one', () => {
    const suggestions = extract(
      '<meta name="theme-color" media="(prefers-color-scheme: dark)" content="#101820">' +
        '<meta name="theme-color" media="(max-width: 600px)" content="#0a7d3b">' +
        '<meta name="theme-color" content="#f2aa4c">',
    );
    expect(suggestions.primary_color).toBe('#f2aa4c');
    expect(suggestions.secondary_color).toBe('#0a7d3b');
  });

  it('takes theme-color without media or for the light scheme, never the dark one', () => {
    const suggestions = extract(
      '<meta name="theme-color" media="(prefers-color-scheme: dark)" content="#101820">' +
        '<meta name="theme-color" media="(prefers-color-scheme: light)" content="#f2aa4c">',
    );
    expect(suggestions.primary_color).toBe('#f2aa4c');
    expect(suggestions.secondary_color).toBeNull();
  });

  it('follows the priority theme-color, msapplication-TileColor, mask-icon, manifest', () => {
    const manifest = readWebManifest('{"theme_color":"#445566","background_color":"#778899"}', PAGE_URL);
    const page = parsePage(
      '<link rel="mask-icon" href="/m.svg" color="#0000ff"><meta name="msapplication-TileColor" content="#00ff00">',
      PAGE_URL,
    );
    expect(extractSuggestions(page, manifest)).toMatchObject({
      primary_color: '#00ff00',
      secondary_color: '#0000ff',
    });
  });
});

describe('name', () => {
  it('of names given once, prefers og:site_name, then application-name, then JSON-LD, then the manifest, then the title', () => {
    const jsonLd =
      '<script type="application/ld+json">{"@type":"Organization","name":"Acme (JSON-LD)"}</script>';
    const manifest = readWebManifest('{"name":"Acme (manifest)"}', PAGE_URL);
    // A whole title stands as the name when it names the domain (site-name.test.ts: a slogan does not).
    const page = (head: string) =>
      parsePage(`<head>${head}<title>Acme Widgets (title)</title></head>`, PAGE_URL);

    expect(
      extract('<meta property="og:site_name" content="Acme (og)"><meta name="application-name" content="x">')
        .name,
    ).toBe('Acme (og)');
    expect(extract(`<meta name="application-name" content="Acme (app)">${jsonLd}`).name).toBe('Acme (app)');
    expect(extractSuggestions(page(jsonLd), manifest).name).toBe('Acme (JSON-LD)');
    expect(extractSuggestions(page(''), manifest).name).toBe('Acme (manifest)');
    // The words of the unsplit title that spell the domain, not its "(title)".
    expect(extractSuggestions(page('')).name).toBe('Acme Widgets');
  });

  it.each([
    ['Home | Acme Widgets', 'Acme Widgets'],
    ['Acme Widgets - Widgets for every home', 'Acme Widgets'],
    ['Spring sale — Acme Widgets', 'Acme Widgets'],
    ['Welcome :: Widget World', 'Widget World'],
    ['Acme Widgets', 'Acme Widgets'],
  ])('cleans the title %j to %j', (title, name) => {
    expect(extract(`<title>${title}</title>`).name).toBe(name);
  });

  it.each([
    ['Picadillo Recipe - Great British Chefs', 'https://www.greatbritishchefs.com/x', 'Great British Chefs'],
    ['Great British Chefs | Picadillo Recipe', 'https://www.greatbritishchefs.com/x', 'Great British Chefs'],
    ['Spring menu - Great British Chefs', 'https://www.gbchefs.com/', 'Great British Chefs'],
    ['Opinion | The New York Times', 'https://www.nyt.com/', 'The New York Times'],
    ['A long headline about storms in the north | Ledger', 'https://news.example/', 'Ledger'],
    ['Ledger | A long headline about storms in the north', 'https://news.example/', 'Ledger'],
    ['Home | Welcome to our new site', 'https://news.example/', 'Welcome to our new site'],
  ])('picks the site name from the title %j on %s', (title, pageUrl, name) => {
    expect(extract(`<title>${title}</title>`, '', pageUrl).name).toBe(name);
  });

  it('falls back to the domain when every title segment is a generic page name', () => {
    expect(extract('<title>Home | Welcome</title>').name).toBe('Acme-widgets');
  });

  it('reads the title from the head, not from an SVG in the body', () => {
    expect(extract('', '<svg><title>Close icon</title></svg>').name).toBe('Acme-widgets');
  });

  it('falls back to the registrable domain label, and to null for an IP address', () => {
    expect(extract('').name).toBe('Acme-widgets');
    expect(extract('', '', 'http://93.184.216.34/').name).toBeNull();
  });

  it.each([
    ['https://www.aozora.gr.jp/cards/index.html', 'Aozora'],
    ['https://www.city.example.lg.jp/', 'Example'],
    ['https://www.cdmx.gob.mx/', 'Cdmx'],
    ['https://www.madrid.es/', 'Madrid'],
    ['https://news.chinatimes.com/', 'Chinatimes'],
  ])('takes the label registered under a country domain on %s', (pageUrl, name) => {
    expect(extract('', '', pageUrl).name).toBe(name);
  });

  it('collapses whitespace and decodes entities once', () => {
    expect(extract('<title>\n  Fish &amp;amp;\n  Chips | Home </title>').name).toBe('Fish &amp; Chips');
  });
});

describe('description', () => {
  it('prefers og:description, then meta description, then twitter:description, then JSON-LD', () => {
    const jsonLd =
      '<script type="application/ld+json">{"@type":"WebSite","description":"From JSON-LD"}</script>';
    expect(
      extract(`<meta name="description" content="Meta"><meta property="og:description" content="OG">`)
        .short_description,
    ).toBe('OG');
    expect(
      extract(`<meta name="twitter:description" content="Twitter"><meta name="description" content="Meta">`)
        .short_description,
    ).toBe('Meta');
    expect(extract(`${jsonLd}<meta name="twitter:description" content="Twitter">`).short_description).toBe(
      'Twitter',
    );
    expect(extract(jsonLd).short_description).toBe('From JSON-LD');
  });

  it('cuts a long description to 255 characters at a word boundary', () => {
    const words = Array.from({ length: 80 }, (_, index) => `word${index}`).join(' ');
    const description = extract(`<meta name="description" content="${words}">`).short_description ?? '';

    expect(description.length).toBeLessThanOrEqual(255);
    expect(words.startsWith(description)).toBe(true);
    expect(words.charAt(description.length)).toBe(' ');
  });

  it('cuts text without spaces hard, without splitting a surrogate pair', () => {
    const emoji = '😀'.repeat(200);
    const name = extract(`<meta property="og:site_name" content="${emoji}">`).name ?? '';
    expect(name.length).toBeLessThanOrEqual(255);
    expect(name).toBe('😀'.repeat(127));
  });
});

describe('images', () => {
  it('takes the og:image family before twitter:image, and never a body image', () => {
    expect(extract('', '<img src="/hero.jpg">').social_share_image).toBeNull();
    expect(
      extract(
        '<meta name="twitter:image" content="/t.png"><meta property="og:image:secure_url" content="/s.png">',
      ).social_share_image,
    ).toBe('https://www.acme-widgets.co.uk/s.png');
    expect(extract('<meta name="twitter:image:src" content="//cdn.example/t.png">').social_share_image).toBe(
      'https://cdn.example/t.png',
    );
  });

  it('skips URLs create-brand would reject (too long, not http) and takes the next candidate', () => {
    const tooLong = `https://cdn.example/${'a'.repeat(250)}.png`;
    const suggestions = extract(
      `<meta property="og:image" content="${tooLong}"><meta property="og:image:url" content="data:image/png;base64,AAAA">` +
        '<meta name="twitter:image" content="javascript:alert(1)"><meta name="twitter:image:src" content="/ok.png">',
    );
    expect(suggestions.social_share_image).toBe('https://www.acme-widgets.co.uk/ok.png');
  });

  it('picks the largest apple-touch-icon, then the manifest, then a square JSON-LD logo, then PNG/SVG icons', () => {
    const icons =
      '<link rel="icon" type="image/png" sizes="512x512" href="/icon-512.png">' +
      '<link rel="apple-touch-icon" sizes="120x120" href="/touch-120.png">' +
      '<link rel="apple-touch-icon-precomposed" sizes="180x180" href="/touch-180.png">';
    expect(extract(icons).logo_square_image).toBe('https://www.acme-widgets.co.uk/touch-180.png');

    const manifest = readWebManifest(
      '{"icons":[{"src":"a.png","sizes":"48x48"},{"src":"b.png","sizes":"96x96 256x256"},{"src":"c.png"}]}',
      'https://static.acme.example/app/manifest.json',
    );
    expect(
      extractSuggestions(parsePage('<link rel="icon" href="/x.png">', PAGE_URL), manifest).logo_square_image,
    ).toBe('https://static.acme.example/app/b.png');
    // Only icons for any context: a monochrome silhouette or a maskable (padded) icon is not the logo as drawn.
    const purposes = readWebManifest(
      '{"icons":[{"src":"mono.png","sizes":"512x512","purpose":"monochrome"},' +
        '{"src":"mask.png","sizes":"384x384","purpose":"maskable"},' +
        '{"src":"both.png","sizes":"256x256","purpose":"maskable any"},{"src":"plain.png","sizes":"192x192"}]}',
      'https://static.acme.example/app/manifest.json',
    );
    expect(extractSuggestions(parsePage('', PAGE_URL), purposes).logo_square_image).toBe(
      'https://static.acme.example/app/both.png',
    );

    const squareLogo =
      '<script type="application/ld+json">{"@type":"Corporation","logo":{"@type":"ImageObject","url":"/logo-sq.png","width":"400","height":"400px"}}</script>';
    expect(extract(`${squareLogo}<link rel="icon" href="/icon.svg">`).logo_square_image).toBe(
      'https://www.acme-widgets.co.uk/logo-sq.png',
    );
    expect(
      extract('<link rel="icon" href="/favicon.ico"><link rel="shortcut icon" href="/i.png">')
        .logo_square_image,
    ).toBe('https://www.acme-widgets.co.uk/i.png');
    expect(extract('<link rel="icon" href="/favicon.ico">').logo_square_image).toBeNull();
  });

  it('finds a horizontal logo in JSON-LD, og:logo, itemprop=logo or the header, in that order', () => {
    const header = '<header><a id="logo" href="/"><img src="/header-logo.png" alt="Acme"></a></header>';
    const itemprop = '<div itemscope><img itemprop="logo" src="/itemprop-logo.png"></div>';
    expect(extract('', header).logo_image).toBe('https://www.acme-widgets.co.uk/header-logo.png');
    expect(extract('', header + itemprop).logo_image).toBe(
      'https://www.acme-widgets.co.uk/itemprop-logo.png',
    );
    expect(extract('<meta property="og:logo" content="/og-logo.png">', header + itemprop).logo_image).toBe(
      'https://www.acme-widgets.co.uk/og-logo.png',
    );
    expect(
      extract(
        '<script type="application/ld+json">{"@type":"Organization","logo":"https://cdn.example/logo.svg"}</script>',
        header,
      ).logo_image,
    ).toBe('https://cdn.example/logo.svg');
  });

  it('does not take a logo image from the page content or an unrelated header image', () => {
    expect(extract('', '<main><img class="logo" src="/partner-logo.png"></main>').logo_image).toBeNull();
    expect(extract('', '<header><img src="/banner.jpg" alt="Summer sale"></header>').logo_image).toBeNull();
  });

  it('never suggests header or footer banners', () => {
    const suggestions = extract(
      '',
      '<header><img src="/banner.jpg"></header><footer><img src="/footer.jpg"></footer>',
    );
    expect(suggestions.header_image).toBeNull();
    expect(suggestions.footer_image).toBeNull();
  });

  it('resolves against <base href> and finds the manifest link', () => {
    const page = parsePage(
      '<head><base href="https://static.acme.example/v2/"><link rel="manifest" href="site.webmanifest"></head>',
      PAGE_URL,
    );
    expect(manifestUrlOf(page)).toBe('https://static.acme.example/v2/site.webmanifest');
  });
});

describe('social links', () => {
  it.each([
    ['https://twitter.com/acme', 'https://x.com/acme'],
    ['https://www.twitter.com/Acme_Widgets?lang=en', 'https://x.com/Acme_Widgets'],
    ['https://m.twitter.com/acme/', 'https://x.com/acme'],
    ['http://x.com/acme#top', 'https://x.com/acme'],
    ['https://www.youtube.com/c/Acme?sub_confirmation=1', 'https://www.youtube.com/c/Acme'],
  ])('emits %s as %s', (url, expected) => {
    expect(profileUrl(new URL(url))).toBe(expected);
  });

  it.each([
    'https://x.com/acme',
    'https://www.facebook.com/acme.widgets/',
    'https://m.facebook.com/pages/Acme/123456',
    'https://www.facebook.com/profile.php?id=1000123',
    'https://www.instagram.com/acme_widgets/',
    'https://www.linkedin.com/company/acme',
    'https://www.linkedin.com/in/jane-doe',
    'https://www.youtube.com/@acme',
    'https://www.youtube.com/channel/UC123',
    'https://www.youtube.com/c/Acme',
    'https://www.youtube.com/user/acme',
    'https://www.youtube.com/AcmeWidgets',
    'https://m.youtube.com/@acme',
    'https://www.tiktok.com/@acme',
    'https://www.pinterest.com/acme/',
    'https://www.pinterest.co.uk/acme/',
    'https://github.com/acme',
    'https://www.threads.net/@acme',
  ])('accepts the profile %s', (url) => {
    expect(profileUrl(new URL(url))).toBe(url);
  });

  it.each([
    'https://twitter.com/share',
    'https://twitter.com/intent/tweet?text=hi',
    'https://twitter.com/acme/status/123',
    'https://twitter.com/hashtag/acme',
    'https://twitter.com/home',
    'https://www.facebook.com/sharer/sharer.php?u=x',
    'https://www.facebook.com/sharer.php?u=x',
    'https://www.facebook.com/dialog/share',
    'https://www.facebook.com/acme/posts/123',
    'https://www.facebook.com/pages',
    'https://www.instagram.com/p/Cabc/',
    'https://www.instagram.com/reel/Cabc/',
    'https://www.linkedin.com/shareArticle?mini=true',
    'https://www.linkedin.com/feed/',
    'https://www.youtube.com/watch?v=abc',
    'https://www.youtube.com/shorts/abc',
    'https://www.youtube.com/embed/abc',
    'https://www.youtube.com/playlist?list=PL123',
    'https://www.youtube.com/results?search_query=acme',
    'https://www.youtube.com/channel/UC123/videos',
    'https://www.youtube.com/@acme/videos',
    'https://youtu.be/abc',
    'https://music.youtube.com/channel/UC123',
    'https://www.pinterest.com/pin/create/button/',
    'https://github.com/acme/widgets',
    'https://github.com/acme/widgets/issues/new',
    'https://github.com/about',
    'https://twitter.com/',
    'https://twitter.com.evil.example/acme',
    'https://eviltwitter.com/acme',
    'https://api.twitter.com/acme',
    'https://mobile.twitter.com/acme',
    'https://example.com/acme',
    // Look-alikes, link aggregators, app stores and other networks' hosts are not a known network's own host.
    'https://acme.github.io/',
    'https://acme.github.io/widgets/',
    'https://linktr.ee/acme',
    'https://apps.apple.com/app/acme/id123',
    'https://play.google.com/store/apps/details?id=com.acme',
    'https://mastodon.social/@acme',
    'https://en.wikipedia.org/wiki/Acme',
  ])('rejects %s', (url) => {
    expect(profileUrl(new URL(url))).toBeNull();
  });

  // Regional hosts: the network's own, in the form it uses (a locale on Facebook, a country's code on LinkedIn and
  // Pinterest), given on its www. host.
  it.each([
    ['https://de-de.facebook.com/acme/', 'https://www.facebook.com/acme/'],
    ['https://pt-br.facebook.com/acme.widgets', 'https://www.facebook.com/acme.widgets'],
    [
      'https://es-la.facebook.com/profile.php?id=1000123&ref=page',
      'https://www.facebook.com/profile.php?id=1000123',
    ],
    ['https://de.linkedin.com/company/acme', 'https://www.linkedin.com/company/acme'],
    ['https://fr.linkedin.com/in/jane-doe', 'https://www.linkedin.com/in/jane-doe'],
    ['https://jp.linkedin.com/company/acme/', 'https://www.linkedin.com/company/acme/'],
    ['https://uk.linkedin.com/school/acme-academy', 'https://www.linkedin.com/school/acme-academy'],
    ['https://es.pinterest.com/acme/', 'https://www.pinterest.com/acme/'],
    ['http://br.pinterest.com/acme/?ref=footer', 'http://www.pinterest.com/acme/'],
  ])('gives the profile on the regional host %s as %s', (url, expected) => {
    expect(profileUrl(new URL(url))).toBe(expected);
  });

  it.each([
    // Look-alikes: another registrable domain that spells the network.
    'https://facebook.com.evil.example/acme',
    'https://evil-facebook.com/acme',
    'https://de-de.facebook.com.evil.example/acme',
    'https://de-de.evil-facebook.com/acme',
    'https://linkedin.com.evil.example/company/acme',
    'https://de.linkedin.com.evil.example/company/acme',
    'https://evil-linkedin.com/company/acme',
    'https://es.pinterest.com.evil.example/acme/',
    'https://es.evilpinterest.com/acme/',
    // Labels that are not the network's regions, or not in its form.
    'https://ct.pinterest.com/v3/',
    'https://xx.linkedin.com/company/acme',
    'https://de-de.linkedin.com/company/acme',
    'https://facebook-de.facebook.com/acme',
    'https://de.de-de.facebook.com/acme',
    // Networks that have no regional hosts, and regional hosts' pages that are no profile.
    'https://de.instagram.com/acme',
    'https://de.twitter.com/acme',
    'https://de-de.facebook.com/sharer/sharer.php?u=x',
    'https://de.linkedin.com/shareArticle?mini=true',
    'https://es.pinterest.com/pin/123/',
  ])('refuses %s', (url) => {
    expect(profileUrl(new URL(url))).toBeNull();
  });

  it('gives every country host of LinkedIn and Pinterest as the www. profile, and refuses them under another domain', () => {
    const countryCode = fc.constantFrom(
      'de',
      'fr',
      'es',
      'pt',
      'jp',
      'cn',
      'br',
      'mx',
      'ch',
      'uk',
      'in',
      'ae',
    );
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
    const lookAlike = fc.stringMatching(/^[a-z]{1,10}$/);
    fc.assert(
      fc.property(countryCode, name, lookAlike, (country, company, other) => {
        expect(profileUrl(new URL(`https://${country}.linkedin.com/company/${company}`))).toBe(
          `https://www.linkedin.com/company/${company}`,
        );
        expect(profileUrl(new URL(`https://${country}.pinterest.com/${company}/`))).toBe(
          `https://www.pinterest.com/${company}/`,
        );
        expect(
          profileUrl(new URL(`https://${country}.linkedin.com.${other}.example/company/${company}`)),
        ).toBeNull();
        expect(profileUrl(new URL(`https://${country}.${other}-linkedin.com/company/${company}`))).toBeNull();
      }),
    );
  });

  it('takes a regional profile from the page as any other, on its www. host', () => {
    const body =
      '<footer><a href="https://de-de.facebook.com/acme/">f</a><a href="https://de.linkedin.com/company/acme">l</a>' +
      '<a href="https://facebook.com.evil.example/acme">x</a></footer>';
    expect(extract('', body).social_links).toEqual({
      facebook: 'https://www.facebook.com/acme/',
      linkedin: 'https://www.linkedin.com/company/acme',
    });
  });

  it('turns a twitter:site handle into the x.com profile', () => {
    expect(xHandleUrl('@Acme_Widgets')).toBe('https://x.com/Acme_Widgets');
    expect(xHandleUrl(' acme ')).toBe('https://x.com/acme');
    expect(xHandleUrl('https://twitter.com/acme')).toBeNull();
    expect(xHandleUrl('@way_too_long_handle_here')).toBeNull();
    expect(xHandleUrl('@')).toBeNull();
  });

  it('takes twitter:site as the X profile whatever the handle, and twitter:creator only when nothing else gives X', () => {
    expect(extract('<meta name="twitter:site" content="@some_agency">').social_links).toEqual({
      x: 'https://x.com/some_agency',
    });
    expect(
      extract('<meta name="twitter:creator" content="@author"><meta name="twitter:site" content="@acme">')
        .social_links,
    ).toEqual({ x: 'https://x.com/acme' });
    expect(
      extract(
        '<meta name="twitter:creator" content="@author">',
        '<footer><a href="https://twitter.com/acme">t</a></footer>',
      ).social_links,
    ).toEqual({ x: 'https://x.com/acme' });
    expect(extract('<meta name="twitter:creator" content="@author">').social_links).toEqual({
      x: 'https://x.com/author',
    });
    expect(extract('<meta name="twitter:site" content="not a handle!">').social_links).toBeNull();
  });

  it("files JSON-LD sameAs links only on a network's own hosts with profile paths", () => {
    const sameAs = [
      'https://acme.github.io/',
      'https://linktr.ee/acme',
      'https://apps.apple.com/app/acme/id123',
      'https://www.youtube.com/watch?v=abc',
      'https://twitter.com/acme/status/1',
      'https://www.youtube.com/user/acmewidgets',
      'https://twitter.com/AcmeWidgets',
    ];
    const jsonLd = `<script type="application/ld+json">${JSON.stringify({ '@type': 'Organization', sameAs })}</script>`;
    expect(extract(jsonLd).social_links).toEqual({
      youtube: 'https://www.youtube.com/user/acmewidgets',
      x: 'https://x.com/AcmeWidgets',
    });
  });

  it('ranks JSON-LD sameAs, twitter:site, rel=me, then header/footer links; one per network', () => {
    const suggestions = extract(
      '<meta name="twitter:site" content="@acme_widgets">' +
        '<link rel="me" href="https://twitter.com/acme_relme">' +
        '<script type="application/ld+json">{"@type":"Organization","sameAs":"https://www.facebook.com/acme.sameas"}</script>',
      '<footer><a href="https://www.facebook.com/acme.footer">f</a><a href="https://twitter.com/acme_footer">t</a>' +
        '<a href="https://github.com/acme">g</a></footer>',
    );
    expect(suggestions.social_links).toEqual({
      facebook: 'https://www.facebook.com/acme.sameas',
      x: 'https://x.com/acme_widgets',
      github: 'https://github.com/acme',
    });
  });

  it('reads links only from site chrome: header, footer, nav and elements whose class or id says so', () => {
    const body =
      '<div id="footer-outer"><a href="https://www.instagram.com/acme">i</a></div>' +
      '<div class="c-global-header__social"><a href="https://www.tiktok.com/@acme">t</a></div>' +
      '<nav><a href="https://www.pinterest.com/acme/">p</a></nav>' +
      '<main><a href="https://www.linkedin.com/company/acme">l</a></main>' +
      '<div class="subheadings"><a href="https://github.com/acme">g</a></div>';
    expect(extract('', body).social_links).toEqual({
      instagram: 'https://www.instagram.com/acme',
      tiktok: 'https://www.tiktok.com/@acme',
      pinterest: 'https://www.pinterest.com/acme/',
    });
  });

  it('ignores quoted, article and hidden content even inside a footer', () => {
    const body =
      '<footer><blockquote><a href="https://twitter.com/someone">@someone</a></blockquote>' +
      '<article><a href="https://github.com/contributor">c</a></article>' +
      '<div hidden><a href="https://www.facebook.com/hidden">h</a></div></footer>';
    expect(extract('', body).social_links).toBeNull();
  });

  it('ignores links back to the site itself and placeholders', () => {
    const body =
      '<footer><a href="#">x</a><a href="https://www.acme-widgets.co.uk/#">i</a><a href="/instagram">i</a></footer>';
    expect(extract('', body).social_links).toBeNull();
  });
});
