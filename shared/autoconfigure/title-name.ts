import type { HTMLElement } from 'node-html-parser';
import { clippedText, fieldText, inherited } from './html-document.ts';
import { isPageRole, UNSPACED_LETTER, withoutPageRole } from './page-role-words.ts';
import { type Candidate, type Confidence, candidate, type Sourced, type SourceName } from './provenance.ts';
import { textOf } from './third-party-text.ts';

/**
 * The site's name, chosen among the names a page gives (meta tags, the manifest, JSON-LD, the parts of its `<title>`,
 * its header logo's alt text) by agreement: a name the page declares outranks one read off its title or logo, and
 * among equals, a name given by more signals, or matching the domain, outranks one given by fewer. A declared value
 * is split as a title is ("Brand | brand.ru"), and a title without a separator gives the words at its start or end
 * that another signal or the domain names ("Brand. Videos, films and series", "Welcome to GOV.UK").
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
// Where a declared name holds more than a name ("Brand | brand.ru", "Brand - news, mail, search"): the separators
// written with whitespace, and a vertical bar anywhere. Not an underscore, a full-width colon or space or brackets:
// a declared name written with them (pixnet's "史蒂文的家_藍天", "日本経済新聞　電子版") is one name.
const DECLARED_SEPARATOR = /\s+[-–—·•»]\s+|\s*::?\s+|\s*[|｜]\s*/u;
// Words an abbreviation usually skips ("The New York Times" → NYT).
const MINOR_WORDS = new Set(['the', 'of', 'and', 'for', 'a', 'an', '&']);
// "Logo of Great British Chefs", "Logo RP", "infopark Logo": the word says what the image is, not whose.
const LOGO_WORDING = /^\s*(?:logo|logotipo|logotype)(?:\s+(?:of|de|do|da|di|du|von|van))?\s+|\s+logo\s*$/i;
// An alt text written as an identifier, the word logo glued to others in lower case ("kbsworldlogo", "site-logo",
// "logo_main"): a file or class name the template copied, not the name the site writes.
// Tested as two linear checks: one pattern with the word between two runs would backtrack on a long alt.
const IDENTIFIER = /^[a-z\d_-]+$/;
const isLogoIdentifier = (alt: string): boolean => IDENTIFIER.test(alt) && alt.includes('logo');
// A URL is an address, not a name (og:site_name "https://www.example.net", "//www.example.net/", "example.net/"): with a
// scheme, protocol-relative, on www., or a host with a path. A host alone ("Virk.dk") may be a name styled as a domain.
const URL_LIKE = /^(?:[a-z][a-z\d+.-]*:\/\/|\/\/|www\.)\S*$|^[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+\/\S*$/iu;
// A name of more than a few words is a headline or a slogan unless a second source gives it too; the domain agreeing
// is not enough ("Brand news portal of Thailand" on brand.co.th). Unspaced scripts count a word per two letters.
const FEW_WORDS = 4;
// Words at a title's start or end that may spell the domain label ("GOV.UK", "The Verge", "Kinopoisk" before a full
// stop): Latin letters and digits, with the marks names keep inside them.
const LATIN_WORD = /[\p{sc=Latin}\d](?:[\p{sc=Latin}\d.'’&-]*[\p{sc=Latin}\d])?/gu;
const MAX_SPAN_WORDS = 6;
// A mark that ends a phrase, after a name ("Кинопоиск. Онлайн-кинотеатр") or before it ("…, Кинопоиск").
const MARK_AFTER = /^[.,;!?…。、，！？)\]]+(?:\s|$)/u;
const MARK_BEFORE = /(?:^|\s)[.,;!?…。、，！？([]+\s*$|[.,;!?…。、，！？]\s+$/u;
// A name written as a host ("acme-widgets.co.uk"): among equals, the name written as a name goes first.
const HOST_STYLED = /^[^\s.]+(?:\.[a-z]{2,})+$/i;
// Names of other sources sought at a title's edges: a page may declare many (JSON-LD); a few suffice.
const MAX_NAMES_SOUGHT = 16;
const UNSPACED = new RegExp(UNSPACED_LETTER, 'u');
const UNSPACED_ALL = new RegExp(UNSPACED_LETTER, 'gu');
const LESS_SURE: Record<Confidence, Confidence> = { high: 'medium', medium: 'low', low: 'low' };

/** A name one source gives, and how far it may be trusted alone. */
export interface NameSignal extends Sourced<string> {
  /** Declared as the site's name (a meta tag, the manifest, JSON-LD), not read off the title or a logo. */
  declared: boolean;
  /**
   * It may be the name without another signal agreeing: false for a whole title, which may be a headline or a
   * slogan, and for a logo's alt text, which may name a partner or say "go to the home page".
   */
  standsAlone: boolean;
  /** The whole of a title without a separator, which may hold the name among other words. */
  wholeTitle: boolean;
  /** Its place among the parts of a declared value or an alt text that was split (0 first). */
  part?: number;
}

const DECLARED = { declared: true, standsAlone: true, wholeTitle: false } as const;

/** The document's `<title>`: the first one not inside the body or an inline SVG. */
export function titleOf(root: HTMLElement): string | null {
  const title = root.querySelectorAll('title').find((element) => !inBodyOrSvg(element));
  return title === undefined ? null : textOf(title);
}

/**
 * Names declared by meta tags, the manifest or JSON-LD, in priority order. A declared value that holds more than a
 * name (`Brand | brand.ru`, `Brand - news, mail, search`) is split as a title is: each part is a candidate, one step
 * less sure when more than one part is left, and agreement chooses among them. A value that is the page's split title
 * declares nothing the title does not say: the title's parts speak for it.
 */
export function declaredNames(candidates: readonly Candidate[], title: string | null = null): NameSignal[] {
  // Only a title that holds more than a name: a home page's title may be just the name, as declared.
  const titleKey =
    title === null || titleParts(title).length <= 1 ? null : nameKey(clippedText(title).trim());
  return candidates.flatMap((found) => {
    if (titleKey !== null && titleKey !== '' && nameKey(clippedText(found.value ?? '').trim()) === titleKey) {
      return [];
    }
    const parts = titleParts(found.value ?? '', DECLARED_SEPARATOR);
    if (parts.length <= 1) return signalOf(found, DECLARED);
    const names = partsInOrder(parts).flatMap(({ text, part }) =>
      signalOf({ ...found, value: text }, DECLARED).map((name) => ({ ...name, part })),
    );
    return names.length <= 1
      ? names
      : names.map((name) => ({ ...name, confidence: LESS_SURE[name.confidence] }));
  });
}

/**
 * The parts of a title that may name the site: every part but words for the page's role ("Startseite",
 * "Accueil", "首页", "ホーム"). A part of a split title may stand alone; an unsplit title only when another signal
 * or the domain agrees, or when a role word beside it says it is the site's name ("腾讯首页", Tencent's home page:
 * 腾讯) and it has only a few words.
 */
export function titleNames(title: string | null): NameSignal[] {
  const parts = titleParts(title ?? '');
  const isSplit = parts.length > 1;
  return parts.flatMap((part) =>
    inferred(part, 'title', { standsAlone: isSplit, wholeTitle: !isSplit, roleNamesRest: true }),
  );
}

/**
 * Alt texts of the header's logo images, without the word logo ("Logo of Great British Chefs"), split as a declared
 * value is ("Luxury Haven | Award-winning Singapore Lifestyle Blog").
 */
export function logoAltNames(alts: ReadonlyArray<string | undefined>): NameSignal[] {
  return alts.flatMap((alt) =>
    isLogoIdentifier(clippedText(alt ?? '').trim())
      ? []
      : partsInOrder(titleParts(alt ?? '', DECLARED_SEPARATOR)).flatMap(({ text, part }, _index, parts) =>
          inferred(text.replace(LOGO_WORDING, ''), 'header:img:alt', {
            standsAlone: false,
            wholeTitle: false,
            roleNamesRest: false,
          }).map((name) => (parts.length > 1 ? { ...name, part } : name)),
        ),
  );
}

/**
 * The domain label as a name: as the title writes it when the title has it as a word ("KBS" in "… l KBS WORLD"),
 * else capitalised ("Qq"): the page's own spelling before a guessed one.
 */
export function domainLabelName(label: string, title: string | null): string {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const written = title
    ? new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'iu').exec(clippedText(title))
    : null;
  return written ? written[0] : label.charAt(0).toUpperCase() + label.slice(1);
}

/**
 * The best-supported name, with the source and confidence of its best signal (at least medium when two sources
 * agree), or null when no name is supported. Names are compared by their letters and digits, a name styled as a host
 * without its top-level domain (CNNArabic.com is CNNArabic). Ranked by: the number of declaring sources; then the
 * number of sources plus one for matching the domain label; then the best source's priority (the order given); then
 * a name spelling the whole label over one that is a piece of it; then the shorter name. A name that may not stand
 * alone counts only with a second source or the domain behind it, and one of more than a few words only with a second
 * source. Names at the edges of an unsplit title that the domain or another source gives are candidates of the title.
 */
export function chooseSiteName(
  given: readonly NameSignal[],
  domainLabel: string | null,
): Sourced<string> | null {
  const others = [
    ...new Set(given.filter(({ source }) => source !== 'title').map(({ value }) => value)),
  ].slice(0, MAX_NAMES_SOUGHT);
  const signals = given.flatMap((signal) => [signal, ...namesInsideTitle(signal, others, domainLabel)]);
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
    // A title part of more than a few words is a headline, even one holding the label's letters ("… (IIJmio
    // meeting 23資料公開)" on iij.ad.jp).
    const headline = best.source === 'title' && wordCount(best.value) > FEW_WORDS;
    const match = headline ? 0 : domainMatch(best.value, domainLabel);
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
      ({ group, sources, support }) =>
        domainLabel === null ||
        group.some((signal) => signal.standsAlone) ||
        sources >= 2 ||
        (support >= 2 && !(group[0]?.wholeTitle && wordCount(group[0].value) > FEW_WORDS)),
    )
    .sort(
      (a, b) =>
        b.declared - a.declared ||
        b.support - a.support ||
        sourceRank(a.best) - sourceRank(b.best) ||
        b.match - a.match ||
        (a.best.part ?? 0) - (b.best.part ?? 0) ||
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

/**
 * The parts of a split declared value or alt text with their rank among equals: first the first, a part written as a
 * host ("acme-widgets.co.uk | Acme Widgets") after those written as names.
 */
function partsInOrder(parts: readonly string[]): Array<{ text: string; part: number }> {
  return parts.map((text, index) => ({
    text,
    part: index + (HOST_STYLED.test(text.trim()) ? parts.length : 0),
  }));
}

/** A title's or a declared value's parts between separators, empty ones left out. */
function titleParts(text: string, separator: RegExp = TITLE_SEPARATOR): string[] {
  return clippedText(text)
    .split(separator)
    .filter((part) => part.trim() !== '');
}

/**
 * A name read off the title or a logo: a part without a letter or digit ("♡", "—") is punctuation, not a name. With
 * `roleNamesRest`, a part a role word was cut from ("Acme Startseite") stands alone when it has a few words.
 */
function inferred(
  text: string,
  source: SourceName,
  use: Pick<NameSignal, 'standsAlone' | 'wholeTitle'> & { roleNamesRest: boolean },
): NameSignal[] {
  const { standsAlone, wholeTitle, roleNamesRest } = use;
  const signals = signalOf(candidate(text, source), { declared: false, standsAlone, wholeTitle });
  return signals
    .filter(({ value }) => /[\p{L}\p{N}]/u.test(value))
    .map((signal) =>
      roleNamesRest && signal.value !== fieldText(text) && wordCount(signal.value) <= FEW_WORDS
        ? { ...signal, standsAlone: true }
        : signal,
    );
}

function signalOf(
  found: Candidate,
  use: Pick<NameSignal, 'declared' | 'standsAlone' | 'wholeTitle'>,
): NameSignal[] {
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

/**
 * Names sitting at the start or end of a title part without a usual separator ("Kinopoisk. Videos, films and
 * series", "Welcome to GOV.UK", "ไทยรัฐ ข่าว…" beside a logo saying ไทยรัฐ): the words there that another source
 * names, or, in an unsplit title, that spell the domain label, as the title writes them. They are the title's
 * candidates, needing that agreement to count.
 */
function namesInsideTitle(
  title: NameSignal,
  others: readonly string[],
  domainLabel: string | null,
): NameSignal[] {
  if (title.source !== 'title') return [];
  // The domain label only in an unsplit title: a part of a split one is often a headline, whose words may spell a
  // label that is a common word ("Latest news | Ledger" on news.example).
  const found = [
    ...others.flatMap((name) => namesAtEdges(title.value, name, !title.wholeTitle)),
    ...(title.wholeTitle ? labelAtEdges(title.value, domainLabel) : []),
  ];
  return [...new Set(found)]
    .filter((name) => nameKey(name) !== nameKey(title.value))
    .map((name) => ({ ...title, value: name, standsAlone: false, wholeTitle: false }));
}

/**
 * The name as the title spells it at its start and its end, where it ends at a word's boundary; with `punctuated`
 * (a part of a split title, which may be a name of several words: "Northwind Outfitters" beside a short name
 * "Northwind"), only where a mark sets it apart ("Кинопоиск. Онлайн-кинотеатр").
 */
function namesAtEdges(title: string, name: string, punctuated: boolean): string[] {
  const length = name.length;
  if (length === 0 || length >= title.length) return [];
  const sought = name.toLowerCase();
  const start = title.slice(0, length);
  const end = title.slice(title.length - length);
  const startsApart =
    wordBoundary(start.at(-1), title.charAt(length)) && (!punctuated || MARK_AFTER.test(title.slice(length)));
  const endsApart =
    wordBoundary(title.charAt(title.length - length - 1), end.charAt(0)) &&
    (!punctuated || MARK_BEFORE.test(title.slice(0, title.length - length)));
  return [
    ...(start.toLowerCase() === sought && startsApart ? [start] : []),
    ...(end.toLowerCase() === sought && endsApart ? [end] : []),
  ];
}

/**
 * Whether two neighbouring characters are in different words: not both letters, digits or marks inside words
 * (Brewer's, Acme-Widgets) of one spaced script.
 */
function wordBoundary(a: string | undefined, b: string | undefined): boolean {
  const isWordChar = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}'’-]/u.test(char);
  if (!isWordChar(a) || !isWordChar(b)) return true;
  if (/['’-]/u.test(`${a}${b}`)) return false;
  const isLatin = (char: string) => /[\p{sc=Latin}\d]/u.test(char);
  return (
    UNSPACED.test(a as string) || UNSPACED.test(b as string) || isLatin(a as string) !== isLatin(b as string)
  );
}

/** Runs of Latin words at the title's start or end that spell the domain label ("GOV.UK" on www.gov.uk). */
function labelAtEdges(title: string, domainLabel: string | null): string[] {
  const label = compact(domainLabel ?? '');
  if (label === '') return [];
  const words = [...title.matchAll(LATIN_WORD)].map((match) => ({
    start: match.index,
    end: match.index + match[0].length,
  }));
  const apart = (from: number, to: number) => !/[\p{L}\p{N}]/u.test(title.slice(from, to));
  const spans: string[] = [];
  const first = words[0];
  const last = words.at(-1);
  if (first && apart(0, first.start)) {
    for (let end = 0; end < Math.min(words.length, MAX_SPAN_WORDS); end++) {
      const word = words[end] as { start: number; end: number };
      if (end > 0 && !apart((words[end - 1] as { end: number }).end, word.start)) break;
      const text = title.slice(first.start, word.end);
      if (compact(text) === label) spans.push(text);
    }
  }
  if (last && apart(last.end, title.length)) {
    for (let start = words.length - 1; start >= Math.max(0, words.length - MAX_SPAN_WORDS); start--) {
      const word = words[start] as { start: number; end: number };
      if (start < words.length - 1 && !apart(word.end, (words[start + 1] as { start: number }).start)) break;
      const text = title.slice(word.start, last.end);
      if (compact(text) === label) spans.push(text);
    }
  }
  return spans;
}

/** Words, those of scripts written without spaces counted one per two letters. */
function wordCount(text: string): number {
  const unspaced = text.match(UNSPACED_ALL)?.length ?? 0;
  const spaced = text
    .replace(UNSPACED_ALL, ' ')
    .split(/\s+/)
    .filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
  return spaced + Math.ceil(unspaced / 2);
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
  // "Better Homes & Gardens" is "Better Homes and Gardens".
  const plain = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\s+&\s+/g, ' and ');
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
