import type { HTMLElement } from 'node-html-parser';
import { clippedText, fieldText, inherited } from './html-document.ts';
import { isPageRole, withoutPageRole } from './page-role-words.ts';
import { type Candidate, type Confidence, candidate, type Sourced, type SourceName } from './provenance.ts';

/**
 * The site's name, chosen among the names a page gives (meta tags, the manifest, JSON-LD, the parts of its `<title>`,
 * its header logo's alt text) by agreement: a name the page declares outranks one read off its title or logo, and
 * among equals, a name given by more signals, or matching the domain, outranks one given by fewer.
 */

// Separators between a title's parts ("Picadillo Recipe - Great British Chefs", "首页_新浪网", "【楽天市場】…").
// Those that also occur inside names and words count only with whitespace around them: a hyphen, an en or em dash,
// a middle dot (Catalan "l·l"); a colon only with whitespace after it ("10:30", "https://"). An underscore between
// two Latin letters or digits is part of a word (snake_case). The others count anywhere, full-width ones included.
const TITLE_SEPARATOR = new RegExp(
  [
    String.raw`\s+[-–—·]\s+`,
    String.raw`\s*::\s*`,
    String.raw`\s*:\s+`,
    String.raw`\s*[|｜•»：【】\u3000]\s*`,
    String.raw`\s*(?<![A-Za-z0-9])_\s*`,
    String.raw`\s*_(?![A-Za-z0-9])\s*`,
  ].join('|'),
  'u',
);
// Words an abbreviation usually skips ("The New York Times" → NYT).
const MINOR_WORDS = new Set(['the', 'of', 'and', 'for', 'a', 'an', '&']);
// "Logo of Great British Chefs", "Logo RP", "infopark Logo": the word says what the image is, not whose.
const LOGO_WORDING = /^\s*(?:logo|logotipo|logotype)(?:\s+(?:of|de|do|da|di|du|von|van))?\s+|\s+logo\s*$/i;
// A URL is an address, not a name ("https://www.example.net" as og:site_name).
const URL_LIKE = /^(?:[a-z][a-z\d+.-]*:\/\/|www\.)\S*$/i;

/** A name one source gives, and how far it may be trusted alone. */
export interface NameSignal extends Sourced<string> {
  /** Declared as the site's name (a meta tag, the manifest, JSON-LD), not read off the title or a logo. */
  declared: boolean;
  /**
   * It may be the name without another signal agreeing: false for a whole title, which may be a headline or a
   * slogan, and for a logo's alt text, which may name a partner or say "go to the home page".
   */
  standsAlone: boolean;
}

/** The document's `<title>`: the first one not inside the body or an inline SVG. */
export function titleOf(root: HTMLElement): string | null {
  const title = root.querySelectorAll('title').find((element) => !inBodyOrSvg(element));
  return title?.text ?? null;
}

/** Names declared by meta tags, the manifest or JSON-LD, in priority order. */
export function declaredNames(candidates: readonly Candidate[]): NameSignal[] {
  return candidates.flatMap((found) => signalOf(found, { declared: true, standsAlone: true }));
}

/**
 * The parts of a title that may name the site: every part but words for the page's role ("Startseite",
 * "Accueil", "首页", "ホーム"). A part of a split title may stand alone; an unsplit title only when another signal
 * or the domain agrees.
 */
export function titleNames(title: string | null): NameSignal[] {
  const parts = clippedText(title ?? '').split(TITLE_SEPARATOR);
  const isSplit = parts.filter((part) => part.trim() !== '').length > 1;
  return parts.flatMap((part) => inferred(part, 'title', isSplit));
}

/** Alt texts of the header's logo images, without the word logo ("Logo of Great British Chefs"). */
export function logoAltNames(alts: ReadonlyArray<string | undefined>): NameSignal[] {
  return alts.flatMap((alt) =>
    inferred(clippedText(alt ?? '').replace(LOGO_WORDING, ''), 'header:img:alt', false),
  );
}

/**
 * The best-supported name, with the source and confidence of its best signal (at least medium when two sources
 * agree), or null when no name is supported. Names are compared by their letters and digits, a name styled as a host
 * without its top-level domain (CNNArabic.com is CNNArabic). Ranked by: the number of declaring sources; then the
 * number of sources plus one for matching the domain label; then the best source's priority (the order given); then
 * a name spelling the whole label over one that is a piece of it; then the shorter name. A name that may not stand
 * alone counts only with a second source or the domain behind it.
 */
export function chooseSiteName(
  signals: readonly NameSignal[],
  domainLabel: string | null,
): Sourced<string> | null {
  const groups = new Map<string, NameSignal[]>();
  const firstIndexOfSource = new Map<string, number>();
  for (const [index, signal] of signals.entries()) {
    const key = nameKey(signal.value);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [signal]);
    else group.push(signal);
    if (!firstIndexOfSource.has(signal.source)) firstIndexOfSource.set(signal.source, index);
  }
  const sourceRank = (signal: NameSignal) => firstIndexOfSource.get(signal.source) ?? -1;
  const scored = [...groups.values()].map((group) => {
    const sources = new Set(group.map(({ source }) => source));
    const declared = new Set(group.filter((signal) => signal.declared).map(({ source }) => source)).size;
    const best = group[0] as NameSignal;
    const match = domainMatch(best.value, domainLabel);
    return {
      group,
      best,
      sources: sources.size,
      declared,
      match,
      support: sources.size + (match > 0 ? 1 : 0),
    };
  });
  // Without a domain name (an IP address) there is no better fallback: every name may stand alone.
  const [chosen] = scored
    .filter(
      ({ group, support }) =>
        domainLabel === null || support >= 2 || group.some((signal) => signal.standsAlone),
    )
    .sort(
      (a, b) =>
        b.declared - a.declared ||
        b.support - a.support ||
        sourceRank(a.best) - sourceRank(b.best) ||
        b.match - a.match ||
        a.best.value.length - b.best.value.length,
    );
  if (chosen === undefined) return null;
  const { value, source } = chosen.best;
  return { value, source, confidence: confidenceOf(chosen.group, chosen.sources) };
}

/**
 * How a name matches the domain label: 2 when it spells the whole label (ZEITmagazin on zeit.de) or its words'
 * initials do (Great British Chefs on gbchefs.com), 1 when it is a part of the label ("Verge" of theverge), else 0.
 */
function domainMatch(name: string, domainLabel: string | null): 0 | 1 | 2 {
  const label = compact(domainLabel ?? '');
  if (label === '') return 0;
  const letters = compact(name);
  if (letters.includes(label)) return 2;
  const words = name.split(/[\s_.-]+/).filter((word) => compact(word) !== '');
  const initials = (list: string[]) => compact(list.map((word) => word.charAt(0)).join(''));
  const abbreviations = [
    initials(words),
    initials(words.filter((word) => !MINOR_WORDS.has(word.toLowerCase()))),
  ];
  const isAbbreviation = (abbreviation: string) =>
    abbreviation === label || (abbreviation.length >= 3 && label.startsWith(abbreviation));
  if (words.length >= 2 && abbreviations.some(isAbbreviation)) return 2;
  return letters.length >= 3 && label.includes(letters) ? 1 : 0;
}

/** A name read off the title or a logo: a part without a letter or digit ("♡", "—") is punctuation, not a name. */
function inferred(text: string, source: SourceName, standsAlone: boolean): NameSignal[] {
  const signals = signalOf(candidate(text, source), { declared: false, standsAlone });
  return signals.filter(({ value }) => /[\p{L}\p{N}]/u.test(value));
}

function signalOf(found: Candidate, use: Pick<NameSignal, 'declared' | 'standsAlone'>): NameSignal[] {
  const name = nameText(found.value);
  return name === null ? [] : [{ ...found, value: name, ...use }];
}

/** A source's value as a name: whitespace collapsed; null for a URL or a word for the page's role. */
function nameText(raw: string | null | undefined): string | null {
  const text = fieldText(raw);
  if (text === null || URL_LIKE.test(text) || isPageRole(text)) return null;
  const name = withoutPageRole(text);
  return name !== '' && !isPageRole(name) ? name : null;
}

function confidenceOf(group: readonly NameSignal[], sourceCount: number): Confidence {
  const levels: Confidence[] = ['high', 'medium', 'low'];
  const best = levels.find((level) => group.some(({ confidence }) => confidence === level)) ?? 'low';
  return sourceCount >= 2 && best === 'low' ? 'medium' : best;
}

/**
 * Letters and digits, lowercased, without accents; a host-styled name without its top-level domain. A name of
 * symbols only (an emoji) is its own key.
 */
function nameKey(name: string): string {
  const plain = name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const key = plain.replace(/^([^\s.]+)\.[a-z]{2,}$/u, '$1').replace(/[^\p{L}\p{N}]/gu, '');
  return key === '' ? plain : key;
}

/** Latin letters and digits only, for comparing names with domains. */
function compact(text: string): string {
  return nameKey(text).replace(/[^a-z0-9]/g, '');
}

// Whether an element is inside the body or an inline SVG, worked out once per element from its parent's: a page
// may have thousands of titles.
const insideBodyOrSvg = new WeakMap<HTMLElement, boolean>();

function inBodyOrSvg(element: HTMLElement): boolean {
  return inherited(
    insideBodyOrSvg,
    element.parentNode,
    false,
    (inside, node) => inside || ['body', 'svg'].includes(node.tagName.toLowerCase()),
  );
}
