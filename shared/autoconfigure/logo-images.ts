import type { HTMLElement } from 'node-html-parser';
import { colorSchemeOf, httpUrl, inherited, siteChromeOf, siteHost } from './html-document.ts';
import { attributeOf, idOf, textOf } from './third-party-text.ts';

/** Logo images in the page's markup: `itemprop=logo`, the logo image of the site's header, the image linking home. */

/** Elements marked `itemprop="logo"` (an img, or a meta/link carrying the URL). */
export function itempropLogos(root: HTMLElement): HTMLElement[] {
  return root
    .querySelectorAll('[itemprop]')
    .filter((element) => (attributeOf(element, 'itemprop') ?? '').split(/\s+/).includes('logo'));
}

export function itempropLogoUrl(element: HTMLElement): string | undefined {
  return attributeOf(element, 'src') ?? attributeOf(element, 'content') ?? attributeOf(element, 'href');
}

/** Images in the header or nav that say they are a logo (class, id, alt, file name, or those of their wrapper). */
export function headerLogoImages(images: readonly HTMLElement[]): HTMLElement[] {
  return images.filter((img) => siteChromeOf(img) === 'header' && mentionsLogo(img));
}

/**
 * The first image that is all a link to the site's home page holds (`<a href="/"><img></a>`), outside the footer and
 * outside quoted or article content: how a site marks its logo when no header element or class names the banner it
 * sits in (`<div id="Banner">`, `<div id="cnn_hdr">` of sites older than HTML5's header). The banner comes first; a
 * later one is a sidebar's, and a footer's is often drawn for a dark background. `base` resolves the links; the home
 * page is the root of `page`'s site. Empty or one image.
 */
export function homeLinkImages(images: readonly HTMLElement[], base: URL, page: URL): HTMLElement[] {
  // Each link judged once: a <picture> in it may hold thousands of images.
  const homeLinks = new Map<HTMLElement, boolean>();
  const first = images.find((img) => {
    const link = linkAround(img);
    if (link === null) return false;
    let isHomeLink = homeLinks.get(link);
    if (isHomeLink === undefined) {
      isHomeLink = holdsOneImageOnly(link) && linksHome(link, base, page);
      homeLinks.set(link, isHomeLink);
    }
    return isHomeLink && !isSpacerOrIcon(img) && siteChromeOf(img) !== 'footer' && !isInForeignContent(img);
  });
  return first === undefined ? [] : [first];
}

function holdsOneImageOnly(link: HTMLElement): boolean {
  const [child] = link.children;
  const images =
    child?.tagName.toLowerCase() === 'picture'
      ? child.children.filter((element) => element.tagName.toLowerCase() === 'img').length
      : 1;
  return images === 1 && textOf(link).trim() === '';
}

function linksHome(link: HTMLElement, base: URL, page: URL): boolean {
  const href = attributeOf(link, 'href')?.trim() ?? '';
  // `#top`, `#` stay on the page: they link home only from the home page, and are not its home link.
  return !href.startsWith('#') && isHomePage(httpUrl(href, base), page);
}

// Quoted, article or hidden content (as siteChromeOf reads it), worked out once per element: a walk up to the root
// for each image would cost images × depth.
const FOREIGN_TAGS = new Set(['article', 'blockquote', 'template']);
const inForeignContent = new WeakMap<HTMLElement, boolean>();

function isInForeignContent(element: HTMLElement): boolean {
  return inherited(
    inForeignContent,
    element,
    false,
    (isForeign, node) =>
      isForeign || FOREIGN_TAGS.has(node.tagName.toLowerCase()) || node.hasAttribute('hidden'),
  );
}

/**
 * A transparent placeholder (`transparent.gif`, `spacer.gif`, `1x1.png`), an image drawn 1 pixel wide or high (a link
 * home that shows its logo as a CSS background holds one), or one drawn under 24 pixels both ways (a house icon
 * beside a menu): not the logo. A wordmark may be 20 pixels high, but not also that narrow.
 */
function isSpacerOrIcon(img: HTMLElement): boolean {
  const fileName = (attributeOf(img, 'src') ?? '').split(/[?#]/)[0]?.split('/').pop() ?? '';
  const [width, height] = ['width', 'height'].map((name) => Number.parseFloat(attributeOf(img, name) ?? ''));
  const isDrawnSmall = (side: number | undefined) => side !== undefined && side <= 1;
  const isIconSized = (side: number | undefined) => side !== undefined && side < 24;
  return (
    isDrawnSmall(width) ||
    isDrawnSmall(height) ||
    (isIconSized(width) && isIconSized(height)) ||
    /^(?:transparent|spacer|blank|clear|pixel|px|1x1|s)\.(?:gif|png)$/i.test(fileName)
  );
}

/** The `<a href>` an image (or its `<picture>`) is the only element of, or null. */
function linkAround(img: HTMLElement): HTMLElement | null {
  const element = img.parentNode?.tagName?.toLowerCase() === 'picture' ? img.parentNode : img;
  const link = element.parentNode;
  const isLink = link?.tagName?.toLowerCase() === 'a' && link.hasAttribute('href');
  return isLink && link.children.length === 1 ? link : null;
}

/** `/` (or `/index.html`, `/index.php`…) on the page's own site, without a query. */
function isHomePage(url: URL | null, page: URL): boolean {
  return (
    url !== null &&
    siteHost(url) === siteHost(page) &&
    /^\/(?:index\.\w+)?$/i.test(url.pathname) &&
    url.search === ''
  );
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
  if (source === null) return null;
  return attributeOf(source, 'srcset')?.trim().split(/\s+/)[0]?.replace(/,$/, '') ?? null;
}

// Found once per <picture>, and whether a wrapper mentions a logo once per wrapper: a page may put thousands of
// images in one.
const darkSources = new WeakMap<HTMLElement, HTMLElement | null>();
const wrappersMentioningLogo = new WeakMap<HTMLElement, boolean>();

function mentionsLogo(img: HTMLElement): boolean {
  const own = ['class', 'id', 'alt', 'src'].map((attribute) => attributeOf(img, attribute) ?? '');
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
    mentions = /logo/i.test(attributeOf(wrapper, 'class') ?? '') || /logo/i.test(idOf(wrapper));
    wrappersMentioningLogo.set(wrapper, mentions);
  }
  return mentions;
}
