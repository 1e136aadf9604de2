import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeHtml } from '../../shared/autoconfigure/decode.ts';
import { type BrandSuggestions, extractSuggestions } from '../../shared/autoconfigure/extract.ts';
import { parsePage } from '../../shared/autoconfigure/html-document.ts';
import { autoConfigure } from '../../shared/autoconfigure/index.ts';
import { restoreSettings, useSettings } from '../support/settings.ts';
import { type FixtureServer, file, REAL_SITE_FIXTURES, startFixtureServer } from './fixture-server.ts';
import { expectValidBrandInput } from './valid-suggestions.ts';

/** The saved real pages (test/fixtures/real-sites/README.md: origin, licence, encoding), read with their real page URLs. */
const REAL_SITES = {
  theverge: 'https://www.theverge.com/',
  learnnode: 'https://learnnode.com',
  chowhanandsons: 'https://www.chowhanandsons.com/',
  microlink: 'https://microlink.io',
  github: 'https://github.com/microlinkhq/mql',
  'rakuten-euc-jp': 'https://www.rakuten.co.jp/',
} as const;

type Site = keyof typeof REAL_SITES;

function bytesOf(site: Site): Buffer {
  return readFileSync(path.join(REAL_SITE_FIXTURES, `${site}.html`));
}

function suggestionsFor(site: Site, pageUrl: string = REAL_SITES[site]): BrandSuggestions {
  return extractSuggestions(parsePage(decodeHtml(bytesOf(site), 'text/html'), pageUrl));
}

/** git's blob id of a file's bytes: the same as in the repository the page was copied from. */
function gitBlobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

describe('real-site fixtures', () => {
  const readme = readFileSync(path.join(REAL_SITE_FIXTURES, 'README.md'), 'utf8');

  it.each(Object.keys(REAL_SITES) as Site[])('%s.html is byte for byte the copy its README names', (site) => {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${site}.html\``));
    const recorded = row?.match(/`([0-9a-f]{40})`/)?.[1];

    expect(recorded).toMatch(/^[0-9a-f]{40}$/);
    expect(gitBlobId(bytesOf(site))).toBe(recorded);
  });
});

describe('real sites, extracted with their real URLs', () => {
  it('theverge.html', () => {
    const suggestions = suggestionsFor('theverge');

    expect(suggestions).toMatchObject({
      website_url: 'https://www.theverge.com/',
      name: 'The Verge',
      // theme-color is present but empty; msapplication-TileColor is next.
      primary_color: '#393092',
      secondary_color: null,
      // Inline SVG logos only: no horizontal logo URL.
      logo_image: null,
      logo_square_image: 'https://cdn.vox-cdn.com/uploads/chorus_asset/file/7395359/ios-icon.0.png',
      header_image: null,
      footer_image: null,
      social_share_image:
        'https://cdn.vox-cdn.com/uploads/chorus_asset/file/9672633/VergeOG.0_1200x627.0.png',
      // twitter:site "verge" and the header link agree; /youtube and /instagram are pages on theverge.com.
      social_links: { facebook: 'https://www.facebook.com/verge', x: 'https://twitter.com/verge' },
    });
    expect(suggestions.short_description).toMatch(
      /^The Verge was founded in 2011 in partnership with Vox Media, and covers the intersection of technology, science, art, and culture\. /,
    );
    expectValidBrandInput(suggestions);
  });

  it('learnnode.html', () => {
    expect(suggestionsFor('learnnode')).toEqual({
      website_url: 'https://learnnode.com/',
      name: 'Learn Node',
      short_description:
        'A premium training course to learn to build apps with Node.js, Express, MongoDB, and friends.',
      primary_color: null,
      secondary_color: null,
      logo_image: null,
      logo_square_image: 'https://learnnode.com/images/NODE/favicon.png',
      header_image: null,
      footer_image: null,
      social_share_image: 'https://learnnode.com/images/NODE/node-facebook-share.jpg',
      // @wesbos (twitter:site) is the author, share buttons and embedded tweets are not profiles.
      social_links: null,
    });
  });

  it('chowhanandsons.html', () => {
    expect(suggestionsFor('chowhanandsons')).toEqual({
      website_url: 'https://www.chowhanandsons.com/',
      name: 'Chowhan and Sons',
      short_description:
        'Call Now: 9029469931 | Complete Waterproofing Solution in Mumbai-With 26 years of expertise, Chowhan and Sons brings 50 years of collective experience to waterproofing projects across Mumbai.',
      primary_color: null,
      secondary_color: null,
      logo_image: 'https://www.chowhanandsons.com/wp-content/uploads/2024/06/logo.png',
      logo_square_image: 'https://www.chowhanandsons.com/wp-content/uploads/2024/06/fevicon.png',
      header_image: null,
      footer_image: null,
      social_share_image: null,
      // From div.before-footer; not the placeholder Instagram "#" link, not the watch?v= videos.
      social_links: {
        facebook: 'https://www.facebook.com/chowhanandsons1980',
        youtube: 'https://www.youtube.com/channel/UCs8x3vNH7kVLcXPlnuWRZNw',
      },
    });
  });

  it('microlink.html', () => {
    expect(suggestionsFor('microlink')).toEqual({
      website_url: 'https://microlink.io/',
      name: 'Microlink',
      short_description:
        'Extract structured data from any website. Enter an URL, receive information. Get relevant information from any link & easily create beautiful previews.',
      primary_color: null,
      secondary_color: null,
      logo_image: 'https://microlink.io/logo-trim.png',
      // Only /favicon.ico, which is neither PNG nor SVG.
      logo_square_image: null,
      header_image: null,
      footer_image: null,
      social_share_image: 'https://microlink.io/preview.jpg',
      // twitter:site (@microlinkio) outranks the footer's twitter.com/microlinkhq; the footer adds GitHub,
      // and its issue-form links are not profiles.
      social_links: { x: 'https://twitter.com/microlinkio', github: 'https://github.com/microlinkhq' },
    });
  });

  it('github.html', () => {
    const suggestions = suggestionsFor('github');

    expect(suggestions).toMatchObject({
      website_url: 'https://github.com/',
      name: 'GitHub',
      primary_color: '#1e2327',
      // The mask-icon colour; both are achromatic, so page order decides.
      secondary_color: '#000000',
      logo_image: null,
      logo_square_image: 'https://github.githubassets.com/favicons/favicon-dark.svg',
      social_share_image:
        'https://opengraph.githubassets.com/0d2af1011fc53210b9778b88a31fa2f993cc70fad0b68c8dfa4553cfc124f7dc/microlinkhq/mql',
      // GitHub's own account; the README's Microlink profiles (article.markdown-body) are not GitHub's.
      social_links: { x: 'https://twitter.com/github' },
    });
    // og:description is escaped twice in the source: one decoding leaves a literal "&amp;".
    expect(suggestions.short_description).toMatch(/^Microlink Query Language\. .* browsers &amp; Deno\./);
    expectValidBrandInput(suggestions);
  });

  it('rakuten-euc-jp.html', () => {
    expect(suggestionsFor('rakuten-euc-jp')).toEqual({
      website_url: 'https://www.rakuten.co.jp/',
      name: '楽天市場',
      short_description:
        '楽天市場はインターネット通販が楽しめる総合ショッピングモール。楽天スーパーポイントがどんどん貯まる！使える！毎日お得なクーポンも。あす楽利用で翌日にお届け。食品から家電、ファッション、ベビー用品、コスメまで、充実の品揃え。',
      primary_color: null,
      secondary_color: null,
      logo_image: null,
      logo_square_image: null,
      header_image: null,
      footer_image: null,
      social_share_image: 'https://r.r10s.jp/com/inc/home/20080930/spt/common/img/20180702_ogp.png',
      social_links: { x: 'https://twitter.com/RakutenJP' },
    });
  });

  it.each(Object.keys(REAL_SITES) as Site[])('%s: every suggestion is valid create-brand input', (site) => {
    expectValidBrandInput(suggestionsFor(site));
  });
});

describe('real sites, served by the fixture server', () => {
  let server: FixtureServer;

  beforeAll(async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    const routes = Object.fromEntries(
      Object.keys(REAL_SITES).map((site) => [
        `/${site}/`,
        file(REAL_SITE_FIXTURES, `${site}.html`, 'text/html'),
      ]),
    );
    server = await startFixtureServer(routes);
  });

  afterAll(async () => {
    await server.close();
    restoreSettings();
  });

  it.each(Object.keys(REAL_SITES) as Site[])(
    '%s: autoConfigure gives what extraction gives for the fixture URL',
    async (site) => {
      const pageUrl = server.url(`/${site}/`);
      const suggestions = await autoConfigure(pageUrl);

      expect(suggestions).toEqual(suggestionsFor(site, pageUrl));
      expect(suggestions.website_url).toBe(`${server.origin}/`);
      expectValidBrandInput(suggestions);
    },
  );

  it('resolves relative URLs against the fixture server', async () => {
    const suggestions = await autoConfigure(server.url('/learnnode/'));

    expect(suggestions.name).toBe('Learn Node');
    expect(suggestions.logo_square_image).toBe(server.url('/images/NODE/favicon.png'));
  });
});
