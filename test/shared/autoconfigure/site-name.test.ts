import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { autoConfiguration } from '../../../shared/autoconfigure/extract.ts';
import { parsePage } from '../../../shared/autoconfigure/html-document.ts';
import { titleNames } from '../../../shared/autoconfigure/title-name.ts';
import { readWebManifest, type WebManifest } from '../../../shared/autoconfigure/web-manifest.ts';
import { expectValidAutoConfiguration } from './valid-suggestions.ts';

/** Names: separators, generic words per language, slogans, URLs, agreement of signals. */

const ACME = 'https://www.acme-widgets.co.uk/shop/';

/** The name auto-configure suggests for a page, with its source and confidence. */
function nameOn(
  head: string,
  {
    body = '',
    pageUrl = ACME,
    manifest = null,
  }: { body?: string; pageUrl?: string; manifest?: WebManifest | null } = {},
) {
  const page = parsePage(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`, pageUrl);
  const configuration = autoConfiguration(page, manifest);
  expectValidAutoConfiguration(configuration);
  const { suggestions, sources, confidence } = configuration;
  return { name: suggestions.name, source: sources.name, confidence: confidence.name };
}

const title = (text: string) => `<title>${text}</title>`;
/** The name the domain label gives when nothing on the page does. */
const domainNamed = (name: string) => ({ name, source: 'domain', confidence: 'low' });
const headerLogo = (alt: string) =>
  `<header><a href="/"><img class="logo" src="/logo.png" alt="${alt}"></a></header>`;

// Every separator of the issue (and those read before), as pages write them. The underscore and the full-width ones
// are written without spaces, as Chinese and Japanese titles do.
const SEPARATORS = [
  ' | ',
  '|',
  ' - ',
  ' – ',
  ' — ',
  ' · ',
  ' • ',
  ' » ',
  ': ',
  ' : ',
  ' :: ',
  ' _ ',
  '｜',
  '：',
  '\u3000',
];

describe('title separators', () => {
  it.each(SEPARATORS)('%j between the name and a tagline, either way round, gives the name', (separator) => {
    expect(nameOn(title(`Acme Widgets${separator}Widgets for every home`)).name).toBe('Acme Widgets');
    expect(nameOn(title(`Widgets for every home${separator}Acme Widgets`)).name).toBe('Acme Widgets');
    // A domain naming neither part: the shorter part, the tagline being longer.
    const onNews = { pageUrl: 'https://news.example/' };
    expect(nameOn(title(`Ledger${separator}A long headline about storms`), onNews).name).toBe('Ledger');
  });

  it.each([
    ['首页_新浪网', 'https://www.sina.com.cn/', '新浪网'],
    ['新闻中心_新浪网', 'https://news.sina.com.cn/', '新浪网'],
    [
      '【楽天市場】Shopping is Entertainment! ： インターネット通販',
      'https://www.rakuten.co.jp/',
      '楽天市場',
    ],
    [
      'バターチキンカレー by reoririna 【クックパッド】 簡単おいしいみんなのレシピ',
      'https://cookpad.com/recipe/1',
      'クックパッド',
    ],
    ['中時電子報：優質豐富的新聞媒體', 'http://news.chinatimes.com/', '中時電子報'],
  ])('splits %j (an underscore or bracket beside CJK text, a full-width colon)', (text, pageUrl, name) => {
    expect(nameOn(title(text), { pageUrl }).name).toBe(name);
  });

  it.each([
    'Acme-Widgets Ltd',
    '10:30 Club',
    'snake_case Tools',
    "Col·legi d'Advocats",
    'Rock—Paper Records',
    'AC/DC',
  ])('does not split %j: the mark is part of a word there', (text) => {
    expect(titleNames(text).map(({ value, standsAlone }) => ({ value, standsAlone }))).toEqual([
      { value: text, standsAlone: false },
    ]);
  });

  it('any separator between name and tagline gives the name (property)', () => {
    const word = fc.constantFrom('best', 'tools', 'online', 'since', '1999', 'quality', 'shop', 'delivered');
    const tagline = fc.array(word, { minLength: 3, maxLength: 6 }).map((words) => words.join(' '));
    fc.assert(
      fc.property(fc.constantFrom(...SEPARATORS), tagline, fc.boolean(), (separator, text, nameFirst) => {
        const parts = nameFirst ? ['Acme Widgets', text] : [text, 'Acme Widgets'];
        expect(nameOn(title(parts.join(separator))).name).toBe('Acme Widgets');
      }),
    );
  });
});

// Words for the page's role, by language: the seven and English, then others met on real pages.
const GENERIC_WORDS: Record<string, string[]> = {
  en: ['Home', 'Homepage', 'Welcome', 'Official Site', 'Index'],
  de: ['Startseite', 'Willkommen', 'Hauptseite'],
  fr: ['Accueil', "Page d'accueil", 'Page d’accueil', 'Bienvenue'],
  es: ['Inicio', 'Portada', 'Página de inicio', 'Bienvenidos'],
  pt: ['Início', 'Página inicial', 'Bem-vindo'],
  zh: ['首页', '首頁', '官网', '官方网站', '欢迎'],
  ja: ['ホーム', 'トップ', 'トップページ', '公式サイト', 'ようこそ'],
  ar: ['الرئيسية', 'الصفحة الرئيسية', 'الموقع الرسمي'],
  others: ['Forside', 'Startpagina', 'Pagina iniziale', 'Strona główna', 'Startsida'],
};

describe('generic words for the page, in any language', () => {
  it.each(
    Object.entries(GENERIC_WORDS).flatMap(([language, words]) =>
      words.map((word) => [language, word] as const),
    ),
  )('%s %j before or after the name is no name', (_language, word) => {
    expect(nameOn(title(`${word} | Acme Widgets`)).name).toBe('Acme Widgets');
    expect(nameOn(title(`${word} - Ledger`), { pageUrl: 'https://news.example/' }).name).toBe('Ledger');
    expect(nameOn(title(`Ledger :: ${word}`), { pageUrl: 'https://news.example/' }).name).toBe('Ledger');
    // Alone it names nothing: the domain is next.
    expect(nameOn(title(word), { pageUrl: 'https://news.example/' })).toEqual(domainNamed('News'));
  });

  it.each([
    ['de', 'Startseite: Acme Widgets', ACME, 'Acme Widgets'],
    ['fr', 'Accueil - Le Monde : actualités et infos en France', 'https://www.lemonde.fr/', 'Le Monde'],
    [
      'es',
      'Inicio | Ayuntamiento de Madrid: sede electrónica',
      'https://www.madrid.es/',
      'Ayuntamiento de Madrid',
    ],
    ['pt', 'Página inicial - Universidade de Lisboa', 'https://www.ulisboa.pt/', 'Universidade de Lisboa'],
    ['zh', '首页_新浪网', 'https://www.sina.com.cn/', '新浪网'],
    ['ja', 'ホーム | 楽天市場', 'https://www.rakuten.co.jp/', '楽天市場'],
    ['ar', 'الرئيسية - الجزيرة نت', 'https://www.aljazeera.net/', 'الجزيرة نت'],
    ['en', 'Home – Acme Widgets', ACME, 'Acme Widgets'],
  ])('%s: %j gives the owner', (_language, text, pageUrl, name) => {
    expect(nameOn(title(text), { pageUrl }).name).toBe(name);
  });

  it.each([
    ['acme.de Startseite | Anbieter von Widgets', 'https://www.acme.de/', 'acme.de'],
    ['Acme Widgets Homepage', ACME, 'Acme Widgets'],
    ['Página principal Acme Widgets', ACME, 'Acme Widgets'],
    ['Acme Widgets official website', ACME, 'Acme Widgets'],
  ])('cuts a role word from the edge of %j', (text, pageUrl, name) => {
    expect(nameOn(title(text), { pageUrl }).name).toBe(name);
  });

  it.each([
    ['Home Depot | Tools and more', 'https://www.homedepot.com/', 'Home Depot'],
    ['Welcome to Night Vale | A podcast', 'https://www.welcometonightvale.com/', 'Welcome to Night Vale'],
    ['Top Gear - Cars and more', 'https://www.topgear.com/', 'Top Gear'],
  ])('keeps words that begin names in %j', (text, pageUrl, name) => {
    expect(nameOn(title(text), { pageUrl }).name).toBe(name);
  });

  it('a generic separator, role word and language at once give the owner (property)', () => {
    const owners = [
      ['Acme Widgets', ACME],
      ['新浪网', 'https://www.sina.com.cn/'],
      ['クックパッド', 'https://cookpad.com/'],
      ['الجزيرة نت', 'https://www.aljazeera.net/'],
    ] as const;
    const words = fc.constantFrom('widgets', 'delivered', 'quality', 'noticias', 'nachrichten', 'actualités');
    const tagline = fc.array(words, { minLength: 3, maxLength: 5 }).map((list) => list.join(' '));
    const generic = fc.constantFrom(...Object.values(GENERIC_WORDS).flat());
    fc.assert(
      fc.property(
        generic,
        fc.constantFrom(...SEPARATORS),
        fc.constantFrom(...owners),
        tagline,
        (word, separator, [owner, pageUrl], text) => {
          expect(nameOn(title([word, owner, text].join(separator)), { pageUrl }).name).toBe(owner);
        },
      ),
    );
  });
});

describe('a whole title that nothing agrees with', () => {
  it.each([
    ["Search the world's information", 'https://www.searchco.example/', 'Searchco'],
    ['The land of the midnight sun', 'https://www.visitnorway.com/', 'Visitnorway'],
    ['Donde comprar y vender de todo', 'https://www.mercadolibre.com.mx/', 'Mercadolibre'],
  ])('%j on %s is a slogan: the domain names the owner', (text, pageUrl, name) => {
    expect(nameOn(title(text), { pageUrl })).toEqual(domainNamed(name));
  });

  it('is the name when it names the domain, or when another signal agrees', () => {
    expect(nameOn(title('Acme Widgets'))).toEqual({
      name: 'Acme Widgets',
      source: 'title',
      confidence: 'low',
    });
    expect(
      nameOn(title('Northern Lights Travel'), {
        body: headerLogo('Northern Lights Travel'),
        pageUrl: 'https://www.visitnorway.com/',
      }),
    ).toEqual({ name: 'Northern Lights Travel', source: 'title', confidence: 'medium' });
  });

  it('is the name on a site without a domain name, where there is nothing better', () => {
    expect(nameOn(title('Widget World'), { pageUrl: 'http://93.184.216.34/' }).name).toBe('Widget World');
  });
});

describe('a URL is not a name', () => {
  it.each([
    'https://www.acme-widgets.co.uk',
    'https://www.acme-widgets.co.uk/',
    'http://acme-widgets.co.uk/shop',
    'www.acme-widgets.co.uk',
    // A name written as a URL: protocol-relative, and a host with a path.
    '//www.acme-widgets.co.uk/',
    '//acme-widgets.co.uk',
    'acme-widgets.co.uk/',
    'acme-widgets.co.uk/shop/index.html',
  ])('og:site_name %j gives way to the domain label', (url) => {
    expect(nameOn(`<meta property="og:site_name" content="${url}">`)).toEqual(domainNamed('Acme-widgets'));
  });

  it('og:site_name holding a URL gives way to a better signal on the page', () => {
    const head =
      '<meta property="og:site_name" content="https://www.acme-widgets.co.uk">' +
      '<script type="application/ld+json">{"@type":"Organization","name":"Acme Widgets Ltd"}</script>';
    expect(nameOn(head).name).toBe('Acme Widgets Ltd');
    expect(
      nameOn(`<meta property="og:site_name" content="https://acme.example">${title('News | Acme Widgets')}`)
        .name,
    ).toBe('Acme Widgets');
  });

  it('a name styled as a domain is a name', () => {
    expect(nameOn('<meta property="og:site_name" content="AcmeWidgets.co.uk">').name).toBe(
      'AcmeWidgets.co.uk',
    );
  });
});

describe('signals weighed by agreement', () => {
  const jsonLd = (value: object) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

  it.each([
    ['application-name', '<meta name="application-name" content="Acme Widgets">'],
    ['apple-mobile-web-app-title', '<meta name="apple-mobile-web-app-title" content="Acme Widgets">'],
    ['json-ld:WebSite.name', jsonLd({ '@type': 'WebSite', name: 'Acme Widgets', url: ACME })],
    ['json-ld:Organization.name', jsonLd({ '@type': 'Organization', name: 'Acme Widgets', url: ACME })],
  ])('reads %s', (source, head) => {
    expect(nameOn(head)).toEqual({ name: 'Acme Widgets', source, confidence: 'high' });
  });

  it("reads the manifest's name and short_name", () => {
    const both = readWebManifest('{"name":"Acme Widgets","short_name":"Acme"}', ACME);
    const short = readWebManifest('{"short_name":"Acme"}', ACME);
    expect(nameOn('', { manifest: both })).toEqual({
      name: 'Acme Widgets',
      source: 'manifest:name',
      confidence: 'high',
    });
    expect(nameOn('', { manifest: short })).toEqual({
      name: 'Acme',
      source: 'manifest:short_name',
      confidence: 'high',
    });
  });

  it('takes the name two declaring signals agree on over one that another declares first', () => {
    const head =
      '<meta name="application-name" content="Acme Mail">' +
      jsonLd({
        '@graph': [
          { '@type': 'Organization', name: 'Acme Widgets' },
          { '@type': 'WebSite', name: 'Acme Widgets' },
        ],
      });
    expect(nameOn(head)).toMatchObject({ name: 'Acme Widgets', source: 'json-ld:Organization.name' });
  });

  it('between two names declared once each, takes the one the title or the domain agrees with', () => {
    const head =
      '<meta property="og:site_name" content="The Verge"><meta name="apple-mobile-web-app-title" content="Verge">';
    expect(nameOn(head + title('The Verge'), { pageUrl: 'https://www.theverge.com/' }).name).toBe(
      'The Verge',
    );
    expect(nameOn(head + title('Verge'), { pageUrl: 'https://www.theverge.com/' }).name).toBe('Verge');
  });

  it("takes a name the page declares over the title's and logo's agreement on the domain", () => {
    // As rp.pl: the publisher Organization (no url: medium) is the owner; "rp.pl" and the logo's "RP" are its address.
    const head = jsonLd({
      '@type': 'WebPage',
      publisher: { '@type': 'Organization', name: 'Rzeczpospolita' },
    });
    expect(
      nameOn(head + title('Lekarze orzecznicy - Lekarze i pielęgniarki - rp.pl'), {
        body: headerLogo('Logo RP'),
        pageUrl: 'http://www.rp.pl/artykul.html',
      }),
    ).toEqual({ name: 'Rzeczpospolita', source: 'json-ld:Organization.name', confidence: 'medium' });
  });

  it.each([
    ['Acme Widgets'],
    ['Logo of Acme Widgets'],
    ['Acme Widgets logo'],
    ['Logo Acme Widgets'],
    ['Logotipo de Acme Widgets'],
  ])("the header logo's alt text %j agreeing with a title part makes it medium", (alt) => {
    const onNews = { pageUrl: 'https://news.example/' };
    expect(nameOn(title('Storms in the north | Acme Widgets'), onNews)).toEqual({
      name: 'Acme Widgets',
      source: 'title',
      confidence: 'low',
    });
    expect(nameOn(title('Storms in the north | Acme Widgets'), { ...onNews, body: headerLogo(alt) })).toEqual(
      {
        name: 'Acme Widgets',
        source: 'title',
        confidence: 'medium',
      },
    );
  });

  it('takes the title part a logo agrees with over a shorter one', () => {
    const page = { pageUrl: 'https://news.example/', body: headerLogo('Acme Widgets') };
    expect(nameOn(title('Ledger | Acme Widgets'), page).name).toBe('Acme Widgets');
  });

  it("does not take a header logo's alt text alone, unless it names the domain", () => {
    const onNews = { pageUrl: 'https://news.example/' };
    expect(nameOn('', { ...onNews, body: headerLogo('Yahoo') }).source).toBe('domain');
    expect(nameOn('', { ...onNews, body: headerLogo('Accueil') }).source).toBe('domain');
    expect(nameOn('', { body: headerLogo('Acme Widgets') })).toEqual({
      name: 'Acme Widgets',
      source: 'header:img:alt',
      confidence: 'low',
    });
  });

  it('takes the title part that spells the whole domain over one that is a piece of it', () => {
    expect(nameOn(title('Widgets | Acme Widgets')).name).toBe('Acme Widgets');
    expect(nameOn(title('Verge | The Verge'), { pageUrl: 'https://www.theverge.com/' }).name).toBe(
      'The Verge',
    );
  });
});

// More names: declared names holding more than a name, URL forms, brands inside a title without a
// separator, hosts under www. on a public suffix of several labels, and names in scripts the host cannot spell.
describe('a declared name holding more than a name', () => {
  it.each([
    ['og:site_name', 'Acme Widgets | acme-widgets.co.uk'],
    ['og:site_name', 'acme-widgets.co.uk | Acme Widgets'],
    ['application-name', 'Acme Widgets - widgets, tools and spares'],
    ['og:site_name', 'Widgets, tools and spares — Acme Widgets'],
  ] as const)('%s %j is split as a title is: the name, less sure', (key, content) => {
    const attribute = key === 'og:site_name' ? 'property' : 'name';
    expect(nameOn(`<meta ${attribute}="${key}" content="${content}">`)).toEqual({
      name: 'Acme Widgets',
      source: key,
      confidence: 'medium',
    });
  });

  it('a name with its own domain beside it is one name: as sure as declared', () => {
    expect(
      nameOn('<meta property="og:site_name" content="Ledger | ledger.example">', {
        pageUrl: 'https://www.ledger.example/',
      }),
    ).toEqual({ name: 'Ledger', source: 'og:site_name', confidence: 'medium' });
  });

  it('without the domain to agree, the title chooses among the parts, else the shorter part', () => {
    const onNews = { pageUrl: 'https://news.example/' };
    const declared = '<meta name="application-name" content="Ledger - news, mail and search">';
    expect(nameOn(declared, { pageUrl: 'https://portal.example/' }).name).toBe('Ledger');
    expect(
      nameOn(
        '<meta property="og:site_name" content="Storms in the north | Acme Widgets">' +
          title('Storms in the north | Acme Widgets'),
        onNews,
      ).name,
    ).toBe('Acme Widgets');
  });

  it('the whole title declared as the site name declares nothing more: the name the title gives', () => {
    const text = 'Picadillo Recipe - Great British Chefs';
    expect(
      nameOn(`<meta property="og:site_name" content="${text}">${title(text)}`, {
        pageUrl: 'https://www.greatbritishchefs.com/recipes/picadillo-recipe',
      }),
    ).toEqual({ name: 'Great British Chefs', source: 'title', confidence: 'low' });
  });

  it('among parts nothing else tells apart, the first one, not the shorter', () => {
    expect(
      nameOn('<meta property="og:site_name" content="Ledger Media Group | News and views">', {
        pageUrl: 'https://portal.example/',
      }),
    ).toEqual({ name: 'Ledger Media Group', source: 'og:site_name', confidence: 'medium' });
  });

  it("a header logo's alt text holding more than a name is split too", () => {
    expect(nameOn('', { body: headerLogo('Acme Widgets | Award-winning widgets since 1999') })).toEqual({
      name: 'Acme Widgets',
      source: 'header:img:alt',
      confidence: 'low',
    });
  });

  it('a URL beside the name is dropped: the name stays as sure as declared', () => {
    expect(
      nameOn('<meta property="og:site_name" content="Acme Widgets | https://www.acme-widgets.co.uk/">'),
    ).toEqual({ name: 'Acme Widgets', source: 'og:site_name', confidence: 'high' });
  });
});

describe('a brand inside a title without a usual separator', () => {
  it.each([
    ['Acme Widgets. Widgets, tools and spares', 'Acme Widgets'],
    ['Acme Widgets news portal of the north', 'Acme Widgets'],
    ['Videos, films and series from Acme Widgets', 'Acme Widgets'],
    ['Welcome to Acme-Widgets', 'Acme-Widgets'],
  ])('%j: the words that spell the domain', (text, name) => {
    expect(nameOn(title(text))).toEqual({ name, source: 'title', confidence: 'low' });
  });

  it('the words another source names, in any script, as the title writes them', () => {
    const onThairath = { pageUrl: 'https://www.thairath.co.th/' };
    expect(nameOn(title('ไทยรัฐ ข่าวเด่น ข่าวด่วน ข่าววันนี้'), { ...onThairath, body: headerLogo('ไทยรัฐ') })).toEqual(
      { name: 'ไทยรัฐ', source: 'title', confidence: 'medium' },
    );
    expect(
      nameOn(title('NORTHERN lights travel guides for every season'), {
        pageUrl: 'https://www.visitnorway.com/',
        body: headerLogo('Northern Lights'),
      }),
    ).toEqual({ name: 'NORTHERN lights', source: 'title', confidence: 'medium' });
  });

  it.each([
    'Кинопоиск. Онлайн-кинотеатр, фильмы, сериалы и мультфильмы',
    'Кинопоиск. Онлайн-кинотеатр: фильмы, сериалы и мультфильмы',
  ])('a full stop after the brand, in Cyrillic (%j): the logo names it', (text) => {
    const onKinopoisk = { pageUrl: 'https://www.kinopoisk.ru/' };
    expect(nameOn(title(text), { ...onKinopoisk, body: headerLogo('Кинопоиск') })).toEqual({
      name: 'Кинопоиск',
      source: 'title',
      confidence: 'medium',
    });
  });

  it('a full stop after the brand, with nothing agreeing: the domain, not the whole title', () => {
    const text = 'Кинопоиск. Онлайн-кинотеатр, фильмы, сериалы и мультфильмы';
    expect(nameOn(title(text), { pageUrl: 'https://www.kinopoisk.ru/' })).toEqual(domainNamed('Kinopoisk'));
  });

  it("an apostrophe or a hyphen is inside a word: a logo's \"brewer\" is not the title's Brewer's", () => {
    expect(
      nameOn(title("Brewer's Friend"), {
        pageUrl: 'https://portal.example/',
        body: headerLogo('brewer logo'),
      }),
    ).toEqual(domainNamed('Portal'));
  });

  it("a title part of more than a few words is a headline, even holding the label's letters", () => {
    expect(
      nameOn(title('IIJmio meeting 23 slides are now published | てくろぐ'), {
        pageUrl: 'https://techlog.iij.ad.jp/archives/1',
      }),
    ).toEqual({ name: 'てくろぐ', source: 'title', confidence: 'low' });
  });

  it('a name inside a word is not a name: no boundary, no candidate', () => {
    expect(nameOn(title('Acme Widgetsmith tools for every home'))).toEqual(domainNamed('Acme-widgets'));
  });

  it('with no agreement, a whole title of more than a few words is never the name', () => {
    // The label inside the title's middle: agreement by letters only, no words at an edge.
    expect(nameOn(title('The weekly Acme Widgets digest for every home'))).toEqual(
      domainNamed('Acme-widgets'),
    );
    expect(nameOn(title('ข่าวเด่น ข่าวด่วน ข่าววันนี้ ข่าวล่าสุด'), { pageUrl: 'https://www.thairath.co.th/' })).toEqual(
      domainNamed('Thairath'),
    );
  });
});

describe('a host under www. on a public suffix', () => {
  it.each([
    ['https://www.gov.uk/', 'Gov.uk'],
    ['https://www.gob.mx/', 'Gob.mx'],
    ['https://www.example.co.kr/', 'Example'],
    ['https://www.example.in.th/', 'Example'],
    ['https://www.example.kiev.ua/', 'Example'],
    ['https://www2.example.com.tr/', 'Example'],
    ['https://acme.github.io/widgets/', 'Acme'],
  ])('%s is named from its registrable domain, never "Www"', (pageUrl, name) => {
    expect(nameOn('', { pageUrl })).toEqual(domainNamed(name));
  });

  it('prefers what the page says: "Welcome to GOV.UK" names GOV.UK', () => {
    expect(nameOn(title('Welcome to GOV.UK'), { pageUrl: 'https://www.gov.uk/' })).toEqual({
      name: 'GOV.UK',
      source: 'title',
      confidence: 'low',
    });
  });
});

describe('the domain label as the page writes it, and logo alt texts that are identifiers', () => {
  it('spells the domain label as the title writes it as a word, capitalised only when the page never writes it', () => {
    const onKbs = { pageUrl: 'https://world.kbs.co.kr/service/news_view.htm' };
    expect(
      nameOn(title('Colder Temperatures Forecast for Wed. after Cold Wave Alert Tues. l KBS WORLD'), onKbs),
    ).toEqual(domainNamed('KBS'));
    // Inside another word is not the label written.
    expect(nameOn(title('Weather forecasts and warnings from the KBSX desk today'), onKbs)).toEqual(
      domainNamed('Kbs'),
    );
  });

  it.each(['kbsworldlogo', 'site-logo', 'logo_main', 'logo'])(
    'does not take the alt text %j (a file or class name with the word logo) for a name',
    (alt) => {
      const onKbs = { pageUrl: 'https://world.kbs.co.kr/', body: headerLogo(alt) };
      expect(nameOn('', onKbs)).toEqual(domainNamed('Kbs'));
    },
  );

  it('still takes an alt text that writes the name with the word logo beside it', () => {
    expect(nameOn('', { pageUrl: 'https://world.kbs.co.kr/', body: headerLogo('KBS World logo') }).name).toBe(
      'KBS World',
    );
  });
});

describe("a name in the page's own script, beside its role word (the GB2312 note)", () => {
  it.each([
    ['腾讯首页', 'https://www.qq.com/', '腾讯'],
    ['小米官网', 'https://www.mi.com/', '小米'],
    ['楽天公式サイト', 'https://www.rakuten.example/', '楽天'],
    ['Acme Startseite', 'https://news.example/', 'Acme'],
  ])('%j on %s: the role word says the rest is the name', (text, pageUrl, name) => {
    expect(nameOn(title(text), { pageUrl })).toEqual({ name, source: 'title', confidence: 'low' });
  });

  it('a role word does not make a long title a name', () => {
    expect(
      nameOn(title('Die besten Widgets für jedes Zuhause Startseite'), { pageUrl: 'https://news.example/' }),
    ).toEqual(domainNamed('News'));
  });
});
