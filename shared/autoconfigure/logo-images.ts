import type { HTMLElement } from 'node-html-parser';
import { colorSchemeOf, siteChromeOf } from './html-document.ts';

/** Logo images in the page's markup: `itemprop=logo` and the logo image of the site's header. */

/** Elements marked `itemprop="logo"` (an img, or a meta/link carrying the URL). */
export function itempropLogos(root: HTMLElement): HTMLElement[] {
  return root
    .querySelectorAll('[itemprop]')
    .filter((element) => (element.getAttribute('itemprop') ?? '').split(/\s+/).includes('logo'));
}

export function itempropLogoUrl(element: HTMLElement): string | undefined {
  return element.getAttribute('src') ?? element.getAttribute('content') ?? element.getAttribute('href');
}

/** Images in the header or nav that say they are a logo (class, id, alt, file name, or those of their wrapper). */
export function headerLogoImages(root: HTMLElement): HTMLElement[] {
  return root.querySelectorAll('img').filter((img) => siteChromeOf(img) === 'header' && mentionsLogo(img));
}

/**
 * The dark-mode image of a logo `<img>` inside `<picture>`: the first URL of the srcset of a `<source>` whose media
 * is `(prefers-color-scheme: dark)`.
 */
export function darkPictureSource(img: HTMLElement): string | null {
  const picture = img.parentNode;
  if (picture?.tagName?.toLowerCase() !== 'picture') return null;
  let source = darkSources.get(picture);
  if (source === undefined) {
    source =
      picture
        .querySelectorAll('source')
        .find((element) => element.parentNode === picture && colorSchemeOf(element) === 'dark') ?? null;
    darkSources.set(picture, source);
  }
  return source?.getAttribute('srcset')?.trim().split(/\s+/)[0]?.replace(/,$/, '') ?? null;
}

// Found once per <picture>, and whether a wrapper mentions a logo once per wrapper: a page may put thousands of
// images in one.
const darkSources = new WeakMap<HTMLElement, HTMLElement | null>();
const wrappersMentioningLogo = new WeakMap<HTMLElement, boolean>();

function mentionsLogo(img: HTMLElement): boolean {
  const own = ['class', 'id', 'alt', 'src'].map((attribute) => img.getAttribute(attribute) ?? '');
  // A <picture> wrapper says nothing; look past it.
  const first = img.parentNode?.tagName?.toLowerCase() === 'picture' ? img.parentNode : img;
  return (
    own.some((text) => /logo/i.test(text)) ||
    [first.parentNode, first.parentNode?.parentNode].some(
      (node) => node?.tagName && wrapperMentionsLogo(node),
    )
  );
}

function wrapperMentionsLogo(wrapper: HTMLElement): boolean {
  let mentions = wrappersMentioningLogo.get(wrapper);
  if (mentions === undefined) {
    mentions = /logo/i.test(wrapper.getAttribute('class') ?? '') || /logo/i.test(wrapper.id);
    wrappersMentioningLogo.set(wrapper, mentions);
  }
  return mentions;
}
