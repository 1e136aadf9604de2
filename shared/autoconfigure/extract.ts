import { isIP } from 'node:net';
import type { HTMLElement } from 'node-html-parser';
import { socialNetworkOf } from '../domain/social-links.ts';
import { pickBrandColors } from './colors.ts';
import {
  contentOf,
  fieldText,
  httpUrl,
  linksWithRel,
  MAX_FIELD_LENGTH,
  MetaTags,
  type ParsedPage,
  relTokens,
  siteChromeOf,
} from './html-document.ts';
import { iconOf, isPngOrSvgIcon, largestIcon } from './icons.ts';
import { type JsonLdFacts, readJsonLd } from './json-ld.ts';
import { profileUrl, siteHost, twitterHandleUrl } from './social-profiles.ts';
import type { WebManifest } from './web-manifest.ts';

/** Suggested create-brand input. Every value is valid create-brand input as it stands; null when not derivable. */
export interface BrandSuggestions {
  website_url: string | null;
  name: string | null;
  short_description: string | null;
  primary_color: string | null;
  secondary_color: string | null;
  logo_image: string | null;
  logo_square_image: string | null;
  header_image: string | null;
  footer_image: string | null;
  social_share_image: string | null;
  /** Network name (socialNetworkOf) → profile URL. */
  social_links: Record<string, string> | null;
}

/** Everything extractors read, gathered once per page. */
interface Sources {
  page: ParsedPage;
  meta: MetaTags;
  jsonLd: JsonLdFacts;
  manifest: WebManifest | null;
}

/**
 * Brand suggestions from a parsed page (and its web manifest, when one was fetched). Pure: no I/O. Each field takes
 * the first usable value in its priority order (the functions below, each listing its sources best first).
 */
export function extractSuggestions(page: ParsedPage, manifest: WebManifest | null = null): BrandSuggestions {
  const sources: Sources = { page, meta: new MetaTags(page.root), jsonLd: readJsonLd(page.root), manifest };
  const name = nameOf(sources);
  const colors = pickBrandColors(colorCandidates(sources));
  return {
    website_url: httpUrl(page.url.origin, page.url)?.href ?? null,
    name,
    short_description: descriptionOf(sources),
    primary_color: colors.primary,
    secondary_color: colors.secondary,
    logo_image: horizontalLogoOf(sources),
    logo_square_image: squareLogoOf(sources),
    // No metadata names an email banner; anything else would be a guess from random body images.
    header_image: null,
    footer_image: null,
    social_share_image: shareImageOf(sources),
    social_links: socialLinksOf(sources, name),
  };
}

/** The page's `<link rel=manifest>`, resolved, if any. */
export function manifestUrlOf(page: ParsedPage): string | null {
  const link = linksWithRel(page.root, 'manifest')[0];
  return httpUrl(link?.getAttribute('href'), page.baseUrl)?.href ?? null;
}

function nameOf({ page, meta, jsonLd, manifest }: Sources): string | null {
  const label = domainLabelOf(page.url);
  return firstText([
    ...meta.contents('og:site_name', 'application-name'),
    jsonLd.organizationName,
    jsonLd.websiteName,
    manifest?.name,
    manifest?.shortName,
    siteNameInTitle(titleOf(page.root), label),
    label === null ? null : label.charAt(0).toUpperCase() + label.slice(1),
  ]);
}

function descriptionOf({ meta, jsonLd }: Sources): string | null {
  return firstText([
    ...meta.contents('og:description', 'description', 'twitter:description'),
    jsonLd.description,
  ]);
}

function colorCandidates({ page, meta, manifest }: Sources): string[] {
  // A dark-scheme theme colour is the site's dark mode, not its brand colour.
  const themeColors = meta
    .tags('theme-color')
    .filter((tag) => !/dark/i.test(tag.getAttribute('media') ?? ''));
  const maskIconColors = linksWithRel(page.root, 'mask-icon').map((link) => link.getAttribute('color') ?? '');
  return [
    ...themeColors.map(contentOf),
    ...meta.contents('msapplication-tilecolor'),
    ...maskIconColors,
    manifest?.themeColor ?? '',
    manifest?.backgroundColor ?? '',
  ];
}

function squareLogoOf({ page, jsonLd, manifest }: Sources): string | null {
  const appleTouchIcons = linksWithRel(page.root, 'apple-touch-icon', 'apple-touch-icon-precomposed');
  const pngOrSvgIcons = linksWithRel(page.root, 'icon').filter(isPngOrSvgIcon);
  return firstUrl(page.baseUrl, [
    largestIcon(appleTouchIcons.map(iconOf)),
    largestIcon(manifest?.icons.map((icon) => ({ href: icon.url.href, sizes: icon.sizes })) ?? []),
    jsonLd.logo?.isSquare ? jsonLd.logo.url : null,
    largestIcon(pngOrSvgIcons.map(iconOf)),
  ]);
}

function horizontalLogoOf({ page, meta, jsonLd }: Sources): string | null {
  const itempropLogos = page.root
    .querySelectorAll('[itemprop]')
    .filter((element) => (element.getAttribute('itemprop') ?? '').split(/\s+/).includes('logo'))
    .map(
      (element) =>
        element.getAttribute('src') ?? element.getAttribute('content') ?? element.getAttribute('href'),
    );
  const headerLogos = page.root
    .querySelectorAll('img')
    .filter((img) => siteChromeOf(img) === 'header' && mentionsLogo(img))
    .map((img) => img.getAttribute('src'));
  return firstUrl(page.baseUrl, [
    jsonLd.logo?.url,
    ...meta.contents('og:logo'),
    ...itempropLogos,
    ...headerLogos,
  ]);
}

function shareImageOf({ page, meta }: Sources): string | null {
  return firstUrl(
    page.baseUrl,
    meta.contents('og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src'),
  );
}

/**
 * Profiles in priority order: JSON-LD sameAs, twitter:site, rel=me, then links in the site's header and footer.
 * The first profile found for a network wins; links back to the site itself are navigation, not profiles.
 */
function socialLinksOf({ page, meta, jsonLd }: Sources, name: string | null): Record<string, string> | null {
  // Declared profiles (sameAs, rel=me) may be on any network; found links must be on a known one.
  const candidates = [
    ...jsonLd.sameAs.map((href) => ({ href, anyHost: true })),
    ...twitterSiteLinks(meta, page.url, name).map((href) => ({ href, anyHost: false })),
    ...relMeLinks(page.root).map((href) => ({ href, anyHost: true })),
    ...chromeLinks(page.root).map((href) => ({ href, anyHost: false })),
  ];
  const links: Record<string, string> = {};
  for (const { href, anyHost } of candidates) {
    const url = httpUrl(href, page.baseUrl);
    const profile = url === null || siteHost(url) === siteHost(page.url) ? null : profileUrl(url, anyHost);
    if (profile !== null && profile.length <= MAX_FIELD_LENGTH) links[socialNetworkOf(profile)] ??= profile;
  }
  return Object.keys(links).length > 0 ? links : null;
}

/**
 * twitter:site often names the author or the agency rather than the site (learnnode.com says @wesbos), so the
 * handle counts only when it resembles the brand's domain label or name.
 */
function twitterSiteLinks(meta: MetaTags, pageUrl: URL, name: string | null): string[] {
  const brandTexts = [domainLabelOf(pageUrl), name];
  return meta.contents('twitter:site').flatMap((handle) => {
    const url = twitterHandleUrl(handle);
    return url !== null && resemblesBrand(handle, brandTexts) ? [url] : [];
  });
}

/**
 * The handle equals or contains the whole label or name (bbc → @BBCNews), contains one of their words of 4+
 * letters (acme-widgets → @AcmeUK), or is a 4+ letter part of them (theverge → @verge).
 */
function resemblesBrand(handle: string, brandTexts: ReadonlyArray<string | null>): boolean {
  const word = compact(handle);
  const wholes = brandTexts.map(compact).filter((whole) => whole !== '');
  const words = brandTexts.flatMap((text) => (text ?? '').split(/[\s_.-]+/)).map(compact);
  return (
    wholes.some((whole) => whole === word || (whole.length >= 3 && word.includes(whole))) ||
    words.some((brandWord) => brandWord.length >= 4 && word.includes(brandWord)) ||
    (word.length >= 4 && wholes.some((whole) => whole.includes(word)))
  );
}

function relMeLinks(root: HTMLElement): string[] {
  return root
    .querySelectorAll('a[rel], link[rel]')
    .filter((element) => relTokens(element).includes('me'))
    .map((element) => element.getAttribute('href') ?? '');
}

function chromeLinks(root: HTMLElement): string[] {
  return root
    .querySelectorAll('a[href]')
    .filter((anchor) => siteChromeOf(anchor) !== null)
    .map((anchor) => anchor.getAttribute('href') ?? '');
}

/** The document's `<title>`: the first one not inside the body or an inline SVG. */
function titleOf(root: HTMLElement): string | null {
  const title = root.querySelectorAll('title').find((element) => !hasAncestor(element, ['body', 'svg']));
  return title?.text ?? null;
}

const TITLE_SEPARATOR = /\s+[|–—·•»:-]\s+|\s+::\s+/;
const GENERIC_PAGE_NAMES = new Set([
  'home',
  'homepage',
  'home page',
  'welcome',
  'index',
  'start',
  'official site',
]);

/**
 * The site's name within a title like "Home | Acme" or "Acme — the best widgets": the part that matches the
 * domain, else the first part that is not a generic page name.
 */
function siteNameInTitle(title: string | null, domainLabel: string | null): string | null {
  const parts = (title ?? '')
    .split(TITLE_SEPARATOR)
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const label = compact(domainLabel);
  const matchesDomain = (part: string) =>
    label !== '' &&
    (compact(part).includes(label) || (compact(part).length >= 3 && label.includes(compact(part))));
  return (
    parts.find(matchesDomain) ??
    parts.find((part) => !GENERIC_PAGE_NAMES.has(part.toLowerCase())) ??
    parts[0] ??
    null
  );
}

/** The registrable domain's label (www.theverge.com → theverge); null for IP addresses. */
function domainLabelOf(url: URL): string | null {
  return isIP(url.hostname.replace(/^\[|\]$/g, '')) ? null : socialNetworkOf(url.href);
}

function mentionsLogo(img: HTMLElement): boolean {
  const own = ['class', 'id', 'alt', 'src'].map((attribute) => img.getAttribute(attribute) ?? '').join(' ');
  const wrappers = [img.parentNode, img.parentNode?.parentNode].map((node) =>
    node?.tagName ? `${node.getAttribute('class') ?? ''} ${node.id}` : '',
  );
  return /logo/i.test([own, ...wrappers].join(' '));
}

function hasAncestor(element: HTMLElement, tags: readonly string[]): boolean {
  for (let node = element.parentNode; node?.tagName; node = node.parentNode) {
    if (tags.includes(node.tagName.toLowerCase())) return true;
  }
  return false;
}

function firstText(values: ReadonlyArray<string | null | undefined>): string | null {
  for (const value of values) {
    const text = fieldText(value);
    if (text !== null) return text;
  }
  return null;
}

function firstUrl(base: URL, values: ReadonlyArray<string | null | undefined>): string | null {
  for (const value of values) {
    const url = httpUrl(value, base);
    if (url !== null) return url.href;
  }
  return null;
}

/** Lowercase letters and digits only, for comparing names, handles and domains. */
function compact(text: string | null): string {
  return (text ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');
}
