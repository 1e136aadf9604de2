import fc from 'fast-check';
import { parse } from 'node-html-parser';
import { describe, expect, it } from 'vitest';
import { autoConfiguration } from '../../../shared/autoconfigure/extract.ts';
import { clippedText, fieldText, parsePage } from '../../../shared/autoconfigure/html-document.ts';
import { readJsonLd } from '../../../shared/autoconfigure/json-ld.ts';
import { JSON_BOUNDS, type JsonExtent, jsonExtent } from '../../../shared/autoconfigure/json-values.ts';
import { attributeOf, clipped, textOf } from '../../../shared/autoconfigure/third-party-text.ts';
import { readWebManifest } from '../../../shared/autoconfigure/web-manifest.ts';
import { LIMITS } from '../../../shared/limits.ts';
import { HOSTILE_PAGES } from '../../support/hostile-pages.ts';

/**
 * Someone else's text is clipped before any work over the whole of it, and JSON is measured before it is
 * parsed (shared/autoconfigure/third-party-text.ts, json-values.ts). What each bound keeps and what a page past it
 * answers, asserted on outcomes; the CPU a page costs is in `npm run bench` (section 7).
 */

const SEED = 20261207;
const PAGE_URL = 'https://brand.example/';
const RAW = LIMITS.autoConfigureRawTextLength;
const READ = LIMITS.autoConfigureTextLength;
const UNBOUNDED: JsonExtent = { depth: Number.POSITIVE_INFINITY, values: Number.POSITIVE_INFINITY };

/** What clippedText and fieldText answered before the cut: the whole text collapsed, then cut. */
const collapsedThenCut = (raw: string) => clipped(raw.replace(/[^\S\u3000]+/g, ' '), READ);
function fieldTextOfWholeText(raw: string): string | null {
  const text = raw.replace(/\s+/g, ' ').trim();
  if (text === '') return null;
  if (text.length <= 255) return text;
  const cut = text.slice(0, 256);
  const lastSpace = cut.lastIndexOf(' ');
  const shortened = lastSpace > 255 / 2 ? cut.slice(0, lastSpace) : cut.slice(0, 255);
  return shortened.replace(/[\uD800-\uDBFF]$/, '').replace(/[\s,;:|–—-]+$/, '');
}

/**
 * Texts up to about three times autoConfigureRawTextLength, of runs of whitespace (U+3000 among it), words,
 * separators and astral characters: both long whitespace runs and texts that fill the read length.
 */
const longText = fc
  .array(
    fc.tuple(
      fc.constantFrom(' ', '\t\n', '\u3000', '\u00a0', 'a', 'Brand ', ' | ', '😀', 'é', '\u{1F600} x'),
      fc.integer({ min: 1, max: 40_000 }),
    ),
    { maxLength: 12 },
  )
  .map((runs) => runs.map(([unit, count]) => unit.repeat(count)).join(''));

/** The depth JSON.parse gives a value: 0 for a scalar, 1 for `[]` or `{}`. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

/** Arrays and objects, and each element or member after the first in them. */
function valuesOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return (
    1 + Math.max(0, children.length - 1) + children.reduce((sum: number, child) => sum + valuesOf(child), 0)
  );
}

// Strings full of what the scan must not count: brackets, commas, quotes and backslashes (JSON.stringify escapes
// the last two).
const trickyString = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', ',', '"', '\\', ':', 'a', ' ') });
const { json: jsonValue } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    trickyString,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('json')),
    fc.dictionary(trickyString, tie('json')),
  ),
}));

describe('clipped: the one cut every third-party text passes', () => {
  it('keeps a text within the bound as it is, and cuts a longer one to a prefix never ending in half a character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 1, max: 40 }), (text, length) => {
        const cut = clipped(text, length);
        if (text.length <= length) expect(cut).toBe(text);
        else {
          expect(text.startsWith(cut)).toBe(true);
          expect(cut.length).toBeGreaterThanOrEqual(length - 1);
          expect(cut.length).toBeLessThanOrEqual(length);
          // A pair cut in two would leave its high surrogate last and its low one first of the rest.
          expect(/[\uD800-\uDBFF]$/.test(cut) && /^[\uDC00-\uDFFF]/.test(text.slice(cut.length))).toBe(false);
        }
      }),
      { seed: SEED, numRuns: 500 },
    );
    expect(clipped('a😀', 2)).toBe('a');
    expect(clipped('x'.repeat(RAW + 10))).toHaveLength(RAW);
  });

  it('clippedText answers what collapsing the whole text did whenever the clipped text fills the read length, and a prefix of it otherwise', () => {
    fc.assert(
      fc.property(longText, (text) => {
        const before = collapsedThenCut(text);
        const now = clippedText(text);
        const fills = text.length <= RAW || clipped(text).replace(/[^\S\u3000]+/g, ' ').length >= READ;
        if (fills) expect(now).toBe(before);
        else expect(before.startsWith(now)).toBe(true);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('fieldText answers what it did over the whole text whenever the clipped text fills a name', () => {
    fc.assert(
      fc.property(longText, (text) => {
        const fills = text.length <= RAW || clipped(text).replace(/\s+/g, ' ').trim().length > 255;
        if (fills) expect(fieldText(text)).toBe(fieldTextOfWholeText(text));
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('a title of a, 100,000 spaces and b is still read whole (it fits the cut)', () => {
    expect(clippedText(`a${' '.repeat(100_000)}b`)).toBe('a b');
  });

  it('a text past the cut is read as its start: a, 200,000 spaces and b is "a "', () => {
    expect(clippedText(`a${' '.repeat(200_000)}b`)).toBe('a ');
    expect(fieldText(`a${' '.repeat(200_000)}b`)).toBe('a');
  });

  it('attributeOf gives an attribute clipped, decoded as getAttribute does, and undefined when absent', () => {
    const meta = parse(`<meta content="&amp;${'x'.repeat(RAW)}">`).querySelector('meta');
    expect(meta === null ? null : attributeOf(meta, 'content')).toBe(`&${'x'.repeat(RAW - 1)}`);
    expect(meta === null ? null : attributeOf(meta, 'name')).toBeUndefined();
  });

  it("textOf decodes an element's text as element.text does, entities included", () => {
    const entity = fc.constantFrom('&amp;', '&nbsp;', '&#x1F600;', '&lt;', '&eacute;', '&amp', 'a', ' ', '|');
    fc.assert(
      fc.property(fc.array(entity, { maxLength: 40 }), (parts) => {
        const title = parse(`<title>${parts.join('')}</title>`).querySelector('title');
        expect(title).not.toBeNull();
        if (title !== null) expect(textOf(title)).toBe(title.text);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('textOf decodes only the clipped start of a long text', () => {
    const title = parse(`<title>${'&amp;'.repeat(RAW)}</title>`).querySelector('title');
    // RAW characters of `&amp;` hold RAW / 5 whole entities and the start of one more, kept as written.
    expect(title === null ? null : textOf(title)).toBe(
      `${'&'.repeat(Math.floor(RAW / 5))}${'&amp;'.slice(0, RAW % 5)}`,
    );
  });
});

describe('jsonExtent: the scan before JSON.parse', () => {
  it('finds the depth JSON.parse gives, and the values it builds, for any JSON: compact, pretty or with tricky strings', () => {
    fc.assert(
      fc.property(jsonValue, fc.constantFrom(undefined, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(jsonExtent(text, UNBOUNDED)).toEqual({ depth: depthOf(value), values: valuesOf(value) });
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('stops at the first bound passed: null exactly when the JSON nests deeper or holds more values', () => {
    fc.assert(
      fc.property(
        jsonValue,
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 30 }),
        (value, depth, values) => {
          const text = JSON.stringify(value);
          const past = depthOf(value) > depth || valuesOf(value) > values;
          expect(jsonExtent(text, { depth, values }) === null).toBe(past);
        },
      ),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('skips escaped quotes and backslashes inside strings', () => {
    expect(jsonExtent(String.raw`["\"[[[", "\\", [{"a\\\"]": "}"}]]`, UNBOUNDED)).toEqual({
      depth: 3,
      values: 5,
    });
  });
});

describe('JSON-LD and the manifest past their bounds are ignored, as unparsable ones are', () => {
  const organization = (extra = '') =>
    `{"@type":"Organization","name":"Acme Widgets","url":"${PAGE_URL}"${extra}}`;
  const jsonLdName = (...blocks: string[]) => {
    const scripts = blocks.map((block) => `<script type="application/ld+json">${block}</script>`).join('');
    return readJsonLd(parsePage(`<html><head>${scripts}</head></html>`, PAGE_URL).root, new URL(PAGE_URL))
      .organization?.name;
  };
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it(`reads a block nested ${LIMITS.autoConfigureJsonDepth} deep, ignores one nested deeper`, () => {
    const depth = LIMITS.autoConfigureJsonDepth;
    // The organisation is one level; its `x` holds the rest.
    expect(jsonLdName(organization(`,"x":${nested(depth - 1)}`))).toBe('Acme Widgets');
    expect(jsonLdName(organization(`,"x":${nested(depth)}`))).toBeUndefined();
    expect(jsonLdName(`${nested(depth + 1)}`, organization())).toBe('Acme Widgets');
  });

  it(`counts the values of a page's blocks together, at most ${LIMITS.autoConfigureJsonValues.toLocaleString('en-US')}, in page order`, () => {
    // The array and each element after a comma.
    const filler = (values: number) => `[${'0,'.repeat(values - 1)}0]`;
    expect(jsonExtent(filler(1000), UNBOUNDED)?.values).toBe(1000);
    const own = jsonExtent(organization(), UNBOUNDED)?.values ?? 0;
    // Room left for the organisation: read; one value short: ignored.
    expect(jsonLdName(filler(JSON_BOUNDS.values - own), organization())).toBe('Acme Widgets');
    expect(jsonLdName(filler(JSON_BOUNDS.values - own + 1), organization())).toBeUndefined();
    // A block past the bound uses none of it: the blocks after it are read.
    expect(jsonLdName(filler(JSON_BOUNDS.values + 1), organization())).toBe('Acme Widgets');
  });

  it('ignores a manifest nested or filled past the bounds', () => {
    const manifest = (extra: string) => `{"name":"Acme Widgets","x":${extra}}`;
    const name = (text: string) => readWebManifest(text, `${PAGE_URL}site.webmanifest`)?.name ?? null;
    expect(name(manifest(nested(LIMITS.autoConfigureJsonDepth - 1)))).toBe('Acme Widgets');
    expect(name(manifest(nested(LIMITS.autoConfigureJsonDepth)))).toBeNull();
    expect(name(manifest(`[${'{},'.repeat(LIMITS.autoConfigureJsonValues)}{}]`))).toBeNull();
  });
});

describe('names: the first autoConfigureNameTextsPerSource texts of each source are read', () => {
  const metas = (values: string[]) =>
    values.map((value) => `<meta property="og:site_name" content="${value}">`).join('');
  const nameOf = (values: string[]) =>
    autoConfiguration(parsePage(`<html><head>${metas(values)}</head></html>`, PAGE_URL)).suggestions.name;
  // A URL names nothing (title-name.ts): the tags before the name give no name of their own.
  const urls = (count: number) => Array.from({ length: count }, (_, index) => `https://x${index}.example/`);

  it(`reads og:site_name number ${LIMITS.autoConfigureNameTextsPerSource}, not the one after`, () => {
    const per = LIMITS.autoConfigureNameTextsPerSource;
    expect(nameOf([...urls(per - 1), 'Acme Widgets'])).toBe('Acme Widgets');
    // The domain label's name, when og:site_name gives none.
    expect(nameOf([...urls(per), 'Acme Widgets'])).toBe('Brand');
  });
});

describe('the hostile pages of the text and JSON bounds, at the largest size read', () => {
  const pageNamed = (name: string) => {
    const page = HOSTILE_PAGES.find((hostile) => hostile.name === name);
    if (page === undefined) throw new Error(`no hostile page named ${name}`);
    return page;
  };
  const answer = (html: string) => autoConfiguration(parsePage(html, PAGE_URL));

  it('a title of "a | " repeated names the site "a", as a short page of the same title does', () => {
    const page = pageNamed('title of "a | " repeated');
    const whole = answer(page.html());
    expect(whole.suggestions.name).toBe('a');
    expect(whole.sources.name).toBe('title');
    expect(whole).toEqual(answer(page.html(20_000)));
  });

  it('names given thousands of times, each of many parts: the first name of og:site_name', () => {
    const whole = answer(
      pageNamed(
        'names given thousands of times, each of many parts: og:site_name and header logo alt texts',
      ).html(),
    );
    expect(whole.suggestions.name).toBe('a');
    expect(whole.sources.name).toBe('og:site_name');
  });

  it('a JSON-LD array nested as deep as the page allows is ignored: the answer of the page without it', () => {
    const html = pageNamed('JSON-LD array nested as deep as the page allows').html();
    const withoutBlock = html.replace(/<script type="application\/ld\+json">[[\]]*<\/script>/, '');
    expect(withoutBlock.length).toBeLessThan(1000);
    expect(answer(html)).toEqual(answer(withoutBlock));
    expect(answer(html).suggestions.name).toBe('Brand');
  });
});
