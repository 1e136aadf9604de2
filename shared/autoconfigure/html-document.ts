import { type HTMLElement, parse } from 'node-html-parser';

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

export function parsePage(html: string, pageUrl: string): ParsedPage {
  const root = parse(html);
  const url = new URL(pageUrl);
  const baseUrl = httpUrl(root.querySelector('base[href]')?.getAttribute('href'), url) ?? url;
  return { root, url, baseUrl, links: root.querySelectorAll('link[rel]') };
}

/** An absolute http(s) URL resolved against `base`, or null (also when longer than create-brand accepts). */
export function httpUrl(raw: string | null | undefined, base: URL): URL | null {
  const text = raw?.trim() ?? '';
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
      const keys = new Set([tag.getAttribute('property'), tag.getAttribute('name')].map(metaKey));
      for (const key of keys) {
        if (key !== '') this.#byKey.set(key, [...this.tags(key), tag]);
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
  return tag.getAttribute('content')?.trim() ?? '';
}

/** `<link>` elements whose rel has any of the given tokens. */
export function linksWithRel(page: ParsedPage, ...rels: string[]): HTMLElement[] {
  return page.links.filter((link) => relTokens(link).some((token) => rels.includes(token)));
}

export function relTokens(element: HTMLElement): string[] {
  return (element.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
}

// Class or id tokens like `footer`, `site-header`, `c-global-header__social`, `before-footer`, `footer-outer`.
const CHROME_TOKEN = /(?:^|[-_])(header|footer)(?:[-_]|$)/i;
// Content that speaks for someone else (quotes, embedded posts, articles such as a README) or is not shown.
const FOREIGN_TAGS = new Set(['blockquote', 'article', 'template']);

/**
 * Which part of the site's own chrome an element sits in: 'header' (a header or nav), 'footer', or null when it is
 * in the page content, or inside quoted, article or hidden content even if that is in turn inside a footer.
 */
export function siteChromeOf(element: HTMLElement): 'header' | 'footer' | null {
  let chrome: 'header' | 'footer' | null = null;
  for (let node: HTMLElement | null = element; node?.tagName; node = node.parentNode) {
    const tag = node.tagName.toLowerCase();
    if (FOREIGN_TAGS.has(tag) || node.hasAttribute('hidden')) return null;
    chrome ??= tag === 'nav' ? 'header' : tag === 'header' || tag === 'footer' ? tag : chromeTokenOf(node);
  }
  return chrome;
}

function chromeTokenOf(element: HTMLElement): 'header' | 'footer' | null {
  const tokens = `${element.getAttribute('class') ?? ''} ${element.id}`.split(/\s+/);
  for (const token of tokens) {
    const kind = CHROME_TOKEN.exec(token)?.[1]?.toLowerCase();
    if (kind === 'header' || kind === 'footer') return kind;
  }
  return null;
}

/** Collapses whitespace and cuts to create-brand's limit at a word boundary; null when nothing is left. */
export function fieldText(raw: string | null | undefined): string | null {
  const text = (raw ?? '').replace(/\s+/g, ' ').trim();
  if (text === '') return null;
  if (text.length <= MAX_FIELD_LENGTH) return text;
  const cut = text.slice(0, MAX_FIELD_LENGTH + 1);
  const lastSpace = cut.lastIndexOf(' ');
  // No usable word boundary (e.g. CJK text): cut hard, without splitting a surrogate pair.
  const clipped = lastSpace > MAX_FIELD_LENGTH / 2 ? cut.slice(0, lastSpace) : cut.slice(0, MAX_FIELD_LENGTH);
  return clipped.replace(/[\uD800-\uDBFF]$/, '').replace(/[\s,;:|–—-]+$/, '');
}

/** The colour scheme an element's `media` query is for (`(prefers-color-scheme: dark)`), or null for any. */
export function colorSchemeOf(element: HTMLElement): 'dark' | 'light' | null {
  const scheme = /prefers-color-scheme\s*:\s*(dark|light)/i.exec(element.getAttribute('media') ?? '')?.[1];
  return scheme === undefined ? null : (scheme.toLowerCase() as 'dark' | 'light');
}
