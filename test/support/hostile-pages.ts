import fc from 'fast-check';
import { LIMITS } from '../../shared/limits.ts';

/**
 * Pages a hostile site could serve to auto-configure, each of the largest size it reads (5 MiB) unless a smaller
 * size is asked for: long whitespace runs in the title, an alt text and meta tags; deep and unclosed nesting; huge
 * attributes; thousands of candidate images and links; long CSS; a huge JSON-LD block; a title of separators, JSON-LD
 * nested deep and names given thousands of times; and a huge web manifest. Shared by
 * test/tenant-isolation/auto-configure.services.test.ts, the fuzz and the bench's CPU section (bench/autoconfigure-cpu.ts).
 */

export const LARGEST_PAGE_BYTES = LIMITS.autoConfigurePageBytes;

export interface HostilePage {
  /** What the page does, for test and bench names. */
  name: string;
  /** `size` characters of HTML (one byte each: ASCII), at most. */
  html: (size?: number) => string;
  /** The web manifest the page links to at /site.webmanifest, when it has one. */
  manifest?: (size?: number) => string;
}

const HEAD = '<!doctype html><html><head>';

/** `unit` repeated to fill what is left of `size` after `before` and `after`. */
function fill(before: string, unit: string, after: string, size: number): string {
  const count = Math.max(0, Math.floor((size - before.length - after.length) / unit.length));
  return before + unit.repeat(count) + after;
}

/** Elements in one page that stay within the element bound, with room for the page's own. */
const MANY = LIMITS.autoConfigurePageElements - 100;

function repeated(count: number, item: (index: number) => string): string {
  return Array.from({ length: count }, (_, index) => item(index)).join('');
}

const KINDS: readonly HostilePage[] = [
  {
    // A title of `a` + 100,000 spaces + `b` took 35.6 s; here as long as the page may be.
    name: 'title of a + spaces + b',
    html: (size = LARGEST_PAGE_BYTES) =>
      fill(`${HEAD}<title>a`, ' ', 'b</title></head><body></body></html>', size),
  },
  {
    name: 'header logo alt of a + spaces + b',
    html: (size = LARGEST_PAGE_BYTES) =>
      fill(
        `${HEAD}</head><body><header><img class="logo" src="/logo.png" alt="Logo a`,
        ' ',
        'b"></header></body></html>',
        size,
      ),
  },
  {
    name: 'meta tags of whitespace runs',
    html: (size = LARGEST_PAGE_BYTES) => {
      const run = ' \t\n'.repeat(Math.floor(size / 3 / 5));
      const metas = ['og:site_name', 'og:description', 'twitter:site', 'theme-color']
        .map((key) => `<meta property="${key}" content="a${run}b">`)
        .join('');
      return `${HEAD}${metas}<title>a${run}-${run}b</title></head><body></body></html>`.slice(0, size);
    },
  },
  {
    // Nesting: 40,000 deep took 11.8 s; here as deep as the page allows.
    name: '<div> nested as deep as the page allows',
    html: (size = LARGEST_PAGE_BYTES) => fill(HEAD, '<div>', '', size),
  },
  {
    // Never closed, yet never past the depth bound: each <span> is left open inside the <div> that the </div>
    // cannot close (the parser closes only the innermost element), so the parser's clean-up moves every one.
    name: 'unclosed <span> in every <div>',
    html: (size = LARGEST_PAGE_BYTES) => fill(`${HEAD}<body>`, '<div><span></div>', '', size),
  },
  {
    name: 'elements left open under the depth bound, thousands of children each',
    html: (size = LARGEST_PAGE_BYTES) =>
      `${HEAD}<body>${'<section>'.repeat(LIMITS.autoConfigurePageDepth - 10)}${repeated(MANY - LIMITS.autoConfigurePageDepth, () => '<i></i>')}`.slice(
        0,
        size,
      ),
  },
  {
    name: 'empty elements filling the page',
    html: (size = LARGEST_PAGE_BYTES) => fill(`${HEAD}<body>`, '<i></i>', '</body></html>', size),
  },
  {
    name: 'unterminated comments',
    html: (size = LARGEST_PAGE_BYTES) =>
      fill(`${HEAD}<title>Comments</title></head><body>`, '<!--', '', size),
  },
  {
    name: 'huge attributes on the header, its links and its logo',
    html: (size = LARGEST_PAGE_BYTES) => {
      const quarter = Math.floor(size / 4);
      const tokens = 'site-header__x '.repeat(Math.floor(quarter / 15));
      const links = repeated(
        1000,
        (index) => `<a href="https://x.com/brand${index}" class="${'a '.repeat(200)}">x</a>`,
      );
      return (
        `${HEAD}<link rel="icon" sizes="${'1'.repeat(quarter)}" href="/icon.png"></head><body>` +
        `<div class="${tokens}"><div id="${'logo'.repeat(Math.floor(quarter / 8))}">` +
        `<img src="/logo.png" alt="${'logo '.repeat(Math.floor(quarter / 10))}">${links}</div></div></body></html>`
      ).slice(0, size);
    },
  },
  {
    name: 'thousands of candidate logo images in the header',
    html: (size = LARGEST_PAGE_BYTES) =>
      `${HEAD}</head><body><header class="logo"><picture>${repeated(MANY / 2, (index) => `<img class="logo" src="/l${index}.png" alt="Logo Brand ${index % 7}">`)}</picture></header></body></html>`.slice(
        0,
        size,
      ),
  },
  {
    name: 'thousands of links and icons',
    html: (size = LARGEST_PAGE_BYTES) =>
      `${HEAD}${repeated(MANY / 4, (index) => `<link rel="icon apple-touch-icon me" sizes="${index}x${index}" href="/i${index}.png">`)}` +
      `${repeated(MANY / 4, (index) => `<meta name="theme-color" content="#${(index % 4096).toString(16).padStart(3, '0')}" media="(prefers-color-scheme: dark)">`)}` +
      `</head><body><footer>${repeated(MANY / 2 - 10, (index) => `<a href="https://twitter.com/brand${index}">@brand</a>`)}</footer></body></html>`.slice(
        0,
        size,
      ),
  },
  {
    // An image a link home holds is a logo candidate (each a walk up 500 <div>s, were it not cached), and an
    // icon without sizes is ranked by the size in its file name.
    name: 'thousands of images linking home under deep <div>s, and icons sized by their names',
    html: (size = LARGEST_PAGE_BYTES) => {
      const depth = LIMITS.autoConfigurePageDepth - 12;
      const icons = repeated(
        MANY / 5,
        (index) => `<link rel="icon apple-touch-icon" href="/apple-touch-icon-${index}x${index}.png">`,
      );
      const links = repeated(MANY / 5, () => '<a href="/"><picture><img src="/l.png"></picture></a>');
      return `${HEAD}${icons}</head><body>${'<div>'.repeat(depth)}${links}${'</div>'.repeat(depth)}</body></html>`.slice(
        0,
        size,
      );
    },
  },
  {
    name: 'very long CSS: style blocks, style attributes and theme colours',
    html: (size = LARGEST_PAGE_BYTES) => {
      const quarter = Math.floor(size / 4);
      const css = '.a{color:rgb(1,2,3)}'.repeat(Math.floor(quarter / 20));
      return (
        `${HEAD}<style>${css}</style><style>${css}` +
        `<meta name="theme-color" content="rgb(${' '.repeat(quarter / 2)}1">` +
        `<meta name="msapplication-TileColor" content="#${'f'.repeat(quarter / 2)}">` +
        `</head><body style="${'color:red;'.repeat(Math.floor(quarter / 10))}"></body></html>`
      ).slice(0, size);
    },
  },
  {
    name: 'huge JSON-LD',
    html: (size = LARGEST_PAGE_BYTES) => {
      const prefix = `${HEAD}<script type="application/ld+json">{"@context":"https://schema.org","@graph":[`;
      const suffix = ']}</script></head><body></body></html>';
      const node = (index: number) =>
        `{"@type":"Organization","@id":"#o${index}","name":"Brand ${index}","url":"https://example.com/","sameAs":["https://x.com/b${index}"],"publisher":{"@id":"#o${index + 1}"}},`;
      const count = Math.floor((size - prefix.length - suffix.length) / node(99_999).length);
      return `${prefix}${repeated(count, node)}{"@type":"WebSite"}${suffix}`;
    },
  },
  {
    // One element, so the complexity check passes it, and a separator every four characters, so
    // that whole-text work on it (a whitespace collapse, a split) costs more than a plain run's.
    name: 'title of "a | " repeated',
    html: (size = LARGEST_PAGE_BYTES) =>
      fill(`${HEAD}<title>`, 'a | ', 'a</title></head><body></body></html>', size),
  },
  {
    // JSON-LD is no element either; a block of arrays nested as deep as the page allows.
    name: 'JSON-LD array nested as deep as the page allows',
    html: (size = LARGEST_PAGE_BYTES) => {
      const prefix = `${HEAD}<title>Brand</title><script type="application/ld+json">`;
      const suffix = '</script></head><body></body></html>';
      const depth = Math.floor((size - prefix.length - suffix.length) / 2);
      return `${prefix}${'['.repeat(depth)}${']'.repeat(depth)}${suffix}`;
    },
  },
  {
    // Each text short, but thousands of them read for the site's name, each split into many parts.
    name: 'names given thousands of times, each of many parts: og:site_name and header logo alt texts',
    html: (size = LARGEST_PAGE_BYTES) => {
      const each = MANY / 2 - 10;
      // What is left of each text's share of the page after its tag (about 48 characters).
      const text = 'a | b | '.repeat(Math.max(1, Math.floor((size - 200) / (2 * each) / 8) - 6));
      return (
        `${HEAD}${repeated(each, () => `<meta property="og:site_name" content="${text}">`)}</head><body>` +
        `<header>${repeated(each, () => `<img class="logo" src="/l.png" alt="${text}">`)}</header></body></html>`
      ).slice(0, size);
    },
  },
  {
    name: 'huge web manifest',
    html: () =>
      `${HEAD}<link rel="manifest" href="/site.webmanifest"><title>Brand</title></head><body></body></html>`,
    manifest: (size = LARGEST_PAGE_BYTES) => {
      const icon = '{"src":"/i.png","sizes":"512x512","purpose":"any"},';
      const prefix = `{"name":"Brand","theme_color":"rgb(${' '.repeat(1000)}1","icons":[`;
      return `${fill(prefix, icon, '{"src":"/last.png"}]}', size)}`;
    },
  },
];

/** Each kind at exactly `size` characters: one whose elements end sooner is padded with plain text. */
export const HOSTILE_PAGES: readonly HostilePage[] = KINDS.map((kind) => ({
  ...kind,
  html: (size = LARGEST_PAGE_BYTES) => {
    const text = kind.html(size);
    return text.length >= size
      ? text.slice(0, size)
      : `${text}${'lorem ipsum '.repeat(size).slice(0, size - text.length)}`;
  },
}));

/** A page and its manifest (null: the page links none), as the fuzz generates them. */
export interface GeneratedPage {
  html: string;
  manifest: string | null;
}

/**
 * Random hostile pages for the fuzz: a few of the pieces below, each repeated or stretched up to `maxRun`
 * characters (whitespace runs, repeated tags, long attributes, CSS, JSON-LD), and sometimes a hostile manifest.
 */
export function hostilePageArbitrary(maxRun = 20_000): fc.Arbitrary<GeneratedPage> {
  const length = fc.integer({ min: 0, max: maxRun });
  const count = fc.integer({ min: 1, max: 3000 });
  const whitespace = fc.constantFrom(' ', '\t', '\n', '\u3000', '\u00a0', ' \u3000', ' -', ' | ', ': ', '_ ');
  const run = fc.tuple(whitespace, length).map(([unit, size]) => unit.repeat(Math.ceil(size / unit.length)));
  const attribute = fc.constantFrom(
    'class',
    'id',
    'alt',
    'href',
    'sizes',
    'media',
    'style',
    'content',
    'rel',
  );
  const attributeUnit = fc.constantFrom(
    'x',
    '1',
    '1x',
    'logo ',
    'header ',
    ' ',
    '"',
    "'",
    'rgb(',
    '>',
    '<a ',
  );
  const tag = fc.constantFrom(
    '<div>',
    '<span>',
    '<div><span></div>',
    '<p>',
    '<li>',
    '<a href=x/>',
    '<table><tr><td>',
    '<title>',
    '<picture>',
    '</div>',
    '<b><i>',
    '<script>',
    '<!--',
    '<![CDATA[',
  );
  const piece = fc.oneof(
    run.map((text) => `<title>a${text}b</title>`),
    run.map((text) => `<header><img class="logo" alt="Logo${text}x" src="/l.png"></header>`),
    fc
      .tuple(fc.constantFrom('og:site_name', 'description', 'theme-color', 'twitter:site', 'og:image'), run)
      .map(([key, text]) => `<meta name="${key}" content="a${text}b">`),
    fc.tuple(tag, count).map(([open, times]) => open.repeat(times)),
    fc
      .tuple(attribute, attributeUnit, length)
      .map(([name, unit, times]) => `<link rel="icon me" ${name}="${unit.repeat(times)}" href="/i.png">`),
    fc
      .tuple(attribute, attributeUnit, length)
      .map(
        ([name, unit, times]) =>
          `<nav><a href="https://x.com/brand" ${name}="${unit.repeat(times)}">x</a></nav>`,
      ),
    count.map((times) =>
      repeated(
        times,
        (index) => `<header><img class="logo" src="/l${index}.png" alt="Brand ${index % 5}"></header>`,
      ),
    ),
    count.map(
      (times) =>
        `<footer>${repeated(times, (index) => `<a href="https://github.com/b${index}">b</a>`)}</footer>`,
    ),
    length.map((times) => `<style>${'.a{color:rgb(1,2,3)}'.repeat(times)}</style>`),
    length.map((spaces) => `<meta name="theme-color" content="rgb(${' '.repeat(spaces)}1">`),
    count.map(
      (nodes) =>
        `<script type="application/ld+json">{"@graph":[${repeated(nodes, (index) => `{"@type":"Organization","@id":"#${index % 50}","name":"B${index}","publisher":{"@id":"#${index + 1}"}},`)}{}]}</script>`,
    ),
    length.map((depth) => `<script type="application/ld+json">${'['.repeat(depth)}</script>`),
  );
  const manifest = fc.option(
    fc.oneof(
      count.map(
        (icons) =>
          `{"name":"B","icons":[${repeated(icons, (index) => `{"src":"/i${index}.png","sizes":"${index}x${index}"},`)}{}]}`,
      ),
      length.map((spaces) => `{"name":"a${' '.repeat(spaces)}b","theme_color":"rgb(${' '.repeat(spaces)}"}`),
      length.map((depth) => `${'{"a":'.repeat(depth)}1`),
    ),
  );
  return fc
    .tuple(fc.array(piece, { minLength: 1, maxLength: 6 }), manifest)
    .map(([pieces, manifestText]) => ({
      html: `${HEAD}${manifestText === null ? '' : '<link rel="manifest" href="/site.webmanifest">'}${pieces.join('')}`,
      manifest: manifestText,
    }));
}
