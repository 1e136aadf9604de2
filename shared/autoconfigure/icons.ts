import type { HTMLElement } from 'node-html-parser';

/** Icons declared by `<link>` tags or a web manifest, compared by their declared size. */

export interface Icon {
  href: string;
  sizes: string;
}

export function iconOf(link: HTMLElement): Icon {
  return { href: link.getAttribute('href') ?? '', sizes: link.getAttribute('sizes') ?? '' };
}

export function isPngOrSvgIcon(link: HTMLElement): boolean {
  const type = link.getAttribute('type')?.trim().toLowerCase();
  if (type) return type === 'image/png' || type === 'image/svg+xml';
  return /\.(?:png|svg)(?:[?#]|$)/i.test(link.getAttribute('href') ?? '');
}

/** The icon with the largest declared size (`sizes="any"`, i.e. SVG, counts as largest); first one on ties. */
export function largestIcon(icons: readonly Icon[]): string | null {
  let best: { href: string; side: number } | null = null;
  for (const icon of icons) {
    const side = largestSide(icon);
    if (best === null || side > best.side) best = { href: icon.href, side };
  }
  return best?.href ?? null;
}

function largestSide({ href, sizes }: Icon): number {
  const isScalable = /\bany\b/i.test(sizes) || (sizes === '' && /\.svg(?:[?#]|$)/i.test(href));
  if (isScalable) return Number.POSITIVE_INFINITY;
  // A match starts only where a number does: from inside a long run of digits it could only fail again.
  const sides = [...sizes.matchAll(/(?<!\d)(\d+)x(\d+)/gi)].map((match) =>
    Math.min(Number(match[1]), Number(match[2])),
  );
  return Math.max(0, ...sides);
}
