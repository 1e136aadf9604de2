import type { HTMLElement } from 'node-html-parser';
import { socialNetworkOf } from '../domain/social-links.ts';
import {
  httpUrl,
  MAX_FIELD_LENGTH,
  type MetaTags,
  relTokens,
  siteChromeOf,
  siteHost,
} from './html-document.ts';
import { entitiesOf, type JsonLdFacts } from './json-ld.ts';
import { type Candidate, candidate, jsonLdCandidate, type Sourced } from './provenance.ts';
import { profileUrl, xHandleUrl } from './social-profiles.ts';

/**
 * The site's social profiles, one per network, with where each was found. Candidates in priority order: JSON-LD
 * sameAs (of the site's organisation, then its WebSite), twitter:site (the site's own account by definition),
 * rel=me, links in the site's header and footer, and last twitter:creator (the content's author, often the site).
 * The first profile found for a network wins; links back to the site itself are navigation, not profiles.
 */
export function profileLinksOf(
  page: { root: HTMLElement; url: URL; baseUrl: URL },
  meta: MetaTags,
  jsonLd: JsonLdFacts,
): Record<string, Sourced<string>> {
  const candidates: Candidate[] = [
    ...entitiesOf(jsonLd).flatMap((entity) =>
      entity.sameAs.map((href) => jsonLdCandidate(href, entity, 'sameAs')),
    ),
    ...meta.contents('twitter:site').map((handle) => candidate(xHandleUrl(handle), 'twitter:site')),
    ...relMeLinks(page.root).map((href) => candidate(href, 'rel=me')),
    ...chromeLinks(page.root),
    ...meta.contents('twitter:creator').map((handle) => candidate(xHandleUrl(handle), 'twitter:creator')),
  ];
  const links: Record<string, Sourced<string>> = {};
  for (const { value, source, confidence } of candidates) {
    const url = httpUrl(value, page.baseUrl);
    const profile = url === null || siteHost(url) === siteHost(page.url) ? null : profileUrl(url);
    if (profile !== null && profile.length <= MAX_FIELD_LENGTH) {
      links[socialNetworkOf(profile)] ??= { value: profile, source, confidence };
    }
  }
  return links;
}

function relMeLinks(root: HTMLElement): string[] {
  return root
    .querySelectorAll('a[rel], link[rel]')
    .filter((element) => relTokens(element).includes('me'))
    .map((element) => element.getAttribute('href') ?? '');
}

function chromeLinks(root: HTMLElement): Candidate[] {
  return root.querySelectorAll('a[href]').flatMap((anchor) => {
    const chrome = siteChromeOf(anchor);
    return chrome === null ? [] : [candidate(anchor.getAttribute('href'), `${chrome}:a`)];
  });
}
