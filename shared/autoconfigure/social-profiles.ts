/**
 * Which links are a brand's profile on a social network. Pages link to networks for many other reasons (share
 * buttons, embedded posts, videos, hashtags, other people), so a link counts only when its host is exactly a known
 * network (optionally www./m./mobile.) and its path has the shape of that network's profile pages.
 */

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

const twitterProfile = singleName(
  /^\w{1,15}$/,
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

const PROFILE_PATHS: Record<string, ProfilePath> = {
  'twitter.com': twitterProfile,
  'x.com': twitterProfile,
  'facebook.com': facebookProfile,
  'fb.com': facebookProfile,
  'instagram.com': singleName(/^[\w.]+$/, 'p reel reels explore stories tv accounts direct'),
  'linkedin.com': (segments) =>
    segments.length === 2 && ['company', 'in', 'school', 'showcase'].includes(segments[0] ?? ''),
  'youtube.com': (segments) =>
    atHandle(segments) || (segments.length === 2 && ['channel', 'c', 'user'].includes(segments[0] ?? '')),
  'tiktok.com': atHandle,
  'pinterest.com': singleName(/^[\w.-]+$/, 'pin search ideas today login business'),
  'github.com': singleName(
    /^[a-z\d-]+$/i,
    'about pricing features security enterprise login join marketplace explore topics trending collections sponsors settings notifications new organizations orgs apps site contact customer-stories readme team search',
  ),
  'threads.net': atHandle,
  'threads.com': atHandle,
};

const MOBILE_OR_WWW = /^(?:www|m|mobile)\./;

/** Host without www./m./mobile., used to compare a link's site with the page's own site. */
export function siteHost(url: URL): string {
  return url.hostname.toLowerCase().replace(/\.$/, '').replace(MOBILE_OR_WWW, '');
}

/**
 * The profile URL a link points to, or null. Known networks must have a profile-shaped path; other hosts are
 * accepted only when `anyHost` (the page declared the link a profile: JSON-LD sameAs, rel=me). The query (tracking,
 * `?sub_confirmation=1`) and fragment are dropped, except the id a Facebook profile.php URL needs.
 */
export function profileUrl(url: URL, anyHost: boolean): string | null {
  const isProfilePath = PROFILE_PATHS[siteHost(url)];
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  const accepted =
    isProfilePath === undefined
      ? anyHost && isDeclaredProfile(segments)
      : isProfilePath(segments, url.searchParams);
  if (!accepted) return null;
  const profile = new URL(url.href);
  profile.hash = '';
  profile.search = isProfilePhp(segments) ? `?id=${url.searchParams.get('id')}` : '';
  return profile.href;
}

/** A declared profile on a network we have no rules for: anything but the home page or a share intent. */
function isDeclaredProfile(segments: readonly string[]): boolean {
  return (
    segments.length > 0 && !segments.some((segment) => /^(?:share|sharer|intent)(?:\.|$)/i.test(segment))
  );
}

/** The profile URL for an X/Twitter handle (`@name` or `name`), in the twitter.com form most pages link to. */
export function twitterHandleUrl(handle: string): string | null {
  const name = /^@?(\w{1,15})$/.exec(handle.trim())?.[1];
  return name === undefined ? null : `https://twitter.com/${name}`;
}
