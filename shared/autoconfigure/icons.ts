import type { HTMLElement } from 'node-html-parser';
import { LIMITS } from '../limits.ts';
import { httpUrl } from './html-document.ts';
import type { Candidate, Sourced } from './provenance.ts';

/** Icons declared by `<link>` tags, a web manifest or JSON-LD, ranked by the size they declare. */

export interface Icon {
  href: string;
  sizes: string;
}

/** A square logo candidate and the side it declares in pixels (Infinity when scalable, null when it says none). */
export type SizedCandidate = Candidate & { side: number | null };

export function iconOf(link: HTMLElement): Icon {
  return { href: link.getAttribute('href') ?? '', sizes: link.getAttribute('sizes') ?? '' };
}

export function isPngOrSvgIcon(link: HTMLElement): boolean {
  const type = link.getAttribute('type')?.trim().toLowerCase();
  if (type) return type === 'image/png' || type === 'image/svg+xml';
  return /\.(?:png|svg)(?:[?#]|$)/i.test(link.getAttribute('href') ?? '');
}

/** The largest side an icon's `sizes` declares: Infinity for `any` (or an SVG without sizes), null for none. */
export function declaredSide({ href, sizes }: Icon): number | null {
  const isScalable = /\bany\b/i.test(sizes) || (sizes.trim() === '' && /\.svg(?:[?#]|$)/i.test(href));
  if (isScalable) return Number.POSITIVE_INFINITY;
  // A match starts only where a number does: from inside a long run of digits it could only fail again.
  const sides = [...sizes.matchAll(/(?<!\d)(\d+)x(\d+)/gi)].map((match) =>
    Math.min(Number(match[1]), Number(match[2])),
  );
  return sides.length > 0 ? Math.max(...sides) : null;
}

/**
 * The square logo among candidates given in their sources' priority order (each source's candidates together).
 * Which of them is too small to be a logo (below autoConfigureSquareLogoMinSide) is read, best first, from the size
 * the candidate declares, then the size the page declares for the same URL elsewhere (a favicon link with `sizes`
 * naming the touch icon's file), then a `57x57` in its file name (`apple-touch-icon-57x57.png`; a weak hint, read
 * only when nothing is declared). The first source with a candidate not known to be too small gives its largest
 * (an unknown size after every known one); the order of the sources is kept, so a touch icon of unknown size still
 * comes before a larger favicon. When every candidate is too small, the largest of them is suggested with low
 * confidence whatever its source: it would show scaled up in the slot.
 */
export function bestSquareLogo(candidates: readonly SizedCandidate[], base: URL): Sourced<string> | null {
  const resolved = candidates.flatMap((found) => {
    const url = httpUrl(found.value, base);
    return url === null ? [] : [{ ...found, value: url.href }];
  });
  const declared = new Map<string, number>();
  for (const { value, side } of resolved) {
    if (side !== null) declared.set(value, Math.max(side, declared.get(value) ?? 0));
  }
  const sized = resolved.map((found) => ({
    ...found,
    side: found.side ?? declared.get(found.value) ?? sideInFileName(found.value),
  }));
  const isTooSmall = ({ side }: { side: number | null }) =>
    side !== null && side < LIMITS.autoConfigureSquareLogoMinSide;
  const fitting = sized.filter((found) => !isTooSmall(found));
  const first = fitting[0];
  if (first !== undefined) {
    const best = largest(fitting.filter((found) => found.source === first.source));
    return { value: best.value, source: best.source, confidence: best.confidence };
  }
  const smallest = sized.length > 0 ? largest(sized) : null;
  return smallest === null ? null : { value: smallest.value, source: smallest.source, confidence: 'low' };
}

/** The candidate of largest side, unknown sides last, the first one on ties; `candidates` is not empty. */
function largest<T extends { side: number | null }>(candidates: readonly T[]): T {
  return candidates.reduce((best, found) => ((found.side ?? -1) > (best.side ?? -1) ? found : best));
}

/** A square size in a URL's file name (`apple-touch-icon-57x57-precomposed.png`, `logo_72x72.png`), else null. */
function sideInFileName(href: string): number | null {
  const fileName = new URL(href).pathname.split('/').pop() ?? '';
  const match = /(?<!\d)(\d{2,4})x\1(?!\d)/i.exec(fileName);
  return match?.[1] === undefined ? null : Number(match[1]);
}
