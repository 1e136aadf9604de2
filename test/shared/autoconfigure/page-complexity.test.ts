import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { HTMLElement, parse } from 'node-html-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { autoConfiguration } from '../../../shared/autoconfigure/extract.ts';
import { parsePage } from '../../../shared/autoconfigure/html-document.ts';
import {
  assertParseable,
  MARKUP_PATTERN,
  MARKUP_PATTERN_WITH_CDATA,
} from '../../../shared/autoconfigure/page-complexity.ts';
import { titleNames } from '../../../shared/autoconfigure/title-name.ts';
import { readWebManifest } from '../../../shared/autoconfigure/web-manifest.ts';
import { LIMITS } from '../../../shared/limits.ts';
import { FetchRefusal } from '../../../shared/outbound/refusal.ts';
import { HOSTILE_PAGES, hostilePageArbitrary } from '../../support/hostile-pages.ts';

/**
 * The page's parse is replayed before it is done (shared/autoconfigure/page-complexity.ts): the replay must count
 * what node-html-parser really does, or its bounds bound nothing. The parser is wrapped (never replaced) to count
 * the nodes it appends and the children it passes over while closing elements left open.
 */

const SEED = 20261129;
const PAGE_URL = 'https://example.com/';

describe('the replay is node-html-parser’s own parse', () => {
  it('uses the tokenizer of the installed node-html-parser, character for character', () => {
    const dist = readFileSync(createRequire(import.meta.url).resolve('node-html-parser'), 'utf8');
    const installed = (name: string) => {
      const literal = new RegExp(`const ${name} = /(.+)/gu;\\n`).exec(dist)?.[1];
      return literal === undefined ? undefined : new RegExp(literal, 'gu').source;
    };
    expect(MARKUP_PATTERN.source).toBe(installed('kMarkupPattern'));
    expect(MARKUP_PATTERN_WITH_CDATA.source).toBe(installed('kMarkupPatternWithCDATA'));
  });

  describe('counts what the parser does', () => {
    const counts = { appended: 0, scanned: 0 };
    const prototype = HTMLElement.prototype;
    const { appendChild, removeChild } = prototype;
    beforeEach(() => {
      prototype.appendChild = function (this: HTMLElement, node) {
        counts.appended++;
        return appendChild.call(this, node);
      } as typeof appendChild;
      prototype.removeChild = function (this: HTMLElement, node) {
        counts.scanned += this.childNodes.length;
        return removeChild.call(this, node);
      } as typeof removeChild;
    });
    afterEach(() => {
      prototype.appendChild = appendChild;
      prototype.removeChild = removeChild;
    });

    const soup = fc.constantFrom(
      ...'<div> </div> <p> </p> <li> <ul> </ul> <span> </span> text <a href=x/> <br> <img/> <script> </script> <!-- --> <table> <tr> <td> </table> <DIV> </Div> <b> <i> </I> <pre> <![CDATA[ ]]> <dl> <dt> <dd> </dl> <h1> <a > " \' <x/> <P> </a> <audio> </audio> <Img> <documentfragmentcontainer>'.split(
        ' ',
      ),
      ' ',
    );

    it('the same appends and the same passes over child lists, for any tag soup', () => {
      fc.assert(
        fc.property(fc.array(soup, { maxLength: 80 }), (parts) => {
          const html = parts.join('');
          const work = assertParseable(html);
          counts.appended = 0;
          counts.scanned = 0;
          parse(html);
          expect(counts).toEqual({ appended: work.nodes + work.reparented, scanned: work.scanned });
        }),
        { seed: SEED, numRuns: 3000 },
      );
    });

    it.each([
      ['nesting', '<div>'.repeat(300), 300],
      ['an unclosed <span> in each <div>', '<div><span></div>'.repeat(100), 200],
    ])('the depth of %s', (_name, html, depth) => {
      expect(assertParseable(html).depth).toBe(depth);
    });
  });
});

describe('bounds', () => {
  const refusal = (html: string) => {
    try {
      assertParseable(html);
      return null;
    } catch (error) {
      expect(error).toBeInstanceOf(FetchRefusal);
      return { reason: (error as FetchRefusal).reason, message: (error as FetchRefusal).message };
    }
  };

  it('elements: at the bound read, one more refused', () => {
    expect(refusal('<br>'.repeat(LIMITS.autoConfigurePageElements))).toBeNull();
    expect(refusal('<br>'.repeat(LIMITS.autoConfigurePageElements + 1))).toEqual({
      reason: 'too_complex',
      message: 'page is too complex to read (more than 30,000 elements)',
    });
  });

  it('nesting depth: at the bound read, one deeper refused', () => {
    const nested = (depth: number) => `${'<div>'.repeat(depth)}${'</div>'.repeat(depth)}`;
    expect(assertParseable(nested(LIMITS.autoConfigurePageDepth)).depth).toBe(LIMITS.autoConfigurePageDepth);
    expect(refusal(nested(LIMITS.autoConfigurePageDepth + 1))?.message).toBe(
      `page is too complex to read (elements nested more than ${LIMITS.autoConfigurePageDepth} deep)`,
    );
  });

  it('elements left open: a few read (as real pages leave them), their clean-up past the bound refused', () => {
    expect(assertParseable('<html><body><div><p>text').unclosedMoves).toBeGreaterThan(0);
    const open = `${'<section>'.repeat(400)}${'<i></i>'.repeat(10_000)}`;
    expect(refusal(open)).toEqual({
      reason: 'too_complex',
      message: 'page is too complex to read (too many elements left open)',
    });
    // The same page with its elements closed is read.
    expect(refusal(`${open}${'</section>'.repeat(400)}`)).toBeNull();
  });

  it('unterminated comments: the bound read, one more refused; terminated ones never count', () => {
    const comments = (count: number) => `<title>x</title>${'<!--'.repeat(count)}`;
    expect(assertParseable(comments(LIMITS.autoConfigureUnterminatedComments)).unterminated).toBe(16);
    expect(refusal(comments(LIMITS.autoConfigureUnterminatedComments + 1))?.message).toBe(
      'page is too complex to read (more than 16 unterminated comments)',
    );
    expect(assertParseable('<!-- a --><!-- b -->'.repeat(1000)).unterminated).toBe(0);
    expect(assertParseable('<![CDATA[ x'.repeat(3)).unterminated).toBe(3);
  });

  it('every real page is far inside every bound', () => {
    const dir = new URL('../../fixtures/real-sites/', import.meta.url);
    const pages = ['greatbritishchefs.html', 'theverge.html', 'github.html', 'rp-pl-windows-1250.html'];
    for (const name of pages) {
      const work = assertParseable(new TextDecoder('windows-1252').decode(readFileSync(new URL(name, dir))));
      expect(work.elements, name).toBeLessThan(LIMITS.autoConfigurePageElements / 10);
      expect(work.depth, name).toBeLessThan(LIMITS.autoConfigurePageDepth / 10);
      expect(work.unclosedMoves, name).toBeLessThan(LIMITS.autoConfigureUnclosedMoves / 100);
    }
  });
});

describe('patterns on long runs of someone else’s text', () => {
  it('a title is read with its whitespace runs as one space, and to 2,048 characters', () => {
    const names = titleNames(`Brand${' '.repeat(100_000)}Shop | Brand`).map(({ value }) => value);
    expect(names).toEqual(['Brand Shop', 'Brand']);
    // A separator made of U+3000 stays one.
    expect(titleNames('首页\u3000\u3000新浪网').map(({ value }) => value)).toEqual(['新浪网']);
    const long = titleNames(`${'word '.repeat(1000)}| Brand`);
    expect(long.map(({ value }) => value)).not.toContain('Brand');
  });
});

describe('hostile pages, in process', () => {
  it.each(HOSTILE_PAGES.map((page) => [page.name, page] as const))(
    '%s (at 512 KiB): suggestions or the refusal "too complex"',
    (_name, page) => {
      const outcome = readPage(page.html(512 * 1024), page.manifest?.(512 * 1024) ?? null);
      expect(['read', 'too_complex']).toContain(outcome);
    },
  );

  it('random hostile pages: suggestions or the refusal "too complex", never another error', () => {
    fc.assert(
      fc.property(hostilePageArbitrary(), ({ html, manifest }) => {
        expect(['read', 'too_complex']).toContain(readPage(html, manifest));
      }),
      { seed: SEED, numRuns: 60 },
    );
  });
});

/** What reading a page ends in: 'read', or the reason it was refused. */
function readPage(html: string, manifest: string | null): string {
  try {
    const page = parsePage(html, PAGE_URL);
    autoConfiguration(
      page,
      manifest === null ? null : readWebManifest(manifest, `${PAGE_URL}site.webmanifest`),
    );
    return 'read';
  } catch (error) {
    if (error instanceof FetchRefusal) return error.reason;
    throw error;
  }
}
