import type { HTMLElement } from 'node-html-parser';
import { socialNetworkOf } from '../domain/social-links.ts';
import {
  chromeTokenOf,
  FOREIGN_TAGS,
  httpUrl,
  inherited,
  MAX_FIELD_LENGTH,
  type MetaTags,
  relTokens,
  siteChromeOf,
  siteHost,
} from './html-document.ts';
import { entitiesOf, type JsonLdFacts } from './json-ld.ts';
import { type Candidate, candidate, jsonLdCandidate, type Sourced } from './provenance.ts';
import { isPersonalProfile, profileUrl, xHandleUrl } from './social-profiles.ts';
import { attributeOf, clipped, idOf } from './third-party-text.ts';

/**
 * The site's social profiles, one per network, with where each was found. Candidates in priority order: JSON-LD
 * sameAs (of the site's organisation, then its WebSite), twitter:site (the site's own account by definition),
 * rel=me, links in the site's header, footer and navigation, in its menu layers, in its side box, and last
 * twitter:creator (the content's author, often the site). The first profile found for a network wins, except that
 * a person's profile (a LinkedIn /in/ page: the chief executive's, an author's) gives way to any other profile on
 * that network, and when it is all there is it comes with low confidence: the site links a person it is not.
 * Links back to the site itself are navigation, not profiles.
 */
export function profileLinksOf(
  page: { root: HTMLElement; url: URL; baseUrl: URL },
  meta: MetaTags,
  jsonLd: JsonLdFacts,
): Record<string, Sourced<string>> {
  const { chrome, layers, aside } = regionLinks(page.root);
  const candidates: Candidate[] = [
    ...entitiesOf(jsonLd).flatMap((entity) =>
      entity.sameAs.map((href) => jsonLdCandidate(href, entity, 'sameAs')),
    ),
    ...meta.contents('twitter:site').map((handle) => candidate(xHandleUrl(handle), 'twitter:site')),
    ...relMeLinks(page.root).map((href) => candidate(href, 'rel=me')),
    ...chrome,
    ...layers,
    ...aside,
    ...meta.contents('twitter:creator').map((handle) => candidate(xHandleUrl(handle), 'twitter:creator')),
  ];
  const links: Record<string, Sourced<string>> = {};
  const personal: Record<string, Sourced<string>> = {};
  for (const { value, source, confidence } of candidates) {
    const url = httpUrl(value, page.baseUrl);
    const profile = url === null || siteHost(url) === siteHost(page.url) ? null : profileUrl(url);
    if (profile === null || profile.length > MAX_FIELD_LENGTH) continue;
    if (isPersonalProfile(profile)) {
      personal[socialNetworkOf(profile)] ??= { value: profile, source, confidence: 'low' };
    } else {
      links[socialNetworkOf(profile)] ??= { value: profile, source, confidence };
    }
  }
  for (const [network, profile] of Object.entries(personal)) links[network] ??= profile;
  return links;
}

function relMeLinks(root: HTMLElement): string[] {
  return root
    .querySelectorAll('a[rel], link[rel]')
    .filter((element) => relTokens(element).includes('me'))
    .map((element) => attributeOf(element, 'href') ?? '');
}

/**
 * The page's links by the region of the page they sit in, where a site puts its own profiles, best first: its chrome
 * (header, footer, navigation), then the regions read for profiles only (ARIA landmarks outside that chrome, menu
 * layers), then its side box; each in document order. A menu layer mostly repeats the header's links for small
 * screens, so a profile there counts when the chrome has none for the network.
 */
function regionLinks(root: HTMLElement): { chrome: Candidate[]; layers: Candidate[]; aside: Candidate[] } {
  const placeOf = profilePlaces(root);
  const links = { chrome: [] as Candidate[], layers: [] as Candidate[], aside: [] as Candidate[] };
  for (const anchor of root.querySelectorAll('a[href]')) {
    const { foreign, inMain, chrome, region } = placeOf(anchor);
    const href = attributeOf(anchor, 'href');
    // The main content is never a menu layer or a side box, even inside an element taken for one.
    const isContent = inMain && (region === 'menu' || region === 'aside');
    if (foreign || (chrome === null && isContent)) continue;
    if (chrome !== null) links.chrome.push(candidate(href, `${chrome}:a`));
    else if (region === 'aside') {
      if (!isImageBanner(anchor)) links.aside.push(candidate(href, 'aside:a'));
    } else if (region !== null) links.layers.push(candidate(href, `${region}:a`));
  }
  return links;
}

/**
 * A side box's image banner: a link whose picture is larger than a network's icon is a sponsor's or a partner's
 * advertisement, or an award's badge; a site's own "follow us" box shows icons or names. Only the link's children
 * and grandchildren are looked at (an icon sits there), so the work stays linear in the page.
 */
const BANNER_MIN_SIDE = 100;

function isImageBanner(anchor: HTMLElement): boolean {
  const near = anchor.childNodes.flatMap((child) => [child, ...child.childNodes]);
  return near.some(
    (node) =>
      (node as HTMLElement).tagName === 'IMG' &&
      ['width', 'height'].some(
        (side) => Number.parseInt(attributeOf(node as HTMLElement, side) ?? '', 10) >= BANNER_MIN_SIDE,
      ),
  );
}

type ProfileRegion = 'header' | 'footer' | 'menu' | 'aside';

/**
 * Where an element sits, from itself up: inside foreign content or `<main>`, the nearest of the site's chrome as
 * logos read it (html-document.ts `siteChromeOf`: header, footer, nav, a class or id saying header or footer), and
 * the nearest of the regions read for profiles only (below).
 */
interface ProfilePlace {
  foreign: boolean;
  inMain: boolean;
  chrome: 'header' | 'footer' | null;
  region: ProfileRegion | null;
}

const TOP: ProfilePlace = { foreign: false, inMain: false, chrome: null, region: null };

// Words after a region's name in a class or id token that say which one or which part it is (`sidebar-primary`,
// `offcanvas-menu`, `tp-offcanvas-social`); any other (`off-canvas-wrapper`, `off-canvas-content`,
// `content-sidebar-wrap`) names a layout around the region and the page beside it.
const PART_WORDS = new Set(
  'menu nav navigation panel social primary secondary left right first second widgets inner'.split(' '),
);
// First words of a token that flags a page or a layout as having the region (`has-sidebar`, `no-sidebar`,
// `one-sidebar`, `with-drawer`), not the region itself.
const LAYOUT_FLAGS = new Set('has no with is one two'.split(' '));
// Whether a class or id mentions a region at all, before its tokens are read.
const NAMES_REGION = /side-?bar|off-?canvas|drawer/i;

/**
 * Whether a class or id token names the region `word` (`sidebar`, `offcanvas`, `drawer`; `side-bar` and
 * `off-canvas` read as one word): it is the token's last word, or only a word of PART_WORDS follows it.
 */
function tokenNames(token: string, word: string): boolean {
  const words = token
    .toLowerCase()
    .replace(/side-bar/g, 'sidebar')
    .replace(/off-canvas/g, 'offcanvas')
    .split(/[-_]/);
  const at = words.lastIndexOf(word);
  const followed =
    at === words.length - 1 || (at === words.length - 2 && PART_WORDS.has(words[at + 1] ?? ''));
  return at >= 0 && followed && (at === 0 || !LAYOUT_FLAGS.has(words[0] ?? ''));
}

/** Whether an element's class or id says it is a menu layer or a side box; html's and body's say how the page is laid out. */
function namedRegion(node: HTMLElement, tag: string): { isMenu: boolean; isSideBox: boolean } {
  const text = `${attributeOf(node, 'class') ?? ''} ${idOf(node)}`;
  if (tag === 'html' || tag === 'body' || !NAMES_REGION.test(text))
    return { isMenu: false, isSideBox: false };
  const tokens = text.split(/\s+/).filter((token) => token !== '');
  return {
    isMenu: tokens.some((token) => tokenNames(token, 'offcanvas') || tokenNames(token, 'drawer')),
    isSideBox: tokens.some((token) => tokenNames(token, 'sidebar')),
  };
}

/**
 * Which region of the page each element sits in, for reading the site's own profiles. These count:
 * - the site's chrome as logos read it: the header, the footer and navigation (`<header>`, `<footer>`, `<nav>`,
 *   a class or id saying header or footer); the nearest counts, and it outranks the regions below, so that a link
 *   there keeps its source however the chrome is built inside;
 * - outside that chrome, the ARIA landmarks of the same: role=banner, role=navigation (read as header) and
 *   role=contentinfo (footer);
 * - a menu layer that opens from the header (an off-canvas menu, a drawer): the element a control in the header
 *   or navigation names (`aria-controls`, Bootstrap's `data-target`/`data-bs-target`, a toggle's `href="#id"`), or
 *   whose class or id says it is one. Sites put their profiles at its foot; it is hidden until opened, so its
 *   being hidden does not make it someone else's content;
 * - a side box (`<aside>`, role=complementary, a `sidebar` class or id) outside `<main>`: beside the content, the
 *   site's "follow us" box. An aside inside `<main>` is about the content (related stories, an author's box).
 * Never: anything inside quoted, article or template content (`<blockquote>`, `<article>`, role=article), even in
 * a footer, or inside an element hidden for good (`hidden` on anything but a menu layer); nor the rest of the
 * page, the content, where links go to whatever the content talks about.
 */
function profilePlaces(root: HTMLElement): (element: HTMLElement) => ProfilePlace {
  const menuIds = menuLayerIds(root);
  const places = new WeakMap<HTMLElement, ProfilePlace>();
  const placeOf = (element: HTMLElement): ProfilePlace =>
    inherited(places, element, TOP, (place, node) => {
      const tag = node.tagName.toLowerCase();
      const role = attributeOf(node, 'role')?.trim().toLowerCase() ?? '';
      const named = namedRegion(node, tag);
      const isMenu = menuIds.has(idOf(node)) || named.isMenu;
      const isHidden = node.hasAttribute('hidden') && !isMenu;
      if (place.foreign || FOREIGN_TAGS.has(tag) || role === 'article' || isHidden) {
        return { ...TOP, foreign: true };
      }
      const inMain = place.inMain || tag === 'main' || role === 'main';
      const ownChrome =
        tag === 'nav' ? 'header' : tag === 'header' || tag === 'footer' ? tag : chromeTokenOf(node);
      const isAside = tag === 'aside' || role === 'complementary' || named.isSideBox;
      const ownRegion = profileRegionOwn(role, isMenu, isAside && !inMain);
      return {
        foreign: false,
        inMain,
        chrome: ownChrome ?? place.chrome,
        region: ownRegion ?? place.region,
      };
    });
  return placeOf;
}

/** The region an element itself opens, by the rules above (ARIA landmarks, a menu layer, a side box). */
function profileRegionOwn(role: string, isMenu: boolean, isSideBox: boolean): ProfileRegion | null {
  if (role === 'banner' || role === 'navigation') return 'header';
  if (role === 'contentinfo') return 'footer';
  if (isMenu) return 'menu';
  return isSideBox ? 'aside' : null;
}

// The attributes by which a toggle names the element it opens (and `href="#id"` on a toggle, one with aria-expanded).
const TOGGLE_TARGETS = ['aria-controls', 'data-target', 'data-bs-target'];
// An element's attributes are parsed only when its raw attribute text mentions one of those: a query by attribute
// would parse every element's.
const MENTIONS_TOGGLE = /aria-controls|aria-expanded|data-(?:bs-)?target/i;

/** The ids of the elements a control in the header or navigation opens: the page's menu layers. */
function menuLayerIds(root: HTMLElement): Set<string> {
  const ids = new Set<string>();
  const stack: HTMLElement[] = [root];
  for (let element = stack.pop(); element !== undefined; element = stack.pop()) {
    for (const child of element.children) stack.push(child);
    if (!MENTIONS_TOGGLE.test(clipped(element.rawAttrs)) || siteChromeOf(element) !== 'header') continue;
    const names = TOGGLE_TARGETS.map((name) => attributeOf(element, name));
    if (element.hasAttribute('aria-expanded')) names.push(attributeOf(element, 'href'));
    for (const token of names.join(' ').split(/\s+/)) {
      const id = token.replace(/^#/, '');
      if (/^[\w-]+$/.test(id)) ids.add(id);
    }
  }
  return ids;
}
