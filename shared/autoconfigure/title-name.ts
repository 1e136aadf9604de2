import type { HTMLElement } from 'node-html-parser';

/** The site's name as a page's `<title>` gives it, around the page's own title ("Picadillo Recipe - Great British Chefs"). */

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
// Words an abbreviation usually skips ("The New York Times" → NYT).
const MINOR_WORDS = new Set(['the', 'of', 'and', 'for', 'a', 'an', '&']);

/** The document's `<title>`: the first one not inside the body or an inline SVG. */
export function titleOf(root: HTMLElement): string | null {
  const title = root.querySelectorAll('title').find((element) => !hasAncestor(element, ['body', 'svg']));
  return title?.text ?? null;
}

/**
 * The segment of the title that names the site: the one matching the domain label (by its letters, or by the
 * initials of its words: "Great British Chefs" on gbchefs.com), else the shortest that is not a generic page name.
 */
export function siteNameInTitle(title: string | null, domainLabel: string | null): string | null {
  const segments = (title ?? '')
    .split(TITLE_SEPARATOR)
    .map((segment) => segment.trim())
    .filter((segment) => segment !== '');
  const label = compact(domainLabel);
  const named = segments.find((segment) => label !== '' && namesDomain(segment, label));
  if (named !== undefined) return named;
  const specific = segments.filter((segment) => !GENERIC_PAGE_NAMES.has(segment.toLowerCase()));
  return specific.reduce<string | null>(
    (shortest, segment) => (shortest === null || segment.length < shortest.length ? segment : shortest),
    null,
  );
}

function namesDomain(segment: string, label: string): boolean {
  const letters = compact(segment);
  if (letters.includes(label) || (letters.length >= 3 && label.includes(letters))) return true;
  const words = segment.split(/[\s_.-]+/).filter((word) => compact(word) !== '');
  if (words.length < 2) return false;
  const initials = (list: string[]) => compact(list.map((word) => word.charAt(0)).join(''));
  return [initials(words), initials(words.filter((word) => !MINOR_WORDS.has(word.toLowerCase())))].some(
    (abbreviation) => abbreviation === label || (abbreviation.length >= 3 && label.startsWith(abbreviation)),
  );
}

/** Lowercase letters and digits only, for comparing names and domains. */
function compact(text: string | null): string {
  return (text ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

function hasAncestor(element: HTMLElement, tags: readonly string[]): boolean {
  for (let node = element.parentNode; node?.tagName; node = node.parentNode) {
    if (tags.includes(node.tagName.toLowerCase())) return true;
  }
  return false;
}
