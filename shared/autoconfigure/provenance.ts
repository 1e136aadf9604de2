/**
 * Where a suggestion came from, and how sure it is. The confidence follows from the kind of source alone:
 *
 * - high: the page or its manifest declares the value for this very field of this site (og:site_name, theme-color,
 *   apple-touch-icon, manifest icons, og:image, twitter:site, rel=me, JSON-LD of the node that is the site);
 * - medium: it declares the value for a neighbouring purpose (Twitter card text and image, a tile or pinned-tab
 *   colour, a favicon, og:logo or itemprop=logo), or in JSON-LD about an organisation not shown to be this site;
 * - low: the value is inferred (a segment of `<title>`, the domain, a logo image, its alt text or a link found in the
 *   header, footer, navigation, a menu layer or a side box, an image linking home, the content author's
 *   twitter:creator); a person's profile (LinkedIn /in/) is low wherever it was found.
 *
 * One exception: a name that two sources agree on is at least medium (title-name.ts chooses names by agreement).
 * And one for square logos: an icon smaller than the slot shows, suggested only when no larger one is declared, is low
 * whatever its source (icons.ts).
 */

export type Confidence = 'high' | 'medium' | 'low';

/** A value with its source (e.g. `og:site_name`, `json-ld:Organization.logo`) and that source's confidence. */
export interface Sourced<T> {
  value: T;
  source: string;
  confidence: Confidence;
}

/** A raw value as a source gives it, before it is checked and normalised. */
export type Candidate = Sourced<string | null | undefined>;

const CONFIDENCE_BY_SOURCE = {
  url: 'high',
  'og:site_name': 'high',
  'application-name': 'high',
  'apple-mobile-web-app-title': 'high',
  'manifest:name': 'high',
  'manifest:short_name': 'high',
  title: 'low',
  'header:img:alt': 'low',
  domain: 'low',
  'og:description': 'high',
  description: 'high',
  'twitter:description': 'medium',
  'theme-color': 'high',
  'manifest:theme_color': 'high',
  'msapplication-TileColor': 'medium',
  'mask-icon': 'medium',
  'manifest:background_color': 'medium',
  'apple-touch-icon': 'high',
  'manifest:icons': 'high',
  icon: 'medium',
  'og:logo': 'medium',
  'itemprop:logo': 'medium',
  'header:img': 'low',
  'home-link:img': 'low',
  'og:image': 'high',
  'og:image:url': 'high',
  'og:image:secure_url': 'high',
  'twitter:image': 'medium',
  'twitter:image:src': 'medium',
  'twitter:site': 'high',
  'rel=me': 'high',
  'header:a': 'low',
  'footer:a': 'low',
  'menu:a': 'low',
  'aside:a': 'low',
  'twitter:creator': 'low',
} as const satisfies Record<string, Confidence>;

export type SourceName = keyof typeof CONFIDENCE_BY_SOURCE;

export function candidate(value: string | null | undefined, source: SourceName): Candidate {
  return { value, source, confidence: CONFIDENCE_BY_SOURCE[source] };
}

/** A JSON-LD property of a node (`json-ld:Organization.logo`): high when the node is the site, else medium. */
export function jsonLdCandidate(
  value: string | null | undefined,
  node: { type: string; isSite: boolean },
  property: string,
): Candidate {
  return { value, source: `json-ld:${node.type}.${property}`, confidence: node.isSite ? 'high' : 'medium' };
}

/** The first candidate that `read` accepts, read, with its provenance. */
export function firstAccepted<T>(
  candidates: readonly Candidate[],
  read: (value: string | null | undefined) => T | null,
): Sourced<T> | null {
  for (const { value, source, confidence } of candidates) {
    const accepted = read(value);
    if (accepted !== null) return { value: accepted, source, confidence };
  }
  return null;
}
