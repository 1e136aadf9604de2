import type { HTMLElement } from 'node-html-parser';
import { isJsonObject, type JsonObject, listOf, nonEmptyString, parseJsonOrNull } from './json-values.ts';

/** What a page's JSON-LD says about the site's owner. URLs are as written; callers resolve them. */
export interface JsonLdFacts {
  organizationName: string | null;
  websiteName: string | null;
  description: string | null;
  logo: { url: string; isSquare: boolean } | null;
  sameAs: string[];
}

// Organization and its common subtypes (NewsMediaOrganization, Corporation, LocalBusiness, OnlineStore, ...).
const ORGANIZATION_TYPE = /(?:Organization|Corporation|Business|Store|NGO)$/;

export function readJsonLd(root: HTMLElement): JsonLdFacts {
  const nodes = root
    .querySelectorAll('script[type]')
    .filter((script) => script.getAttribute('type')?.trim().toLowerCase() === 'application/ld+json')
    .flatMap((script) => topLevelNodes(parseJsonOrNull(script.rawText)));
  const organization = nodes.find((node) => typesOf(node).some((type) => ORGANIZATION_TYPE.test(type)));
  const website = nodes.find((node) => typesOf(node).includes('WebSite'));
  return {
    organizationName: nonEmptyString(organization?.name),
    websiteName: nonEmptyString(website?.name),
    description: nonEmptyString(organization?.description) ?? nonEmptyString(website?.description),
    logo: logoOf(organization?.logo),
    sameAs: [organization?.sameAs, website?.sameAs].flatMap(listOf).filter((url) => typeof url === 'string'),
  };
}

/**
 * The entities a page states about itself: top-level items, `@graph` members and their `publisher`. Deeper nodes
 * (a product's manufacturer, an article's author) describe someone else.
 */
function topLevelNodes(value: unknown): JsonObject[] {
  if (Array.isArray(value)) return value.flatMap(topLevelNodes);
  if (!isJsonObject(value)) return [];
  const graph = listOf(value['@graph']).flatMap(topLevelNodes);
  const publisher = listOf(value.publisher).filter(isJsonObject);
  return [value, ...graph, ...publisher];
}

function logoOf(value: unknown): JsonLdFacts['logo'] {
  const logo = listOf(value)[0];
  const image = isJsonObject(logo) ? logo : {};
  const url = nonEmptyString(logo) ?? nonEmptyString(image.url) ?? nonEmptyString(image.contentUrl);
  const width = dimensionOf(image.width);
  return url === null ? null : { url, isSquare: width !== null && width === dimensionOf(image.height) };
}

/** `512`, `"512"`, `"512px"` or a QuantitativeValue `{value: 512}`. */
function dimensionOf(value: unknown): number | null {
  const raw = isJsonObject(value) ? value.value : value;
  const number = Number.parseFloat(String(raw ?? ''));
  return Number.isFinite(number) && number > 0 ? number : null;
}

function typesOf(node: JsonObject): string[] {
  return listOf(node['@type']).filter((type) => typeof type === 'string');
}
