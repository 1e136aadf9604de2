/**
 * Which links are a brand's profile on a social network. Pages link to networks for many other reasons (share
 * buttons, embedded posts, videos, hashtags, other people, link aggregators, app stores), so a link counts only when
 * its host is one of a known network's own hosts (exactly, with www./m., or one of the regional subdomains the
 * network serves profiles on) and its path has the shape of that network's profile pages. A look-alike (a
 * *.github.io page, twitter.com.evil.example, evil-facebook.com) is not the network.
 */

import { siteHost } from './html-document.ts';

/** Whether a path (split into segments) on a network's host is a profile page. */
type ProfilePath = (segments: readonly string[], query: URLSearchParams) => boolean;

/** One path segment matching `pattern` and not one of the network's own pages (space-separated `reserved`). */
const singleName = (pattern: RegExp, reserved: string) => {
  const reservedNames = new Set(reserved.split(' '));
  return (segments: readonly string[]): boolean =>
    segments.length === 1 &&
    pattern.test(segments[0] ?? '') &&
    !reservedNames.has((segments[0] ?? '').toLowerCase());
};

const atHandle = (segments: readonly string[]): boolean =>
  segments.length === 1 && /^@[\w.-]+$/.test(segments[0] ?? '');

// X handles: 1-15 letters, digits or underscores.
const X_HANDLE = /^\w{1,15}$/;

const twitterProfile = singleName(
  X_HANDLE,
  'home share intent search explore hashtag i login signup settings messages notifications tos privacy compose',
);

const facebookName = singleName(
  /^[\w.-]+$/,
  'sharer sharer.php share share.php dialog plugins login login.php hashtag watch events groups photo.php story.php permalink.php home.php profile.php search pages',
);

const isProfilePhp = (segments: readonly string[]): boolean =>
  segments.length === 1 && segments[0] === 'profile.php';

const facebookProfile: ProfilePath = (segments, query) =>
  facebookName(segments) ||
  (segments[0] === 'pages' && segments.length >= 2 && segments.length <= 3) ||
  (isProfilePhp(segments) && query.has('id'));

/** A channel in every form YouTube has used: /@handle, /channel/<id>, /c/<name>, /user/<name>, legacy /<name>. */
const legacyYoutubeName = singleName(
  /^[a-z\d]+$/i,
  'watch embed shorts playlist results feed live channel c user redirect premium music gaming kids about t v e s signin logout account upload ads creators howyoutubeworks hashtag trending post clip index jobs new',
);
const youtubeProfile: ProfilePath = (segments) =>
  atHandle(segments) ||
  legacyYoutubeName(segments) ||
  (segments.length === 2 && ['channel', 'c', 'user'].includes(segments[0] ?? ''));

const pinterestProfile = singleName(/^[\w.-]+$/, 'pin search ideas today login business');
// Pinterest serves profiles on its country domains too (pinterest.ca/<name>, pinterest.co.uk/<name>).
const PINTEREST_HOSTS = [
  'pinterest.com',
  ...'ca co.uk com.au com.mx de fr es it jp nz ie at ch pt se dk cl ph'
    .split(' ')
    .map((suffix) => `pinterest.${suffix}`),
];

const PROFILE_PATHS: Record<string, ProfilePath> = {
  'twitter.com': twitterProfile,
  'x.com': twitterProfile,
  'facebook.com': facebookProfile,
  'fb.com': facebookProfile,
  'instagram.com': singleName(/^[\w.]+$/, 'p reel reels explore stories tv accounts direct'),
  'linkedin.com': (segments) =>
    segments.length === 2 && ['company', 'in', 'school', 'showcase'].includes(segments[0] ?? ''),
  'youtube.com': youtubeProfile,
  'tiktok.com': atHandle,
  ...Object.fromEntries(PINTEREST_HOSTS.map((host) => [host, pinterestProfile])),
  'github.com': singleName(
    /^[a-z\d-]+$/i,
    'about pricing features security enterprise login join marketplace explore topics trending collections sponsors settings notifications new organizations orgs apps site contact customer-stories readme team search',
  ),
  'threads.net': atHandle,
  'threads.com': atHandle,
};

const X_HOSTS = new Set(['twitter.com', 'x.com']);

// ISO 3166-1 alpha-2, and uk, which LinkedIn and Pinterest use for the United Kingdom.
const COUNTRY_CODES = new Set(
  (
    'ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bl bm bn bo bq br bs bt bv bw by ' +
    'bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg eh er es et fi fj fk ' +
    'fm fo fr ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir ' +
    'is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mf mg mh mk ' +
    'ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm ' +
    'pn pr ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sj sk sl sm sn so sr ss st sv sx sy sz tc td tf ' +
    'tg th tj tk tl tm tn to tr tt tv tw tz ua ug um us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw uk'
  ).split(' '),
);

/**
 * The regional subdomains a network serves profiles on: a country's code on LinkedIn and Pinterest
 * (de.linkedin.com/company/…, es.pinterest.com/…), a locale on Facebook (de-de.facebook.com, pt-br.facebook.com).
 * Other two-letter labels are the network's services, not regions (ct.pinterest.com is its conversion tracking).
 */
const REGIONAL_LABELS: Record<string, (label: string) => boolean> = {
  'facebook.com': (label) => /^[a-z]{2}-[a-z]{2}$/.test(label),
  'linkedin.com': (label) => COUNTRY_CODES.has(label),
  'pinterest.com': (label) => COUNTRY_CODES.has(label),
};

/** The network's own host for a regional one (de.linkedin.com → linkedin.com); null for any other host. */
function regionalNetworkHost(host: string): string | null {
  const dot = host.indexOf('.');
  const network = host.slice(dot + 1);
  return dot > 0 && REGIONAL_LABELS[network]?.(host.slice(0, dot)) ? network : null;
}

/**
 * The profile URL a link points to, or null. The query (tracking, `?sub_confirmation=1`) and fragment are dropped,
 * except the id a Facebook profile.php URL needs; an X or Twitter profile becomes `https://x.com/<handle>`, and a
 * profile on a regional host is given on the network's www. host (one profile, one URL).
 */
export function profileUrl(url: URL): string | null {
  const regional = regionalNetworkHost(siteHost(url));
  const host = regional ?? siteHost(url);
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  if (!PROFILE_PATHS[host]?.(segments, url.searchParams)) return null;
  if (X_HOSTS.has(host)) return xProfileUrl(segments[0] ?? '');
  const profile = new URL(url.href);
  if (regional !== null) profile.hostname = `www.${regional}`;
  profile.hash = '';
  profile.search = isProfilePhp(segments) ? `?id=${url.searchParams.get('id')}` : '';
  return profile.href;
}

/**
 * Whether a profile URL (as profileUrl gives it) is a person's rather than an organisation's: on LinkedIn a member's
 * /in/<name> page, where a company, a product line and a school have /company/, /showcase/ and /school/. Only where
 * the URL tells: on the other networks a person and a brand have the same kind of URL (an X, Instagram, TikTok,
 * Threads, Pinterest or YouTube handle, a GitHub user or organisation), and Facebook gives pages without a username
 * `profile.php?id=` and `/people/<name>/<id>` URLs as it gives people.
 */
export function isPersonalProfile(profile: string): boolean {
  const url = new URL(profile);
  return siteHost(url) === 'linkedin.com' && url.pathname.startsWith('/in/');
}

/** The X profile for a handle as twitter:site gives it (`@name` or `name`); null when it is not a valid handle. */
export function xHandleUrl(handle: string): string | null {
  const name = handle.trim().replace(/^@/, '');
  return X_HANDLE.test(name) ? xProfileUrl(name) : null;
}

function xProfileUrl(handle: string): string {
  return `https://x.com/${handle}`;
}
