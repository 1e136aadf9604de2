import type { HTMLElement } from 'node-html-parser';
import { LIMITS } from '../limits.ts';
import { httpUrl } from './html-document.ts';
import { type Candidate, firstAccepted, type Sourced } from './provenance.ts';
import { attributeOf } from './third-party-text.ts';

/** Icons declared by `<link>` tags, a web manifest or JSON-LD, ranked by the size they declare. */

export interface Icon {
  href: string;
  sizes: string;
}

/** A square logo candidate and the side it declares in pixels (Infinity when scalable, null when it says none). */
export type SizedCandidate = Candidate & { side: number | null };

export function iconOf(link: HTMLElement): Icon {
  return { href: attributeOf(link, 'href') ?? '', sizes: attributeOf(link, 'sizes') ?? '' };
}

export function isPngOrSvgIcon(link: HTMLElement): boolean {
  const type = attributeOf(link, 'type')?.trim().toLowerCase();
  if (type) return type === 'image/png' || type === 'image/svg+xml';
  return /\.(?:png|svg)(?:[?#]|$)/i.test(attributeOf(link, 'href') ?? '');
}

/** The largest side an icon's `sizes` declares: Infinity for `any` (or an SVG without sizes), null for none. */
export function declaredSide({ href, sizes }: Icon): number | null {
  if (sizes.trim() === '') return /\.svg(?:[?#]|$)/i.test(href) ? Number.POSITIVE_INFINITY : null;
  if (/\bany\b/i.test(sizes)) return Number.POSITIVE_INFINITY;
  let largest: number | null = null;
  // A match starts only where a number does: from inside a long run of digits it could only fail again.
  for (const match of sizes.matchAll(/(?<!\d)(\d+)x(\d+)/gi)) {
    largest = Math.max(largest ?? 0, Math.min(Number(match[1]), Number(match[2])));
  }
  return largest;
}

/**
 * The square logo among candidates given in their sources' priority order (each source's candidates together).
 * Which of them is too small to be a logo (below autoConfigureSquareLogoMinSide) is read, best first, from the size
 * the candidate declares, then the size the page declares for the same URL elsewhere (a favicon link with `sizes`
 * naming the touch icon's file), then a `57x57` in its file name (`apple-touch-icon-57x57.png`; a weak hint, read
 * only when nothing is declared). The first source with a candidate not known to be too small gives its largest
 * (an unknown size after every known one); the order of the sources is kept, so a touch icon of unknown size still
 * comes before a larger favicon. When every candidate is too small, the largest of them is suggested with low
 * confidence whatever its source: it would show scaled up in the slot. A URL create-brand would refuse is passed
 * over for the next in that order.
 */
export function bestSquareLogo(candidates: readonly SizedCandidate[], base: URL): Sourced<string> | null {
  const declared = new Map<string, number>();
  for (const { value, side } of candidates) {
    if (value && side !== null) declared.set(value, Math.max(side, declared.get(value) ?? 0));
  }
  // Each candidate's rank in three arrays (a page may declare thousands): its source's place in the priority
  // order, its side (-1 unknown), whether it is too small.
  const groups = new Int32Array(candidates.length);
  const sides = new Float64Array(candidates.length);
  const tooSmall = new Uint8Array(candidates.length);
  let best = -1;
  for (const [index, { value, source, side }] of candidates.entries()) {
    groups[index] =
      (groups[index - 1] ?? 0) + (index > 0 && source !== candidates[index - 1]?.source ? 1 : 0);
    const known = side ?? declared.get(value ?? '') ?? sideInFileName(value ?? '');
    sides[index] = known ?? -1;
    tooSmall[index] = known !== null && known < LIMITS.autoConfigureSquareLogoMinSide ? 1 : 0;
    if (best === -1 || ranks(index, best) < 0) best = index;
  }
  // Fitting ones first, by source then size; then the small ones by size alone; ties keep the page's order.
  function ranks(a: number, b: number): number {
    const small = tooSmall[a] ?? 0;
    return (
      small - (tooSmall[b] ?? 0) ||
      (small ? 0 : (groups[a] ?? 0) - (groups[b] ?? 0)) ||
      (sides[b] ?? 0) - (sides[a] ?? 0)
    );
  }
  if (best === -1) return null;
  const ranked = (index: number): Candidate => {
    const found = candidates[index] as SizedCandidate;
    return tooSmall[index] ? { ...found, confidence: 'low' } : found;
  };
  const accepted = (value: string | null | undefined) => httpUrl(value, base)?.href ?? null;
  // The best one is usually a URL create-brand takes: found in that one pass; else every one in order.
  return (
    firstAccepted([ranked(best)], accepted) ??
    firstAccepted(Array.from(candidates.keys()).sort(ranks).map(ranked), accepted)
  );
}

/** A square size in a URL's file name (`apple-touch-icon-57x57-precomposed.png`, `logo_72x72.png`), else null. */
function sideInFileName(href: string): number | null {
  const end = href.search(/[?#]|$/);
  const fileName = href.slice(href.lastIndexOf('/', end) + 1, end);
  const match = /(?<!\d)(\d{2,4})x\1(?!\d)/i.exec(fileName);
  return match?.[1] === undefined ? null : Number(match[1]);
}
