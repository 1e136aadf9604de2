import type { HTMLElement } from 'node-html-parser';
import { httpUrl, siteHost } from './html-document.ts';
import {
  isJsonObject,
  JSON_BOUNDS,
  type JsonObject,
  jsonExtent,
  listOf,
  nonEmptyString,
  parseJsonOrNull,
} from './json-values.ts';
import { attributeOf, clipped } from './third-party-text.ts';

/** What one JSON-LD node says about an organisation or a website. URLs are as written; callers resolve them. */
export interface JsonLdEntity {
  /** The node's schema.org type, e.g. `Organization`, `NewsMediaOrganization`, `WebSite`. */
  type: string;
  /** Shown to describe the page's own site: its `url` is on the site, or it publishes the site's WebSite. */
  isSite: boolean;
  name: string | null;
  description: string | null;
  /** `side`: the width in pixels when the logo declares a width equal to its height. */
  logo: { url: string; isSquare: boolean; side: number | null } | null;
  sameAs: string[];
}

export interface JsonLdFacts {
  organization: JsonLdEntity | null;
  website: JsonLdEntity | null;
}

/** The entities found, the organisation first. */
export const entitiesOf = (facts: JsonLdFacts): JsonLdEntity[] =>
  [facts.organization, facts.website].filter((entity) => entity !== null);

// Organization and its common subtypes (NewsMediaOrganization, Corporation, LocalBusiness, OnlineStore, ...).
const ORGANIZATION_TYPE = /(?:Organization|Corporation|Business|Store|NGO)$/;
// Deeper than any real page nests its entities; bounds the walk over someone else's JSON.
const MAX_DEPTH = 8;

/** A node and whether the page states it about itself (top level, `@graph` member, or a stated node's publisher). */
interface FoundNode {
  node: JsonObject;
  isStated: boolean;
}

/**
 * Every block, every `@graph` and every nested node is read; `@id` references are joined to the node they name.
 * The organisation chosen is, best first: one shown to be the site; one the page states with no `url`; one the page
 * states with a `url` elsewhere (a parent company). Nested organisations with no such tie (an article's author, a
 * product's manufacturer) describe someone else.
 */
export function readJsonLd(root: HTMLElement, pageUrl: URL): JsonLdFacts {
  const blocks = root
    .querySelectorAll('script[type]')
    .filter((script) => attributeOf(script, 'type')?.trim().toLowerCase() === 'application/ld+json')
    .map((script) => script.rawText);
  const found = withinBounds(blocks).flatMap((text) => nodesIn(parseJsonOrNull(text), true, 0));
  const { nodes, resolve } = joinById(found);
  const onSite = (node: JsonObject) => isOnSite(node, pageUrl);
  const websites = nodes.filter(({ node }) => typeNamed(node, (type) => type === 'WebSite') !== null);
  const website =
    websites.find(({ node }) => onSite(node)) ?? websites.find(({ node }) => node.url === undefined) ?? null;
  const publishers = new Set(listOf(website?.node.publisher).map(resolve));
  const isSite = (found: FoundNode) => onSite(found.node) || publishers.has(found);
  const organization = bestOrganization(nodes, isSite);
  return {
    organization: organization === null ? null : entityOf(organization.node, isSite(organization)),
    website: website === null ? null : entityOf(website.node, onSite(website.node)),
  };
}

/**
 * The blocks JSON.parse may read, in page order: each nested at most autoConfigureJsonDepth deep, and their values
 * together at most autoConfigureJsonValues (a page may hold thousands of blocks). A block past either is ignored,
 * as an unparsable one is, and the blocks after it are still read while values are left.
 */
function withinBounds(blocks: readonly string[]): string[] {
  let valuesLeft = JSON_BOUNDS.values;
  return blocks.filter((text) => {
    const extent = jsonExtent(text, { depth: JSON_BOUNDS.depth, values: valuesLeft });
    if (extent === null) return false;
    valuesLeft -= extent.values;
    return true;
  });
}

function bestOrganization(
  nodes: readonly FoundNode[],
  isSite: (found: FoundNode) => boolean,
): FoundNode | null {
  const organizations = nodes.filter(({ node }) => typeNamed(node, isOrganizationType) !== null);
  return (
    organizations.find(isSite) ??
    organizations.find(({ node, isStated }) => isStated && node.url === undefined) ??
    organizations.find(({ isStated }) => isStated) ??
    null
  );
}

function nodesIn(value: unknown, isStated: boolean, depth: number): FoundNode[] {
  if (depth > MAX_DEPTH) return [];
  if (Array.isArray(value)) return value.flatMap((item) => nodesIn(item, isStated, depth + 1));
  if (!isJsonObject(value)) return [];
  const nested = Object.entries(value).flatMap(([key, child]) =>
    nodesIn(child, isStated && (key === 'publisher' || key === '@graph'), depth + 1),
  );
  return [{ node: value, isStated }, ...nested];
}

/**
 * One node per `@id`, its properties joined from every place it appears (the first value of each wins), so that a
 * reference like `"publisher": {"@id": "#org"}` finds the organisation's name and logo; in document order. Joined
 * nodes have no prototype (the JSON is someone else's). `resolve` maps a value found in a node to its joined node.
 */
function joinById(found: readonly FoundNode[]): {
  nodes: FoundNode[];
  resolve: (value: unknown) => FoundNode | undefined;
} {
  const byId = new Map<string, FoundNode>();
  const byOriginal = new Map<unknown, FoundNode>();
  const nodes: FoundNode[] = [];
  for (const { node, isStated } of found) {
    const id = idOf(node);
    const known = id === null ? undefined : byId.get(id);
    if (known === undefined) {
      const joined: FoundNode = { node: Object.assign(Object.create(null), node), isStated };
      if (id !== null) byId.set(id, joined);
      byOriginal.set(node, joined);
      nodes.push(joined);
      continue;
    }
    byOriginal.set(node, known);
    known.isStated ||= isStated;
    for (const [key, child] of Object.entries(node))
      if (!Object.hasOwn(known.node, key)) known.node[key] = child;
  }
  return { nodes, resolve: (value) => byOriginal.get(value) };
}

function entityOf(node: JsonObject, isSite: boolean): JsonLdEntity {
  return {
    type: typeNamed(node, isOrganizationType) ?? typeNamed(node, () => true) ?? 'Thing',
    isSite,
    name: nonEmptyString(node.name),
    description: nonEmptyString(node.description),
    logo: logoOf(node.logo),
    sameAs: listOf(node.sameAs).filter((url) => typeof url === 'string'),
  };
}

function isOnSite(node: JsonObject, pageUrl: URL): boolean {
  const url = httpUrl(nonEmptyString(listOf(node.url)[0]), pageUrl);
  return url !== null && siteHost(url) === siteHost(pageUrl);
}

function isOrganizationType(type: string): boolean {
  return ORGANIZATION_TYPE.test(type);
}

function typeNamed(node: JsonObject, matches: (type: string) => boolean): string | null {
  for (const type of listOf(node['@type'])) {
    const name = typeof type === 'string' ? clipped(type) : null;
    if (name !== null && matches(name)) return name;
  }
  return null;
}

function idOf(value: unknown): string | null {
  return isJsonObject(value) ? nonEmptyString(value['@id']) : null;
}

function logoOf(value: unknown): JsonLdEntity['logo'] {
  const logo = listOf(value)[0];
  const image = isJsonObject(logo) ? logo : {};
  const url = nonEmptyString(logo) ?? nonEmptyString(image.url) ?? nonEmptyString(image.contentUrl);
  const width = dimensionOf(image.width);
  const isSquare = width !== null && width === dimensionOf(image.height);
  return url === null ? null : { url, isSquare, side: isSquare ? width : null };
}

/** `512`, `"512"`, `"512px"` or a QuantitativeValue `{value: 512}`; of a list, its first. */
function dimensionOf(value: unknown): number | null {
  const given = isJsonObject(value) ? value.value : value;
  const raw = Array.isArray(given) ? given[0] : given;
  const number =
    typeof raw === 'number' ? raw : typeof raw === 'string' ? Number.parseFloat(clipped(raw)) : Number.NaN;
  return Number.isFinite(number) && number > 0 ? number : null;
}
