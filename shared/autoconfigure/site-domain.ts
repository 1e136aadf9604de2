import { isIP } from 'node:net';
import { getDomainWithoutSuffix, getPublicSuffix } from 'tldts';

/**
 * The label of a site's registrable domain, found with the Public Suffix List (tldts): www.theverge.com → theverge,
 * www.aozora.gr.jp → aozora, www.example.co.kr → example, user.github.io → user (the list's private section: each
 * user's site is its own).
 */

const PSL = { allowPrivateDomains: true } as const;

// A host name's first label that only says "the web server" (www, www2), never a site's name.
const WEB_SERVER_LABEL = /^www\d*$/i;

/**
 * The registrable domain's label, or the public suffix itself for a site registered as a suffix of more than one label
 * (www.gov.uk → gov.uk, www.gob.mx → gob.mx: the list makes gov.uk a suffix, so its registrable label would be
 * "www"); the whole host for one without a known suffix (localhost); null for IP addresses.
 */
export function domainLabelOf(url: URL): string | null {
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === '' || isIP(host)) return null;
  const label = getDomainWithoutSuffix(host, PSL);
  if (label && !WEB_SERVER_LABEL.test(label)) return label;
  return getPublicSuffix(host, PSL) ?? host;
}
