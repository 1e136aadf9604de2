/** Network names for social profile URLs, shared by the brand endpoints and auto-configure. */
export const KNOWN_NETWORKS: Record<string, string> = {
  'twitter.com': 'x',
  'x.com': 'x',
  'facebook.com': 'facebook',
  'fb.com': 'facebook',
  'instagram.com': 'instagram',
  'linkedin.com': 'linkedin',
  'youtube.com': 'youtube',
  'youtu.be': 'youtube',
  'tiktok.com': 'tiktok',
  'pinterest.com': 'pinterest',
  'github.com': 'github',
  'threads.net': 'threads',
  'threads.com': 'threads',
};

/** The networks the API names (`x` for Twitter and X): the known keys of a social_links map. */
export const NETWORK_NAMES: readonly string[] = [...new Set(Object.values(KNOWN_NETWORKS))];

// Second-level labels under which registrations happen (example.co.uk -> "example").
export const SECOND_LEVEL: ReadonlySet<string> = new Set([
  'co',
  'com',
  'net',
  'org',
  'gov',
  'edu',
  'ac',
  'or',
  'ne',
  'go',
]);

/** The network a URL belongs to: a known network by host, else the registrable domain's label. */
export function socialNetworkOf(url: string): string {
  const host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  const labels = host.split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const network = KNOWN_NETWORKS[labels.slice(i).join('.')];
    if (network) return network;
  }
  return registrableLabel(host, SECOND_LEVEL);
}

/** The registrable domain's label of a host (www.example.co.uk → example), registrations under `secondLevel`. */
export function registrableLabel(host: string, secondLevel: ReadonlySet<string>): string {
  const labels = host.toLowerCase().replace(/\.$/, '').split('.');
  if (labels.length >= 3 && secondLevel.has(labels[labels.length - 2] ?? '')) {
    return labels[labels.length - 3] ?? host;
  }
  return labels.length >= 2 ? (labels[labels.length - 2] ?? host) : host;
}
