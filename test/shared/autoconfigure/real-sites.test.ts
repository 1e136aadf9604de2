import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeHtml } from '../../../shared/autoconfigure/decode.ts';
import {
  type AutoConfiguration,
  autoConfiguration,
  type BrandSuggestions,
} from '../../../shared/autoconfigure/extract.ts';
import { parsePage } from '../../../shared/autoconfigure/html-document.ts';
import { autoConfigure } from '../../../shared/autoconfigure/index.ts';
import { domainLabelOf } from '../../../shared/autoconfigure/site-domain.ts';
import { chooseSiteName, titleNames, titleOf } from '../../../shared/autoconfigure/title-name.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';
import { type FixtureServer, file, REAL_SITE_FIXTURES, startFixtureServer } from './fixture-server.ts';
import { expectValidAutoConfiguration, expectValidBrandInput } from './valid-suggestions.ts';

/** The saved real pages (test/fixtures/real-sites/README.md: origin, licence, encoding), read with their real page URLs. */
const REAL_SITES = {
  theverge: 'https://www.theverge.com/',
  learnnode: 'https://learnnode.com',
  chowhanandsons: 'https://www.chowhanandsons.com/',
  microlink: 'https://microlink.io',
  github: 'https://github.com/microlinkhq/mql',
  'rakuten-euc-jp': 'https://www.rakuten.co.jp/',
  zeitmagazin:
    'https://www.zeit.de/zeit-magazin/wochenmarkt/2021-08/kohlrabi-fenchel-carpaccio-fior-di-latte-rezept',
  jow: 'https://jow.fr/recipes/tartine-a-la-provencale-et-oeuf-mollet-8xrr5dkz6fc002uv0ihv',
  'bake-eat-repeat': 'https://bake-eat-repeat.com/hawaiian-sliders-recipe/',
  alltommat: 'https://alltommat.expressen.se/recept/briochehamburgerbrod/',
  greatbritishchefs: 'https://www.greatbritishchefs.com/recipes/picadillo-recipe',
  'rp-pl-windows-1250':
    'http://www.rp.pl/Lekarze-i-pielegniarki/311209901-Lekarze-orzecznicy-ZUS-nie-chca-ujawniac-majatkow-i-groza-porzuceniem-pracy.html',
  // The source repository does not record this page's URL; any page on the site reads the same.
  'aozora-shift-jis': 'https://www.aozora.gr.jp/cards/000000/files/51242_54045.html',
  'newyorker-home': 'http://www.newyorker.com/',
  'daringfireball-home': 'https://daringfireball.net/',
  // Names in many languages, profiles on networks' regional hosts.
  'infopark-home-iso-8859-1': 'http://www.infopark.de/',
  'virk-dk-home-iso-8859-1': 'http://www.virk.dk/',
  'orange-fr-home-iso-8859-1': 'http://www.orange.fr/',
  'chinatimes-home-big5': 'http://news.chinatimes.com/',
  'cookpad-ja': 'https://cookpad.com/recipe/4610651',
  'misya-it': 'https://www.misya.info/ricetta/tortino-cuore-caldo.htm',
  'albertheijn-allerhande': 'https://www.ah.nl/allerhande/recept/R-R1198767/rijkgevulde-vegan-pastasalade',
  'cybercook-br': 'https://cybercook.com.br/receitas/aves/strogonoff-de-frango-16644',
  hogarmania:
    'https://www.hogarmania.com/cocina/recetas/sopas-cremas/crema-calabaza-thermomix-receta-facil.html',
  'bettybossi-fr': 'https://ww2.bettybossi.ch/fr/Rezept/ShowRezept/BB_BLUB160501_0070A-40-fr',
  cnnarabic: 'http://arabic.cnn.com/2013/middle_east/8/3/syria.clashes/index.html',
  'ultimahora-mallorca':
    'http://ultimahora.es/mallorca/noticia/noticias/local/fiscalia-anticorrupcion-estudia-recurre-imputacion-infanta.html',
  'v8-blog': 'https://v8.dev/blog/emscripten-standalone-wasm',
  // Profiles: in side boxes and menu layers; a company's LinkedIn page before a person's.
  'jamaicans-com':
    'https://jamaicans.com/do-you-know-how-to-read-jamaican-first-ever-webinar-on-how-to-read-the-jamaican-language-april-30-2022/',
  'kbs-world': 'http://world.kbs.co.kr/service/news_view.htm?lang=e&Seq_Code=181595',
  'motor1-de': 'https://de.motor1.com/news/545242/bmw-3er-touring-2022-erwischt/',
  glamour: 'http://www.glamour.com/fashion/blogs/dressed/2014/09/rihanna-leaves-pants-at-home-f',
  // Logos: a logo only a link home marks, small icons ranked by their declared size.
  'cnn-international-home': 'http://edition.cnn.com/',
  'reuters-article': 'http://www.reuters.com/article/us-venture-fundraising-idUSKCN0Y41DQ',
  'uproxx-article':
    'http://uproxx.com/webculture/2014/12/a-reddit-post-about-a-fake-ebola-like-illness-sparked-a-panic-in-and-around-an-arizona-town/',
  // Names (GB2312 pages; the sources record no URL, the pages name their sites).
  'qq-home-gb2312': 'https://www.qq.com/',
  'baidu-home-gb2312': 'https://www.baidu.com/',
  'aktualne-sport-cs':
    'https://sport.aktualne.cz/fotbal/zahranici/west-ham-hrozi-gigantum-okouzlil-i-linekera-souckovu-praci-j/r~8fa032ba3add11ec8a900cc47ab5f122/',
  'mozilla-hacks': 'https://hacks.mozilla.org/2015/03/this-api-is-so-fetching/',
  // The source records no URL; the page's feed is on lwn.net.
  'lwn-weekly': 'http://lwn.net/',
  tmz: 'http://www.tmz.com/2015/02/26/lupita-nyongo-pearl-dress-stolen-oscars/',
  'nhs-healthier-families': 'https://www.nhs.uk/healthier-families/recipes/chilli-con-carne/',
  'luxuryhaven-co':
    'https://www.luxuryhaven.co/2019/05/nam-nghi-phu-quoc-unbound-collection-by-hyatt-officially-opens.html',
} as const;

type Site = keyof typeof REAL_SITES;

function bytesOf(site: Site): Buffer {
  return readFileSync(path.join(REAL_SITE_FIXTURES, `${site}.html`));
}

function pageOf(site: Site, pageUrl: string = REAL_SITES[site]) {
  return parsePage(decodeHtml(bytesOf(site), 'text/html'), pageUrl);
}

function configurationFor(site: Site, pageUrl: string = REAL_SITES[site]): AutoConfiguration {
  return autoConfiguration(pageOf(site, pageUrl));
}

function suggestionsFor(site: Site): BrandSuggestions {
  return configurationFor(site).suggestions;
}

/** The site name the title alone gives (the name's fallback when nothing the page declares agrees). */
function nameInTitleOf(site: Site, domainLabel: string): string | null {
  return chooseSiteName(titleNames(titleOf(pageOf(site).root)), domainLabel)?.value ?? null;
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
      social_links: { facebook: 'https://www.facebook.com/verge', x: 'https://x.com/verge' },
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
      // twitter:site is the site's account by definition, though here it is the author's (@wesbos); share buttons
      // and embedded tweets are not profiles.
      social_links: { x: 'https://x.com/wesbos' },
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
      social_links: { x: 'https://x.com/microlinkio', github: 'https://github.com/microlinkhq' },
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
      social_links: { x: 'https://x.com/github' },
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
      social_links: { x: 'https://x.com/RakutenJP' },
    });
  });

  it('zeitmagazin.html', () => {
    const { suggestions, sources, variants } = configurationFor('zeitmagazin');

    expect(suggestions).toMatchObject({
      website_url: 'https://www.zeit.de/',
      name: 'ZEITmagazin',
      // theme-color #ffffff is for light mode; #121212 is for dark mode and goes to variants.dark only.
      primary_color: '#ffffff',
      secondary_color: null,
      // The publisher Organization (block 1, url on www.zeit.de, the WebPage's and Article's #publisher).
      logo_image: 'https://static.zeit.de/p/zeit.web/images/structured-data-publisher-logo-zmo.png',
      logo_square_image: 'https://img.zeit.de/static/img/ZO-ipad-114x114.png',
      social_share_image:
        'https://img.zeit.de/zeit-magazin/wochenmarkt/2021-08/kohlrabi-fenchel-carpaccio/wide__1300x731',
      // Its sameAs outranks twitter:site (@zeitonline); the tweet-intent link is no profile.
      social_links: {
        facebook: 'https://www.facebook.com/zeitmagazin/',
        instagram: 'https://www.instagram.com/zeitmagazin/',
        x: 'https://x.com/zeitmagazin',
      },
    });
    expect(suggestions.short_description).toMatch(/^Am besten lässt man den Kohlrabi roh/);
    expect(sources).toMatchObject({
      logo_image: 'json-ld:Organization.logo',
      social_links: { x: 'json-ld:Organization.sameAs' },
    });
    expect(variants).toEqual({ dark: { primary_color: '#121212' } });
    expect(nameInTitleOf('zeitmagazin', 'zeit')).toBe('ZEITmagazin');
  });

  it('jow.html', () => {
    const { suggestions, sources, variants } = configurationFor('jow');

    expect(suggestions).toMatchObject({
      website_url: 'https://jow.fr/',
      name: 'Jow',
      // The theme-color without media; the dark one (#1e1e1e) is a variant.
      primary_color: '#fdf4e7',
      secondary_color: null,
      // The Recipe's author Organization ("Jow") is nested and has no logo; no og:logo or header logo image.
      logo_image: null,
      logo_square_image: 'https://jow.fr/apple-touch-icon-retina.png',
      social_share_image:
        'https://static.jow.fr/550x550/patterns/raddish-01-202309.png_merge_recipes/Ub9KZwLRZ8GsVA.png.jpg',
      social_links: { x: 'https://x.com/Jow_france' },
    });
    expect(suggestions.short_description).toMatch(/^Tartine à la provençale & œuf mollet en 5 étapes/);
    expect(sources).toMatchObject({ primary_color: 'theme-color', social_links: { x: 'twitter:site' } });
    expect(variants).toEqual({ dark: { primary_color: '#1e1e1e' } });
    // "Jow - Recette : Tartine à la provençale & œuf mollet": the segment that is the domain label.
    expect(nameInTitleOf('jow', 'jow')).toBe('Jow');
  });

  it('bake-eat-repeat.html', () => {
    const { suggestions, sources, confidence, variants } = configurationFor('bake-eat-repeat');

    expect(suggestions).toEqual({
      website_url: 'https://bake-eat-repeat.com/',
      name: 'Bake. Eat. Repeat.',
      short_description:
        'These baked Hawaiian sliders make a super easy weeknight dinner that the whole family will love! These sandwiches make the perfect meal!',
      primary_color: '#243746',
      secondary_color: null,
      // The @graph Organization: the WebSite's publisher, its url the site.
      logo_image: 'https://bake-eat-repeat.com/wp-content/uploads/2020/11/ber-logo@2x.png',
      logo_square_image: 'https://bake-eat-repeat.com/wp-content/uploads/2021/03/square-logo-300x300.png',
      header_image: null,
      footer_image: null,
      social_share_image: 'https://bake-eat-repeat.com/wp-content/uploads/2021/10/Hawaiian-Sliders-1.jpg',
      // Its sameAs: Pinterest on pinterest.ca, YouTube in the /c/ form; the Person's sameAs is the site itself.
      social_links: {
        facebook: 'https://www.facebook.com/bakerepeat',
        x: 'https://x.com/bakeeatrepeat',
        instagram: 'https://www.instagram.com/bake.eat.repeat/',
        pinterest: 'https://www.pinterest.ca/BakeRepeat/',
        youtube: 'https://www.youtube.com/c/BakeeatrepeatCablog',
      },
    });
    expect(sources.social_links).toEqual({
      facebook: 'json-ld:Organization.sameAs',
      x: 'json-ld:Organization.sameAs',
      instagram: 'json-ld:Organization.sameAs',
      pinterest: 'json-ld:Organization.sameAs',
      youtube: 'json-ld:Organization.sameAs',
    });
    expect(confidence).toMatchObject({ logo_image: 'high', social_links: { youtube: 'high' } });
    expect(variants).toEqual({});
    // "Hawaiian SlidersRecipe - Bake. Eat. Repeat.": the segment spelling the domain label.
    expect(nameInTitleOf('bake-eat-repeat', 'bake-eat-repeat')).toBe('Bake. Eat. Repeat.');
  });

  it('alltommat.html', () => {
    const { suggestions, sources } = configurationFor('alltommat');

    expect(suggestions).toMatchObject({
      website_url: 'https://alltommat.expressen.se/',
      name: 'Allt om Mat',
      // <meta name="theme-color"> has no content; there is no other colour.
      primary_color: null,
      secondary_color: null,
      // Not the publisher's (Expressen, url www.expressen.se) logo: the subOrganization on this site has none, so
      // the header's "Allt om Mat" logo image is next.
      logo_image:
        'https://static.cdn-expressen.se/bundles/lifestyle/images/brands/alltommat/logo-site-menu.svg',
      logo_square_image:
        'https://static.cdn-expressen.se/bundles/lifestyle/images/brands/alltommat/apple-touch-icon.png',
      social_share_image:
        'https://static.cdn-expressen.se/images/8b/46/8b46181ad1eb42e98d7b05cfdf21e0a9/16x9/1280@80.jpg',
      // From the footer; Expressen's sameAs (Wikipedia, YouTube, TikTok, ...) are the parent's, not taken.
      social_links: {
        instagram: 'https://www.instagram.com/alltommat/',
        facebook: 'https://www.facebook.com/alltommat/',
        x: 'https://x.com/Expressen',
      },
    });
    expect(suggestions.short_description).toMatch(/^Recept på briochehamburgerbröd\. Perfekta hamburgerbröd/);
    expect(sources).toMatchObject({ logo_image: 'header:img', social_links: { x: 'footer:a' } });
    expect(nameInTitleOf('alltommat', 'alltommat')).toBe('Allt om Mat');
  });

  it('greatbritishchefs.html', () => {
    const { suggestions, sources, confidence } = configurationFor('greatbritishchefs');

    expect(suggestions).toEqual({
      website_url: 'https://www.greatbritishchefs.com/',
      name: 'Great British Chefs',
      short_description:
        'This simple picadillo recipe has the perfect balance of sweetness and spice. A pleasing tanginess comes from the addition of vibrant tomatillo salsa for a great depth of flavour.',
      primary_color: null,
      secondary_color: null,
      // The Article/Recipe's publisher, its url on this site.
      logo_image: 'https://media-cdn2.greatbritishchefs.com/media/kxtop14a/gbc_logo1.svg',
      logo_square_image: 'https://www.greatbritishchefs.com/icons/apple-touch-icon-180x180.png',
      header_image: null,
      footer_image: null,
      social_share_image:
        'https://media-cdn2.greatbritishchefs.com/media/mwtkdmv3/img73858.whqc_1426x713q80.jpg',
      // The publisher's sameAs, before the footer (whose YouTube link is the /user/ form).
      social_links: {
        facebook: 'https://www.facebook.com/greatbritishchefs',
        instagram: 'https://www.instagram.com/gbchefs/',
        x: 'https://x.com/gbchefs',
        tiktok: 'https://www.tiktok.com/@gbchefs',
        pinterest: 'https://www.pinterest.co.uk/gbchefs/',
        youtube: 'https://www.youtube.com/@GreatBritishChefs',
        linkedin: 'https://www.linkedin.com/company/great-british-chefs/',
      },
    });
    expect(sources).toMatchObject({ logo_image: 'json-ld:Organization.logo', name: 'og:site_name' });
    expect(confidence).toMatchObject({ logo_image: 'high', social_links: { linkedin: 'high' } });
    expect(nameInTitleOf('greatbritishchefs', 'greatbritishchefs')).toBe('Great British Chefs');
  });

  it('rp-pl-windows-1250.html', () => {
    const { suggestions, sources, confidence } = configurationFor('rp-pl-windows-1250');

    expect(suggestions).toEqual({
      website_url: 'http://www.rp.pl/',
      // No og:site_name: the WebPage's publisher Organization (stated, without url, so medium confidence).
      name: 'Rzeczpospolita',
      short_description:
        'Lekarze przyznający renty grożą, że porzucą pracę, bo nie chcą ujawniać swoich majątków.',
      // theme-color "ffffff" (no #) is no CSS colour; msapplication-TileColor is next.
      primary_color: '#ffffff',
      secondary_color: null,
      logo_image: 'http://www.rp.pl/public/images/logo_glowne.png',
      // The largest apple-touch-icon (192x192).
      logo_square_image: 'http://www.rp.pl/android-icon-192x192.png',
      header_image: null,
      footer_image: null,
      social_share_image:
        'http://www.rp.pl/storyimage/RP/20171120/PCD/311209901/AR/0/AR-311209901.jpg?minW=200&minH=200&exactW=600&exactH=351&exactFit=crop',
      // The site's chrome (?lang=pl dropped): its Facebook page, linked in the footer on Facebook's Polish host
      // pl-pl.facebook.com, given on www.; the article's Facebook link and share links are not in the chrome.
      social_links: {
        facebook: 'https://www.facebook.com/dziennikrzeczpospolita/',
        x: 'https://x.com/rzeczpospolita',
        linkedin: 'https://www.linkedin.com/company/rzeczpospolita',
      },
    });
    expect(sources).toMatchObject({
      name: 'json-ld:Organization.name',
      primary_color: 'msapplication-TileColor',
      social_links: { facebook: 'footer:a' },
    });
    expect(confidence).toMatchObject({ name: 'medium', primary_color: 'medium' });
    // Three segments; the last names the domain.
    expect(nameInTitleOf('rp-pl-windows-1250', 'rp')).toBe('rp.pl');
  });

  it('aozora-shift-jis.html', () => {
    const configuration = configurationFor('aozora-shift-jis');

    // Only a <title>: the author and the work, no separator, naming neither the domain nor anything else on the
    // page. A whole title that nothing agrees with may be a headline or a slogan; the domain label (aozora of
    // aozora.gr.jp, a Japanese general-use registration) names the owner, Aozora Bunko.
    expect(configuration).toEqual({
      suggestions: {
        website_url: 'https://www.aozora.gr.jp/',
        name: 'Aozora',
        short_description: null,
        primary_color: null,
        secondary_color: null,
        logo_image: null,
        logo_square_image: null,
        header_image: null,
        footer_image: null,
        social_share_image: null,
        social_links: null,
      },
      sources: { website_url: 'url', name: 'domain' },
      confidence: { website_url: 'high', name: 'low' },
      variants: {},
    });
  });

  it('newyorker-home.html', () => {
    const { suggestions, sources } = configurationFor('newyorker-home');

    expect(suggestions).toEqual({
      website_url: 'http://www.newyorker.com/',
      name: 'The New Yorker',
      short_description:
        'Reporting, Profiles, daily news, cultural coverage, podcasts, videos, and cartoons from The New Yorker.',
      primary_color: null,
      secondary_color: null,
      logo_image: null,
      // The largest sized apple-touch-icon(-precomposed): 144x144.
      logo_square_image:
        'http://www.newyorker.com/wp-content/assets/dist/img/icon/apple-touch-icon-144x144-precomposed.png',
      header_image: null,
      footer_image: null,
      social_share_image: null,
      social_links: { x: 'https://x.com/newyorker', facebook: 'https://facebook.com/newyorker' },
    });
    expect(sources.social_links).toEqual({ x: 'twitter:site', facebook: 'header:a' });
  });

  it('daringfireball-home.html', () => {
    const { suggestions, sources, confidence } = configurationFor('daringfireball-home');

    expect(suggestions).toEqual({
      website_url: 'https://daringfireball.net/',
      name: 'Daring Fireball',
      short_description: null,
      primary_color: null,
      secondary_color: null,
      // The image all of div#Banner's link to "/" holds (the address serves the site's logo).
      logo_image: 'https://daringfireball.net/graphics/logos/',
      logo_square_image: 'https://daringfireball.net/graphics/apple-touch-icon.png',
      header_image: null,
      footer_image: null,
      social_share_image: null,
      // The site's Twitter link is in its side box, div#Sidebar (read as a side box, with low
      // confidence); the tweets and videos linked in the posts are content.
      social_links: { x: 'https://x.com/daringfireball' },
    });
    expect(sources).toEqual({
      website_url: 'url',
      name: 'title',
      logo_image: 'home-link:img',
      logo_square_image: 'apple-touch-icon',
      social_links: { x: 'aside:a' },
    });
    expect(confidence.social_links).toEqual({ x: 'low' });
  });

  // Pages in many languages: only the name and the social profiles are asserted here; their README says why each.
  it.each([
    // German: the role word "Startseite" cut from "infopark.de Startseite"; the nav logo's alt "infopark Logo" agrees.
    ['infopark-home-iso-8859-1', 'infopark.de', 'title', 'medium'],
    // Danish: "Forside - Virk.dk", Forside (front page) is the page's role.
    ['virk-dk-home-iso-8859-1', 'Virk.dk', 'title', 'low'],
    // French: "Orange : téléphones, …" split at " : "; the logo's alt "Accueil" is a role word.
    ['orange-fr-home-iso-8859-1', 'Orange', 'title', 'low'],
    // Chinese: "中時電子報：優質豐富的新聞媒體" split at the full-width colon; the partner logo "Yahoo" not taken alone.
    ['chinatimes-home-big5', '中時電子報', 'title', 'low'],
    // Japanese: the publisher, the title's 【クックパッド】 and the header logo's alt agree.
    ['cookpad-ja', 'クックパッド', 'json-ld:Organization.name', 'high'],
    // Italian: the publisher; the logo's "Logo Misya" and the title's "Ricetta di Misya" name the domain as well.
    ['misya-it', 'Misya.info', 'json-ld:Organization.name', 'high'],
    // Dutch: Organization and WebSite say Allerhande; "Albert Heijn" (initials of ah.nl) only the title does.
    ['albertheijn-allerhande', 'Allerhande', 'json-ld:Organization.name', 'high'],
    // Portuguese: the title's last part and the header logo's alt agree.
    ['cybercook-br', 'CyberCook', 'title', 'medium'],
    // Spanish: og:site_name and the organisation; the title is the recipe's.
    ['hogarmania', 'Hogarmania', 'og:site_name', 'high'],
    // French: the Recipe's publisher (no url) and the title's last part.
    ['bettybossi-fr', 'Betty Bossi', 'json-ld:Organization.name', 'medium'],
    // Arabic: og:site_name; the title's "- CNNArabic.com" is the same name styled as a domain.
    ['cnnarabic', 'CNNArabic', 'og:site_name', 'high'],
    // Spanish: a breadcrumb joined by " » ", the last part names the domain.
    ['ultimahora-mallorca', 'Ultima Hora Mallorca', 'title', 'low'],
    // English: split at " · " and ": "; "V8" names v8.dev.
    ['v8-blog', 'V8', 'title', 'low'],
  ] as const)('%s.html is named %j (%s, %s)', (site, name, source, confidence) => {
    const configuration = configurationFor(site);

    expect(configuration.suggestions.name).toBe(name);
    expect(configuration.sources.name).toBe(source);
    expect(configuration.confidence.name).toBe(confidence);
  });

  it.each([
    [
      'cybercook-br',
      {
        x: 'https://x.com/cybercook',
        // pt-br.facebook.com/cybercookoficial/ and br.pinterest.com/cybercookbr/ in the footer.
        facebook: 'https://www.facebook.com/cybercookoficial/',
        instagram: 'https://www.instagram.com/cybercookoficial/',
        pinterest: 'https://www.pinterest.com/cybercookbr/',
        youtube: 'https://www.youtube.com/c/CyberCookReceitasComoFazer/',
      },
    ],
    [
      'hogarmania',
      {
        facebook: 'https://www.facebook.com/hogarmania',
        x: 'https://x.com/hogarmania',
        instagram: 'https://www.instagram.com/hogarmania',
        // es.linkedin.com/company/hogarmania in the organisation's sameAs.
        linkedin: 'https://www.linkedin.com/company/hogarmania',
        youtube: 'https://www.youtube.com/CocinaAbiertatv',
        tiktok: 'https://www.tiktok.com/@hogarmania_',
        pinterest: 'https://www.pinterest.com/hogarmania/',
      },
    ],
    [
      'bettybossi-fr',
      {
        facebook: 'https://www.facebook.com/BettyBossienfrancais',
        youtube: 'https://www.youtube.com/user/BettyBossienfrancais',
        pinterest: 'https://www.pinterest.com/bettybossi/',
        instagram: 'https://www.instagram.com/bettybossi.ch/',
        // ch.linkedin.com/company/betty-bossi in the footer.
        linkedin: 'https://www.linkedin.com/company/betty-bossi',
      },
    ],
    [
      'infopark-home-iso-8859-1',
      {
        facebook: 'http://www.facebook.com/infopark',
        x: 'https://x.com/infopark',
        youtube: 'http://www.youtube.com/infoparkag',
      },
    ],
    [
      'misya-it',
      {
        facebook: 'https://www.facebook.com/Misya.info',
        x: 'https://x.com/ricettedimisya',
        pinterest: 'https://pinterest.com/FlaviaMisya/',
        instagram: 'https://www.instagram.com/misya.info/',
        youtube: 'https://www.youtube.com/user/videoricettedimisya',
      },
    ],
    [
      'albertheijn-allerhande',
      {
        facebook: 'https://www.facebook.com/Allerhande/',
        x: 'https://x.com/allerhande',
        instagram: 'https://www.instagram.com/allerhande/',
        youtube: 'https://www.youtube.com/user/allerhande',
        pinterest: 'https://www.pinterest.com/allerhande',
      },
    ],
    ['cookpad-ja', { x: 'https://x.com/cookpad_jp' }],
    [
      'ultimahora-mallorca',
      { x: 'https://x.com/UHmallorca', facebook: 'http://www.facebook.com/UltimaHora.Mallorca' },
    ],
    ['v8-blog', { x: 'https://x.com/v8js' }],
    ['virk-dk-home-iso-8859-1', null],
    ['orange-fr-home-iso-8859-1', null],
    ['chinatimes-home-big5', null],
  ] as const)('%s.html has the social profiles its page links', (site, profiles) => {
    expect(suggestionsFor(site).social_links).toEqual(profiles);
  });

  // Logos, read from each page: README.md says where.
  it.each([
    // A link to "/" holding only the logo, in div#cnn_hdr (no header element or class marks it); no square icon.
    [
      'cnn-international-home',
      ['http://i.cdn.turner.com/cnn/.e/img/3.0/global/header/intl/CNNi_Logo_new.png', 'home-link:img', 'low'],
      [null, undefined, undefined],
    ],
    [
      'cnnarabic',
      ['http://arabic.cnn.com/.element/img/2.0/hdr-globe-central.gif', 'home-link:img', 'low'],
      [null, undefined, undefined],
    ],
    // Favicons of 16, 32 and 96 pixels only: the largest, with low confidence (it shows scaled up).
    [
      'reuters-article',
      [null, undefined, undefined],
      ['http://s3.reutersmedia.net/resources_v2/images/favicon/favicon-96x96.png', 'icon', 'low'],
    ],
    // One touch icon without sizes, its file named 72x72: low confidence.
    [
      'uproxx-article',
      ['http://cdn.widgets.uproxx.com/springboard/design/footer-logo-2013b.png', 'header:img', 'low'],
      [
        'http://s0.wp.com/wp-content/themes/vip/uproxx/images/apple-touch-icon-72x72.png?m=1394696743g',
        'apple-touch-icon',
        'low',
      ],
    ],
  ] as const)('%s.html has the logos its page declares', (site, logo, squareLogo) => {
    const { suggestions, sources, confidence } = configurationFor(site);
    const answer = (field: 'logo_image' | 'logo_square_image') => [
      suggestions[field],
      sources[field],
      confidence[field],
    ];

    expect(answer('logo_image')).toEqual(logo);
    expect(answer('logo_square_image')).toEqual(squareLogo);
  });

  it.each(Object.keys(REAL_SITES) as Site[])(
    '%s: every suggestion is valid create-brand input, with a source and confidence for each',
    (site) => {
      expectValidAutoConfiguration(configurationFor(site));
    },
  );
});

// Pages for social profiles: where each page puts the site's own profiles (read from the page: the
// region each link sits in), and what is not taken.
describe('real sites: profiles outside the header and the footer, a company before a person', () => {
  it.each([
    [
      // WordPress (Voice theme): the "Follow Us" widget in aside#sidebar, after a sidebar banner linking a person's
      // LinkedIn page (/in/andre-maragh-…); YouTube from the header's menu. The article's share buttons are not read.
      'jamaicans-com',
      {
        youtube: ['https://youtube.com/Jamaicans/', 'header:a'],
        facebook: ['https://www.facebook.com/onelovejamaica', 'aside:a'],
        instagram: ['https://instagram.com/jamaicans_com', 'aside:a'],
        x: ['https://x.com/jamaicansdotcom', 'aside:a'],
        pinterest: ['https://www.pinterest.com/jamaicans/', 'aside:a'],
        // jm.linkedin.com/company/jamaicans-com, given on www.
        linkedin: ['https://www.linkedin.com/company/jamaicans-com', 'aside:a'],
      },
    ],
    [
      // KBS World (Korean public broadcaster's English service): section.comp_right_SNS in the <aside> beside the
      // article; YouTube in the header's menu.
      'kbs-world',
      {
        youtube: ['https://www.youtube.com/kbsworldtv', 'header:a'],
        facebook: ['https://www.facebook.com/KBSWORLD/', 'aside:a'],
        x: ['https://x.com/kbsworldTV', 'aside:a'],
        instagram: ['https://instagram.com/kbsworldtv/', 'aside:a'],
      },
    ],
    [
      // Motor1 Germany: ul.m1-social-menu at the foot of div.m1-drawer, the menu that slides in from the left when
      // the header's menu button is pressed; nothing in its header or footer.
      'motor1-de',
      {
        facebook: ['https://www.facebook.com/Motor1deutschland/', 'menu:a'],
        x: ['https://x.com/Motor1de', 'menu:a'],
        instagram: ['https://www.instagram.com/motor1deutschland/', 'menu:a'],
        youtube: ['https://www.youtube.com/c/Motor1Deutschland', 'menu:a'],
      },
    ],
    [
      // Glamour (2014): twitter:site, and div.social-skittles in div.sidebar-offcanvas, the off-canvas navigation.
      'glamour',
      {
        x: ['https://x.com/glamourmag', 'twitter:site'],
        facebook: ['http://www.facebook.com/glamour', 'menu:a'],
        instagram: ['http://instagram.com/glamourmag', 'menu:a'],
        pinterest: ['http://pinterest.com/glamourmag/', 'menu:a'],
      },
    ],
  ] as const)('%s.html', (site, expected) => {
    const { suggestions, sources, confidence } = configurationFor(site);
    const networks = Object.keys(expected) as (keyof typeof expected)[];

    expect(suggestions.social_links).toEqual(
      Object.fromEntries(networks.map((network) => [network, expected[network][0]])),
    );
    expect(sources.social_links).toEqual(
      Object.fromEntries(networks.map((network) => [network, expected[network][1]])),
    );
    // Read off the page's regions, every one is low; twitter:site declares the site's own account.
    expect(confidence.social_links).toEqual(
      Object.fromEntries(
        networks.map((network) => [network, expected[network][1] === 'twitter:site' ? 'high' : 'low']),
      ),
    );
  });

  it("jamaicans-com.html: the sidebar's link to a person's LinkedIn page is not the site's", () => {
    const page = readFileSync(path.join(REAL_SITE_FIXTURES, 'jamaicans-com.html'), 'utf8');

    // The person's page is linked first, in the same side box.
    expect(page.indexOf('linkedin.com/in/andre-maragh-620a90b9/')).toBeGreaterThan(0);
    expect(page.indexOf('linkedin.com/in/andre-maragh-620a90b9/')).toBeLessThan(
      page.indexOf('jm.linkedin.com/company/jamaicans-com'),
    );
    expect(suggestionsFor('jamaicans-com').social_links?.linkedin).toBe(
      'https://www.linkedin.com/company/jamaicans-com',
    );
  });
});

// Names: what each page's own text says (test/fixtures/real-sites/README.md).
describe("real sites: names from the page's own text", () => {
  it.each([
    // GB2312: <title>腾讯首页</title>, "Tencent home page"; the host label "qq" matches nothing on the page.
    ['qq-home-gb2312', '腾讯', 'title', 'low'],
    // GB2312: <title>百度一下，你就知道</title> is a slogan; nothing else names the site.
    ['baidu-home-gb2312', 'Baidu', 'domain', 'low'],
    // A name with more than a name: og:site_name "Aktuálně.cz - Víte, co se právě děje", the name and its slogan; the name spells the domain.
    ['aktualne-sport-cs', 'Aktuálně.cz', 'og:site_name', 'medium'],
    // A name with more than a name: og:site_name "Mozilla Hacks – the Web developer blog"; the shorter part.
    ['mozilla-hacks', 'Mozilla Hacks', 'og:site_name', 'medium'],
    // A brand without a usual separator: <title>LWN.net Weekly Edition for March 26, 2015 [LWN.net]</title>: no separator, LWN.net at its edges.
    ['lwn-weekly', 'LWN.net', 'title', 'low'],
    // A URL as the name: og:site_name "http://www.tmz.com" is a URL; application-name "TMZ.COM" is next.
    ['tmz', 'TMZ.COM', 'application-name', 'high'],
    // A host under www. on a public suffix (www. on the public suffix nhs.uk): og:site_name "nhs.uk", which the domain label spells.
    ['nhs-healthier-families', 'nhs.uk', 'og:site_name', 'high'],
    // A host under www. on a public suffix (www. on .co): the header logo's alt "Luxury Haven | Award-winning Singapore Lifestyle Blog", split;
    // its first part spells the label luxuryhaven (the hand-written list gave "www").
    ['luxuryhaven-co', 'Luxury Haven', 'header:img:alt', 'low'],
  ] as const)('%s.html is named %j (%s, %s)', (site, name, source, confidence) => {
    const configuration = configurationFor(site);

    expect(configuration.suggestions.name).toBe(name);
    expect(configuration.sources.name).toBe(source);
    expect(configuration.confidence.name).toBe(confidence);
  });

  it('nhs-healthier-families.html: the domain label of www.nhs.uk is the public suffix nhs.uk, never www', () => {
    expect(domainLabelOf(new URL(REAL_SITES['nhs-healthier-families']))).toBe('nhs.uk');
    // Without the page's names, the domain label names the site.
    const withoutNames = pageOf('nhs-healthier-families');
    for (const element of withoutNames.root.querySelectorAll('title, meta[property="og:site_name"]')) {
      element.remove();
    }
    expect(autoConfiguration(withoutNames).suggestions.name).toBe('Nhs.uk');
  });

  it('luxuryhaven-co.html: the domain label of www.luxuryhaven.co is luxuryhaven, never www', () => {
    expect(domainLabelOf(new URL(REAL_SITES['luxuryhaven-co']))).toBe('luxuryhaven');
  });

  it('kbs-world.html: KBS as its title writes it, not the header logo\'s alt text "kbsworldlogo" (an identifier)', () => {
    // <title>… Tues. l KBS WORLD</title> (" l ", a lower-case L, is no separator); <img … alt="kbsworldlogo">.
    expect(bytesOf('kbs-world').includes('alt="kbsworldlogo"')).toBe(true);
    const { suggestions, sources, confidence } = configurationFor('kbs-world');
    expect([suggestions.name, sources.name, confidence.name]).toEqual(['KBS', 'domain', 'low']);
  });

  it("luxuryhaven-co.html: the sidebar's banner for a hair salon's Facebook page is an advertisement, not a profile", () => {
    // Blogger's sidebar widget Image5: <a href='https://www.facebook.com/H4USalon/'><img … width='312'/></a>.
    expect(bytesOf('luxuryhaven-co').includes("<a href='https://www.facebook.com/H4USalon/'>")).toBe(true);
    expect(suggestionsFor('luxuryhaven-co').social_links).toBeNull();
  });

  it('qq-home-gb2312.html is decoded as GB2312: its description is in Chinese', () => {
    expect(suggestionsFor('qq-home-gb2312').short_description).toMatch(/^腾讯网从2003年创立至今，/);
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
      const configuration = await autoConfigure(pageUrl);

      expect(configuration).toEqual(configurationFor(site, pageUrl));
      expect(configuration.suggestions.website_url).toBe(`${server.origin}/`);
      expectValidAutoConfiguration(configuration);
    },
  );

  it('resolves relative URLs against the fixture server', async () => {
    const { suggestions } = await autoConfigure(server.url('/learnnode/'));

    expect(suggestions.name).toBe('Learn Node');
    expect(suggestions.logo_square_image).toBe(server.url('/images/NODE/favicon.png'));
  });
});
