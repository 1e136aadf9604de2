import { type HTMLElement, parse } from 'node-html-parser';
import { LIMITS } from '../limits.ts';
import { assertParseable } from './page-complexity.ts';
import { attributeOf, clipped, idOf } from './third-party-text.ts';

/** Create-brand's limit for names, descriptions and every URL field. */
export const MAX_FIELD_LENGTH = 255;

/** A fetched page, parsed once and queried by every extractor. */
export interface ParsedPage {
  readonly root: HTMLElement;
  /** The page's final URL, after redirects. */
  readonly url: URL;
  /** What relative URLs resolve against: `<base href>` when present, else the page URL. */
  readonly baseUrl: URL;
  /** Every `<link rel>`, found once: icons, the manifest and mask-icon are all read from them. */
  readonly links: readonly HTMLElement[];
}

/** Parses a page, or refuses it (422 "too complex") when parsing it would cost more than the bounds allow. */
export function parsePage(html: string, pageUrl: string): ParsedPage {
  assertParseable(html);
  const root = parse(html);
  const url = new URL(pageUrl);
  const base = root.querySelector('base[href]');
  const baseUrl = (base === null ? null : httpUrl(attributeOf(base, 'href'), url)) ?? url;
  return { root, url, baseUrl, links: root.querySelectorAll('link[rel]') };
}

/** An absolute http(s) URL resolved against `base`, or null (also when longer than create-brand accepts). */
export function httpUrl(raw: string | null | undefined, base: URL): URL | null {
  const text = clipped(raw ?? '').trim();
  if (text === '' || !URL.canParse(text, base.href)) return null;
  const url = new URL(text, base);
  const isHttp = url.protocol === 'http:' || url.protocol === 'https:';
  return isHttp && url.href.length <= MAX_FIELD_LENGTH ? url : null;
}

/** Host without one leading www. or m.: the site a URL belongs to, for comparing sites and network hosts. */
export function siteHost(url: URL): string {
  return url.hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^(?:www|m)\./, '');
}

/** `<meta>` tags by lowercased `property` and `name` (sites mix them up), in document order. */
export class MetaTags {
  readonly #byKey = new Map<string, HTMLElement[]>();

  constructor(root: HTMLElement) {
    for (const tag of root.querySelectorAll('meta')) {
      const keys = new Set([attributeOf(tag, 'property'), attributeOf(tag, 'name')].map(metaKey));
      for (const key of keys) {
        if (key === '') continue;
        const tags = this.#byKey.get(key);
        if (tags === undefined) this.#byKey.set(key, [tag]);
        else tags.push(tag);
      }
    }
  }

  tags(key: string): HTMLElement[] {
    return this.#byKey.get(key) ?? [];
  }

  /** Non-empty `content` values of every tag named by any of `keys`, keys in priority order. */
  contents(...keys: string[]): string[] {
    return keys.flatMap((key) => this.tags(key).map(contentOf)).filter((content) => content !== '');
  }
}

function metaKey(attribute: string | undefined): string {
  return attribute?.trim().toLowerCase() ?? '';
}

export function contentOf(tag: HTMLElement): string {
  return attributeOf(tag, 'content')?.trim() ?? '';
}

/** `<link>` elements whose rel has any of the given tokens. */
export function linksWithRel(page: ParsedPage, ...rels: string[]): HTMLElement[] {
  return page.links.filter((link) => relTokens(link).some((token) => rels.includes(token)));
}

export function relTokens(element: HTMLElement): readonly string[] {
  let tokens = relTokensOf.get(element);
  if (tokens === undefined) {
    tokens = (attributeOf(element, 'rel') ?? '').toLowerCase().split(/\s+/);
    relTokensOf.set(element, tokens);
  }
  return tokens;
}

// Split once per element: every icon, the manifest link and the mask-icon are sought among the same links.
const relTokensOf = new WeakMap<HTMLElement, readonly string[]>();

// Class or id tokens like `footer`, `site-header`, `c-global-header__social`, `before-footer`, `footer-outer`.
const CHROME_TOKEN = /(?:^|[-_])(header|footer)(?:[-_]|$)/i;
// Content that speaks for someone else (quotes, embedded posts, articles such as a README) or is not shown.
export const FOREIGN_TAGS: ReadonlySet<string> = new Set(['blockquote', 'article', 'template']);

/**
 * Which part of the site's own chrome an element sits in: 'header' (a header or nav), 'footer', or null when it is
 * in the page content, or inside quoted, article or hidden content even if that is in turn inside a footer.
 */
export function siteChromeOf(element: HTMLElement): 'header' | 'footer' | null {
  const place = placeOf(element);
  return place.foreign ? null : place.chrome;
}

/** Where an element sits, from itself up: inside foreign content, and the nearest chrome (null for none). */
interface Place {
  foreign: boolean;
  chrome: 'header' | 'footer' | null;
}

// Each element's place, worked out once from its parent's: every img and link asks, so a walk up to the root for
// each would cost links × depth (and re-read every ancestor's class, however long).
const places = new WeakMap<HTMLElement, Place>();
const ROOT_PLACE: Place = { foreign: false, chrome: null };

function placeOf(element: HTMLElement): Place {
  return inherited(places, element, ROOT_PLACE, (place, node) => {
    const tag = node.tagName.toLowerCase();
    if (place.foreign || FOREIGN_TAGS.has(tag) || node.hasAttribute('hidden')) {
      return { foreign: true, chrome: null };
    }
    // The nearest chrome counts: a header inside a footer is the header.
    const own = tag === 'nav' ? 'header' : tag === 'header' || tag === 'footer' ? tag : chromeTokenOf(node);
    return own !== null && own !== place.chrome ? { foreign: false, chrome: own } : place;
  });
}

/**
 * A value each element derives from its parent's (`top` above the root), worked out once per element and
 * kept in `cache`: asked for thousands of elements, a walk up to the root for each would cost elements ×
 * depth. Walks up only to the nearest element already known, then down, caching each on the way.
 */
export function inherited<T>(
  cache: WeakMap<HTMLElement, T>,
  element: HTMLElement | null,
  top: T,
  derive: (parent: T, node: HTMLElement) => T,
): T {
  const unknown: HTMLElement[] = [];
  let value = top;
  for (let node = element; node?.tagName; node = node.parentNode) {
    const known = cache.get(node);
    if (known !== undefined) {
      value = known;
      break;
    }
    unknown.push(node);
  }
  for (const node of unknown.reverse()) {
    value = derive(value, node);
    cache.set(node, value);
  }
  return value;
}

/** 'header' or 'footer' when the element's class or id says it is one (`site-header`, `footer-outer`), else null. */
export function chromeTokenOf(element: HTMLElement): 'header' | 'footer' | null {
  const tokens = `${attributeOf(element, 'class') ?? ''} ${idOf(element)}`.split(/\s+/);
  for (const token of tokens) {
    const kind = CHROME_TOKEN.exec(token)?.[1]?.toLowerCase();
    if (kind === 'header' || kind === 'footer') return kind;
  }
  return null;
}

/**
 * Someone else's text (a title, an alt text) as the patterns read it: runs of whitespace but U+3000 (a title
 * separator of its own) collapsed to one space, then cut to autoConfigureTextLength characters, so that no pattern
 * runs over a long whitespace run or a whole page. The collapse runs on the text already clipped: collapsing a
 * text's start gives the start of its collapse, so the answer is the same whenever the clipped text collapses to
 * at least autoConfigureTextLength characters (or is not cut at all).
 */
export function clippedText(raw: string): string {
  return clipped(clipped(raw).replace(/[^\S\u3000]+/g, ' '), LIMITS.autoConfigureTextLength);
}

/** Collapses whitespace and cuts to create-brand's limit at a word boundary; null when nothing is left. */
export function fieldText(raw: string | null | undefined): string | null {
  // Clipped first, as clippedText: the first 256 characters, all that is read, are the same.
  const text = clipped(raw ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return null;
  if (text.length <= MAX_FIELD_LENGTH) return text;
  const cut = text.slice(0, MAX_FIELD_LENGTH + 1);
  const lastSpace = cut.lastIndexOf(' ');
  // No usable word boundary (e.g. CJK text): cut hard, without splitting a surrogate pair.
  const shortened =
    lastSpace > MAX_FIELD_LENGTH / 2 ? cut.slice(0, lastSpace) : cut.slice(0, MAX_FIELD_LENGTH);
  return shortened.replace(/[\uD800-\uDBFF]$/, '').replace(/[\s,;:|–—-]+$/, '');
}

/** The colour scheme an element's `media` query is for (`(prefers-color-scheme: dark)`), or null for any. */
export function colorSchemeOf(element: HTMLElement): 'dark' | 'light' | null {
  const scheme = /prefers-color-scheme\s*:\s*(dark|light)/i.exec(attributeOf(element, 'media') ?? '')?.[1];
  return scheme === undefined ? null : (scheme.toLowerCase() as 'dark' | 'light');
}
