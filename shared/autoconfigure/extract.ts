import type { HTMLElement } from 'node-html-parser';
import { SUGGESTED_FIELDS } from '../domain/brand.ts';
import { LIMITS } from '../limits.ts';
import { pickBrandColors } from './colors.ts';
import {
  colorSchemeOf,
  contentOf,
  fieldText,
  httpUrl,
  linksWithRel,
  MetaTags,
  type ParsedPage,
} from './html-document.ts';
import {
  bestSquareLogo,
  declaredSide,
  type Icon,
  iconOf,
  isPngOrSvgIcon,
  type SizedCandidate,
} from './icons.ts';
import { entitiesOf, type JsonLdFacts, readJsonLd } from './json-ld.ts';
import {
  darkPictureSource,
  headerLogoImages,
  homeLinkImages,
  itempropLogos,
  itempropLogoUrl,
} from './logo-images.ts';
import { profileLinksOf } from './profile-links.ts';
import {
  type Candidate,
  type Confidence,
  candidate,
  firstAccepted,
  jsonLdCandidate,
  type Sourced,
} from './provenance.ts';
import { domainLabelOf } from './site-domain.ts';
import { attributeOf } from './third-party-text.ts';
import {
  chooseSiteName,
  declaredNames,
  domainLabelName,
  logoAltNames,
  titleNames,
  titleOf,
} from './title-name.ts';
import type { ManifestIcon, WebManifest } from './web-manifest.ts';

/** Every suggested field but social_links (SUGGESTED_FIELDS: the declaration's, in the answer's order). */
type ScalarField = (typeof SUGGESTED_FIELDS)[number];

/** Suggested create-brand input. Every value is valid create-brand input as it stands; null when not derivable. */
export type BrandSuggestions = Record<ScalarField, string | null> & {
  /** Network name (socialNetworkOf) → profile URL. */
  social_links: Record<string, string> | null;
};

/** Per suggested field (only those not null), a fact about it; social links per network. */
export type PerField<T> = { [Field in ScalarField]?: T } & { social_links?: Record<string, T> };

/** Values for a dark colour scheme, when the page declares them; never part of `suggestions`. */
export type DarkVariant = Partial<
  Pick<BrandSuggestions, 'primary_color' | 'secondary_color' | 'logo_image' | 'logo_square_image'>
>;

/** What auto-configure answers: the suggestions, where each came from, how sure it is, and dark-mode values. */
export interface AutoConfiguration {
  suggestions: BrandSuggestions;
  sources: PerField<string>;
  confidence: PerField<Confidence>;
  /** `{}` when the page declares no dark-mode values, else `{dark: {...}}` with only the values found. */
  variants: { dark?: DarkVariant };
}

/** Everything extractors read, gathered once per page. */
interface Facts {
  page: ParsedPage;
  meta: MetaTags;
  jsonLd: JsonLdFacts;
  manifest: WebManifest | null;
  /** What may be the horizontal logo in the markup (and hold its dark `<picture>` source). */
  logoElements: { itemprop: HTMLElement[]; header: HTMLElement[]; homeLink: HTMLElement[] };
}

/**
 * Brand suggestions from a parsed page (and its web manifest, when one was fetched), with their provenance. Pure: no
 * I/O. Each field takes the first usable value in its priority order (the functions below, each listing its sources
 * best first).
 */
export function autoConfiguration(page: ParsedPage, manifest: WebManifest | null = null): AutoConfiguration {
  const facts: Facts = {
    page,
    meta: new MetaTags(page.root),
    jsonLd: readJsonLd(page.root, page.url),
    manifest,
    logoElements: logoElementsOf(page),
  };
  const colors = pickBrandColors(colorCandidates(facts, 'light'));
  const fields: Record<ScalarField, Sourced<string> | null> = {
    website_url: firstUrl(page.url, [candidate(page.url.origin, 'url')]),
    name: nameOf(facts),
    short_description: descriptionOf(facts),
    primary_color: colors.primary,
    secondary_color: colors.secondary,
    logo_image: firstUrl(page.baseUrl, horizontalLogoCandidates(facts)),
    logo_square_image: bestSquareLogo(squareLogoCandidates(facts, 'light'), page.baseUrl),
    // No metadata names an email banner; anything else would be a guess from random body images.
    header_image: null,
    footer_image: null,
    social_share_image: shareImageOf(facts),
  };
  return {
    ...withProvenance(fields, profileLinksOf(page, facts.meta, facts.jsonLd)),
    variants: variantsOf(facts),
  };
}

function logoElementsOf(page: ParsedPage): Facts['logoElements'] {
  const images = page.root.querySelectorAll('img');
  return {
    itemprop: itempropLogos(page.root),
    header: headerLogoImages(images),
    homeLink: homeLinkImages(images, page.baseUrl, page.url),
  };
}

/** The suggestions alone. */
export function extractSuggestions(page: ParsedPage, manifest: WebManifest | null = null): BrandSuggestions {
  return autoConfiguration(page, manifest).suggestions;
}

/** The page's `<link rel=manifest>`, resolved, if any. */
export function manifestUrlOf(page: ParsedPage): string | null {
  const link = linksWithRel(page, 'manifest')[0];
  return httpUrl(link === undefined ? undefined : attributeOf(link, 'href'), page.baseUrl)?.href ?? null;
}

function withProvenance(
  fields: Record<ScalarField, Sourced<string> | null>,
  profiles: Record<string, Sourced<string>>,
): Omit<AutoConfiguration, 'variants'> {
  const suggestions = {} as BrandSuggestions;
  const sources: PerField<string> = {};
  const confidence: PerField<Confidence> = {};
  for (const field of SUGGESTED_FIELDS) {
    const found = fields[field];
    suggestions[field] = found?.value ?? null;
    if (found !== null) {
      sources[field] = found.source;
      confidence[field] = found.confidence;
    }
  }
  suggestions.social_links = null;
  if (Object.keys(profiles).length > 0) {
    suggestions.social_links = mapValues(profiles, (found) => found.value);
    sources.social_links = mapValues(profiles, (found) => found.source);
    confidence.social_links = mapValues(profiles, (found) => found.confidence);
  }
  return { suggestions, sources, confidence };
}

/**
 * The name the page's signals agree on (title-name.ts), declared names first in priority order, then the title's
 * parts and the header logo's alt text; else the domain label.
 */
function nameOf({ page, meta, jsonLd, manifest, logoElements }: Facts): Sourced<string> | null {
  const label = domainLabelOf(page.url);
  const title = titleOf(page.root);
  const declared = declaredNames(
    [
      ...nameCandidates(meta, 'og:site_name', 'application-name'),
      ...entitiesOf(jsonLd).map((entity) => jsonLdCandidate(entity.name, entity, 'name')),
      candidate(manifest?.name, 'manifest:name'),
      ...nameCandidates(meta, 'apple-mobile-web-app-title'),
      candidate(manifest?.shortName, 'manifest:short_name'),
    ],
    title,
  );
  const logoAlts = logoElements.header
    .slice(0, LIMITS.autoConfigureNameTextsPerSource)
    .map((img) => attributeOf(img, 'alt'));
  const inferred = [...titleNames(title), ...logoAltNames(logoAlts)];
  const domain = candidate(label === null ? null : domainLabelName(label, title), 'domain');
  return chooseSiteName([...declared, ...inferred], label) ?? firstAccepted([domain], fieldText);
}

function descriptionOf({ meta, jsonLd }: Facts): Sourced<string> | null {
  return firstAccepted(
    [
      ...metaCandidates(meta, 'og:description', 'description', 'twitter:description'),
      ...entitiesOf(jsonLd).map((entity) => jsonLdCandidate(entity.description, entity, 'description')),
    ],
    fieldText,
  );
}

/**
 * Colours for one scheme, best first. A theme-color for the other scheme is not this scheme's colour; one with no
 * scheme in its media counts for light, after those for light or without media.
 */
function colorCandidates({ page, meta, manifest }: Facts, scheme: 'light' | 'dark'): Candidate[] {
  const themeColors = meta.tags('theme-color').filter((tag) => (colorSchemeOf(tag) ?? 'light') === scheme);
  const ranked = [
    ...themeColors.filter((tag) => !tag.hasAttribute('media') || colorSchemeOf(tag) !== null),
    ...themeColors.filter((tag) => tag.hasAttribute('media') && colorSchemeOf(tag) === null),
  ];
  const theme = scheme === 'dark' ? manifest?.dark : manifest;
  const pageColors =
    scheme === 'dark'
      ? []
      : [
          ...metaCandidates(meta, 'msapplication-TileColor'),
          ...linksWithRel(page, 'mask-icon').map((link) =>
            candidate(attributeOf(link, 'color'), 'mask-icon'),
          ),
        ];
  return [
    ...ranked.map((tag) => candidate(contentOf(tag), 'theme-color')),
    ...pageColors,
    candidate(theme?.themeColor, 'manifest:theme_color'),
    candidate(theme?.backgroundColor, 'manifest:background_color'),
  ];
}

/**
 * Square logo candidates for one scheme, with the sides they declare, sources best first: apple-touch-icons, manifest
 * icons, a square JSON-LD logo, PNG/SVG icons (bestSquareLogo ranks them by size within that order).
 */
function squareLogoCandidates({ page, jsonLd, manifest }: Facts, scheme: 'light' | 'dark'): SizedCandidate[] {
  // An icon link's media may name a colour scheme (HTML's link media); no scheme counts for light.
  const forScheme = (link: HTMLElement) => (colorSchemeOf(link) ?? 'light') === scheme;
  const appleTouchIcons = linksWithRel(page, 'apple-touch-icon', 'apple-touch-icon-precomposed');
  const pngOrSvgIcons = linksWithRel(page, 'icon').filter(isPngOrSvgIcon);
  const manifestIcons = (scheme === 'dark' ? manifest?.dark.icons : manifest?.icons) ?? [];
  const logo = jsonLd.organization?.logo;
  return [
    ...sizedIcons(appleTouchIcons.filter(forScheme).map(iconOf), 'apple-touch-icon'),
    ...sizedIcons(manifestIcons.map(manifestIconOf), 'manifest:icons'),
    ...(scheme === 'light' && jsonLd.organization && logo?.isSquare
      ? [{ ...jsonLdCandidate(logo.url, jsonLd.organization, 'logo'), side: logo.side }]
      : []),
    ...sizedIcons(pngOrSvgIcons.filter(forScheme).map(iconOf), 'icon'),
  ];
}

function sizedIcons(
  icons: readonly Icon[],
  source: 'apple-touch-icon' | 'manifest:icons' | 'icon',
): SizedCandidate[] {
  return icons.map((icon) => Object.assign(candidate(icon.href, source), { side: declaredSide(icon) }));
}

/** Horizontal logo: JSON-LD logo, og:logo, itemprop=logo, a logo image in the header, an image linking home. */
function horizontalLogoCandidates({ meta, jsonLd, logoElements }: Facts): Candidate[] {
  const { organization } = jsonLd;
  return [
    ...(organization ? [jsonLdCandidate(organization.logo?.url, organization, 'logo')] : []),
    ...metaCandidates(meta, 'og:logo'),
    ...logoElements.itemprop.map((element) => candidate(itempropLogoUrl(element), 'itemprop:logo')),
    ...logoElements.header.map((img) => candidate(attributeOf(img, 'src'), 'header:img')),
    ...logoElements.homeLink.map((img) => candidate(attributeOf(img, 'src'), 'home-link:img')),
  ];
}

function shareImageOf({ page, meta }: Facts): Sourced<string> | null {
  return firstUrl(
    page.baseUrl,
    metaCandidates(
      meta,
      'og:image',
      'og:image:url',
      'og:image:secure_url',
      'twitter:image',
      'twitter:image:src',
    ),
  );
}

/**
 * Dark-mode values: the colours of theme-color tags for dark and the manifest's dark overrides; icon links for dark
 * and the manifest's dark icons; the dark `<source>` of a logo `<picture>`.
 */
function variantsOf(facts: Facts): AutoConfiguration['variants'] {
  const colors = pickBrandColors(colorCandidates(facts, 'dark'));
  const { itemprop, header, homeLink } = facts.logoElements;
  const logos = [...itemprop, ...header, ...homeLink];
  const dark: DarkVariant = {
    primary_color: colors.primary?.value,
    secondary_color: colors.secondary?.value,
    logo_image: logos
      .map((img) => httpUrl(darkPictureSource(img), facts.page.baseUrl)?.href)
      .find((href) => href !== undefined),
    logo_square_image: bestSquareLogo(squareLogoCandidates(facts, 'dark'), facts.page.baseUrl)?.value,
  };
  const found = Object.entries(dark).filter(([, value]) => value !== undefined);
  return found.length > 0 ? { dark: Object.fromEntries(found) } : {};
}

/**
 * The first autoConfigureNameTextsPerSource contents of each meta key naming the site: each is split into parts and
 * every part weighed, so a page that gives thousands would cost seconds.
 */
function nameCandidates(meta: MetaTags, ...keys: Array<Parameters<typeof candidate>[1]>): Candidate[] {
  return keys.flatMap((key) => metaCandidates(meta, key).slice(0, LIMITS.autoConfigureNameTextsPerSource));
}

/** Meta tags' contents, keys in priority order, each labelled with its key as written in the standard. */
function metaCandidates(meta: MetaTags, ...keys: Array<Parameters<typeof candidate>[1]>): Candidate[] {
  return keys.flatMap((key) => meta.contents(key.toLowerCase()).map((value) => candidate(value, key)));
}

function manifestIconOf(icon: ManifestIcon): Icon {
  return { href: icon.url.href, sizes: icon.sizes };
}

function firstUrl(base: URL, candidates: readonly Candidate[]): Sourced<string> | null {
  return firstAccepted(candidates, (value) => httpUrl(value, base)?.href ?? null);
}

function mapValues<T, U>(record: Record<string, T>, map: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
}
