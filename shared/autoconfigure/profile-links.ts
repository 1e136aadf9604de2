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

/**
 * The site's social profiles, one per network, with where each was found. Candidates in priority order: JSON-LD
 * sameAs (of the site's organisation, then its WebSite), twitter:site (the site's own account by definition),
 * rel=me, links in the site's header, footer, navigation and menu layers, links in its side box, and last
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
  const { chrome, aside } = regionLinks(page.root);
  const candidates: Candidate[] = [
    ...entitiesOf(jsonLd).flatMap((entity) =>
      entity.sameAs.map((href) => jsonLdCandidate(href, entity, 'sameAs')),
    ),
    ...meta.contents('twitter:site').map((handle) => candidate(xHandleUrl(handle), 'twitter:site')),
    ...relMeLinks(page.root).map((href) => candidate(href, 'rel=me')),
    ...chrome,
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
    .map((element) => element.getAttribute('href') ?? '');
}

/**
 * The page's links by the region of the page they sit in, where a site puts its own profiles: the chrome (header,
 * footer, navigation and menu layers, in document order), then the side box.
 */
function regionLinks(root: HTMLElement): { chrome: Candidate[]; aside: Candidate[] } {
  const regionOf = profileRegions(root);
  const chrome: Candidate[] = [];
  const aside: Candidate[] = [];
  for (const anchor of root.querySelectorAll('a[href]')) {
    const region = regionOf(anchor);
    const href = anchor.getAttribute('href');
    if (region === 'aside') aside.push(candidate(href, 'aside:a'));
    else if (region !== null) chrome.push(candidate(href, `${region}:a`));
  }
  return { chrome, aside };
}

type ProfileRegion = 'header' | 'footer' | 'menu' | 'aside';

/** Where an element sits, from itself up: inside foreign content, inside `<main>`, and the nearest region. */
interface ProfilePlace {
  foreign: boolean;
  inMain: boolean;
  region: ProfileRegion | null;
}

const TOP: ProfilePlace = { foreign: false, inMain: false, region: null };

// Class or id tokens of a menu layer that slides in over the page (Bootstrap's `offcanvas`, Foundation's
// `off-canvas`, `drawer`), and of a side box (`sidebar`, `side-bar`), wherever they sit in the token:
// `tp-offcanvas-social`, `mobile-drawer`, `Sidebar`.
const MENU_TOKEN = /(?:^|[-_])(?:off-?canvas|drawer)(?:[-_]|$)/i;
const SIDEBAR_TOKEN = /(?:^|[-_])side-?bar(?:[-_]|$)/i;

/**
 * Which region of the page each element sits in, for reading the site's own profiles. These count:
 * - the header (`<header>`, role=banner) and the footer (`<footer>`, role=contentinfo), and elements whose class or
 *   id says so (as for logos: html-document.ts `siteChromeOf`);
 * - navigation (`<nav>`, role=navigation), read as header: a site's menu often ends with its profiles;
 * - a menu layer that opens from the header (an off-canvas menu, a drawer): the element a control in the header
 *   names (`aria-controls`, Bootstrap's `data-target`/`data-bs-target`, a toggle's `href="#id"`), or whose class
 *   says it is one. It is hidden until opened, so its being hidden does not make it someone else's content;
 * - a side box (`<aside>`, role=complementary, a `sidebar` class or id) outside `<main>`: beside the content, a
 *   site's "follow us" box. An aside inside `<main>` is about the content (related stories, an author's box).
 * Never: anything inside quoted, article or template content (`<blockquote>`, `<article>`, role=article), even in
 * a footer, or inside an element hidden for good (`hidden` on anything but a menu layer); nor the rest of the
 * page, the content, where links go to whatever the content talks about. The nearest region counts.
 */
function profileRegions(root: HTMLElement): (element: HTMLElement) => ProfileRegion | null {
  const menuIds = menuLayerIds(root);
  const places = new WeakMap<HTMLElement, ProfilePlace>();
  const placeOf = (element: HTMLElement) =>
    inherited(places, element, TOP, (place, node) => {
      const tag = node.tagName.toLowerCase();
      const role = node.getAttribute('role')?.trim().toLowerCase() ?? '';
      const tokens = `${node.getAttribute('class') ?? ''} ${node.id}`;
      const isMenu = menuIds.has(node.id) || tokens.split(/\s+/).some((token) => MENU_TOKEN.test(token));
      if (place.foreign || FOREIGN_TAGS.has(tag) || role === 'article' || (node.hasAttribute('hidden') && !isMenu)) {
        return { foreign: true, inMain: place.inMain, region: null };
      }
      const inMain = place.inMain || tag === 'main' || role === 'main';
      const region = ownRegion(node, tag, role, isMenu, inMain, tokens) ?? place.region;
      return region === place.region && inMain === place.inMain ? place : { foreign: false, inMain, region };
    });
  return (element) => {
    const place = placeOf(element);
    return place.foreign ? null : place.region;
  };
}

function ownRegion(
  node: HTMLElement,
  tag: string,
  role: string,
  isMenu: boolean,
  inMain: boolean,
  tokens: string,
): ProfileRegion | null {
  if (tag === 'header' || role === 'banner' || tag === 'nav' || role === 'navigation') return 'header';
  if (tag === 'footer' || role === 'contentinfo') return 'footer';
  if (isMenu) return 'menu';
  const isAside =
    tag === 'aside' || role === 'complementary' || tokens.split(/\s+/).some((token) => SIDEBAR_TOKEN.test(token));
  if (isAside) return inMain ? null : 'aside';
  return chromeTokenOf(node);
}

// The attributes by which a toggle names the element it opens.
const TOGGLE_TARGETS = ['aria-controls', 'data-target', 'data-bs-target'];

/** The ids of the elements a control in the header or navigation opens: the page's menu layers. */
function menuLayerIds(root: HTMLElement): Set<string> {
  const ids = new Set<string>();
  const controls = root.querySelectorAll('[aria-controls], [data-target], [data-bs-target], [aria-expanded][href]');
  for (const control of controls) {
    if (siteChromeOf(control) !== 'header') continue;
    const names = [...TOGGLE_TARGETS.map((name) => control.getAttribute(name)), control.getAttribute('href')];
    for (const name of names) {
      for (const token of (name ?? '').split(/\s+/)) {
        const id = token.replace(/^#/, '');
        if (/^[\w-]+$/.test(id)) ids.add(id);
      }
    }
  }
  return ids;
}
