/** The rule (a refinement's `params.rule`) of a URL with white space or a control character in it. */
export const URL_SPACES = 'url_spaces';

/** What a URL field's 422 says of a URL with a space: where RFC 3986 puts one. */
export const urlSpacesMessage = (the: string): string =>
  `${the} must be a URL without spaces or control characters (a space in a path is %20).`;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
export const HAS_SPACE = /[\s\x00-\x1f\x7f]/;

/**
 * What a URL without its scheme (`example.com`, `www.example.com/about`) probably meant, as a sentence to
 * add to its refusal (` Did you mean https://example.com?`); '' for any other input.
 */
export function schemeHint(input: unknown): string {
  if (typeof input !== 'string' || /^[a-z][a-z0-9+.-]*:\/\//i.test(input)) return '';
  const meant = `https://${input.trim()}`;
  if (!URL.canParse(meant)) return '';
  const { hostname } = new URL(meant);
  const looksLikeHost = /\.[a-z]{2,}$/i.test(hostname) && !FILE_NAME.test(hostname);
  return looksLikeHost || hostname === 'localhost' ? ` Did you mean ${meant}?` : '';
}

/** A file's name (`logo.png`, given where a URL was wanted) is no host name, though it looks like one. */
const FILE_NAME = /\.(png|jpe?g|gif|webp|svg|ico|html?|pdf|css|js|json|txt)$/i;
