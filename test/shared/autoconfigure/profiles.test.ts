import { describe, expect, it } from 'vitest';
import { autoConfiguration } from '../../../shared/autoconfigure/extract.ts';
import { parsePage } from '../../../shared/autoconfigure/html-document.ts';
import { configure, PAGE_URL } from './synthetic-page.ts';

/**
 * Social profiles: where on a page a site puts its own profiles (navigation, menu layers, side boxes, not
 * articles or share buttons), and a company's profile before a person's.
 */

/** The profiles found, with each one's source and confidence: `{ x: ['https://x.com/acme', 'aside:a', 'low'] }`. */
function profilesOf(body: string, head = ''): Record<string, [string, string, string]> | null {
  const { suggestions, sources, confidence } = configure(head, body);
  if (suggestions.social_links === null) return null;
  return Object.fromEntries(
    Object.entries(suggestions.social_links).map(([network, url]) => [
      network,
      [url, sources.social_links?.[network] ?? '', confidence.social_links?.[network] ?? ''],
    ]),
  );
}

const FOLLOW_US =
  '<h3>Follow us</h3><a href="https://www.facebook.com/acme">f</a><a href="https://twitter.com/acme">t</a>';
const SHARE_BUTTONS =
  '<a href="https://www.facebook.com/sharer/sharer.php?u=https%3A%2F%2Facme.example%2F">share</a>' +
  '<a href="https://www.facebook.com/sharer.php?u=x">share</a>' +
  '<a href="https://twitter.com/intent/tweet?url=https%3A%2F%2Facme.example%2F">tweet</a>' +
  '<a href="https://twitter.com/share?url=https%3A%2F%2Facme.example%2F">tweet</a>' +
  '<a href="https://www.linkedin.com/sharing/share-offsite/?url=https%3A%2F%2Facme.example%2F">share</a>' +
  '<a href="https://www.linkedin.com/shareArticle?mini=true&url=x">share</a>' +
  '<a href="https://pinterest.com/pin/create/button/?url=x">pin</a>';

describe('profiles in a side box', () => {
  it.each([
    ['<aside>', `<aside>${FOLLOW_US}</aside>`],
    ['role=complementary', `<div role="complementary">${FOLLOW_US}</div>`],
    ['a sidebar class', `<div class="widget-area sidebar-primary">${FOLLOW_US}</div>`],
    ['a sidebar id', `<div id="Sidebar"><ul><li>${FOLLOW_US}</li></ul></div>`],
    ['a sidebar beside <main>', `<div class="row"><main><p>Post</p></main><aside>${FOLLOW_US}</aside></div>`],
  ])('reads %s outside the main content, with low confidence', (_, body) => {
    expect(profilesOf(body)).toEqual({
      facebook: ['https://www.facebook.com/acme', 'aside:a', 'low'],
      x: ['https://x.com/acme', 'aside:a', 'low'],
    });
  });

  it.each([
    ['an aside inside <main> (an author box)', `<main><p>Post</p><aside>${FOLLOW_US}</aside></main>`],
    ['an aside inside role=main', `<div role="main"><aside class="sidebar">${FOLLOW_US}</aside></div>`],
    ['an aside inside an article', `<article><p>Post</p><aside>${FOLLOW_US}</aside></article>`],
    ['a sidebar inside role=article', `<div role="article"><div class="sidebar">${FOLLOW_US}</div></div>`],
    ['a quote in a sidebar', `<aside><blockquote>${FOLLOW_US}</blockquote></aside>`],
    ['a hidden part of a sidebar', `<aside><div hidden>${FOLLOW_US}</div></aside>`],
  ])('does not read %s', (_, body) => {
    expect(profilesOf(body)).toBeNull();
  });

  it.each([
    ['body', `<div class="post">${FOLLOW_US}</div>`, 'one-sidebar sidebar-second'],
    ['a layout flag', `<div class="has-sidebar"><div class="post">${FOLLOW_US}</div></div>`, ''],
    ['a wrapper', `<div class="content-sidebar-wrap"><div class="post">${FOLLOW_US}</div></div>`, ''],
  ])(
    'does not take a class naming a page layout with a sidebar on %s for the sidebar',
    (_, body, bodyClass) => {
      const page = parsePage(`<html><body class="${bodyClass}">${body}</body></html>`, PAGE_URL);
      expect(autoConfiguration(page).suggestions.social_links).toBeNull();
    },
  );

  it("does not take a side box's image banner (a sponsor's advertisement) for the site's profile", () => {
    const banner =
      '<a href="https://www.facebook.com/H4USalon/"><img alt="30% off at H4U Salon" src="/ad.jpg" width="312" height="208"></a>';
    expect(profilesOf(`<aside>${banner}</aside>`)).toBeNull();
    // The site's own icons beside it are still read.
    const icon = '<a href="https://twitter.com/acme"><img alt="X" src="/x.png" width="24" height="24"></a>';
    expect(profilesOf(`<aside>${banner}${icon}</aside>`)).toEqual({
      x: ['https://x.com/acme', 'aside:a', 'low'],
    });
  });

  it('refuses share buttons and posts in a side box', () => {
    const body = `<aside>${SHARE_BUTTONS}<a href="https://twitter.com/acme/status/1">post</a></aside>`;
    expect(profilesOf(body)).toBeNull();
  });
});

describe('profiles in navigation and menu layers', () => {
  it.each([
    ['role=navigation', 'header', `<div role="navigation">${FOLLOW_US}</div>`],
    ['role=banner', 'header', `<div role="banner">${FOLLOW_US}</div>`],
    ['role=contentinfo', 'footer', `<div role="contentinfo">${FOLLOW_US}</div>`],
  ])('reads the landmark %s as the %s', (_, region, body) => {
    expect(profilesOf(body)).toEqual({
      facebook: ['https://www.facebook.com/acme', `${region}:a`, 'low'],
      x: ['https://x.com/acme', `${region}:a`, 'low'],
    });
  });

  it.each([
    ['aria-controls', '<button aria-controls="site-menu" aria-expanded="false">Menu</button>', 'site-menu'],
    [
      'data-bs-target',
      '<button data-bs-toggle="offcanvas" data-bs-target="#site-menu">Menu</button>',
      'site-menu',
    ],
    ['data-target', '<a data-toggle="collapse" data-target="#site-menu">Menu</a>', 'site-menu'],
    ['a toggle link', '<a href="#site-menu" aria-expanded="false">Menu</a>', 'site-menu'],
    ['aria-controls naming two', '<button aria-controls="search site-menu">Menu</button>', 'site-menu'],
  ])('reads the menu layer a header control names by %s, hidden until opened', (_, control, id) => {
    const body =
      `<header><a href="/">Acme</a>${control}</header>` +
      `<div id="${id}" class="panel" hidden><ul><li><a href="/shop">Shop</a></li></ul>${FOLLOW_US}</div>` +
      '<main><p>Widgets</p></main>';
    expect(profilesOf(body)).toEqual({
      facebook: ['https://www.facebook.com/acme', 'menu:a', 'low'],
      x: ['https://x.com/acme', 'menu:a', 'low'],
    });
  });

  it.each([
    ['offcanvas', '<div class="offcanvas offcanvas-start">'],
    ['off-canvas', '<div class="off-canvas position-left">'],
    ['a drawer', '<div class="m1-drawer left-to-right">'],
    ['a social box of an off-canvas menu', '<div class="tp-offcanvas-social">'],
    ['a sidebar that slides in', '<div class="sidebar-offcanvas">'],
  ])('reads a menu layer whose class says %s', (_, open) => {
    expect(profilesOf(`${open}${FOLLOW_US}</div><main><p>Widgets</p></main>`)).toEqual({
      facebook: ['https://www.facebook.com/acme', 'menu:a', 'low'],
      x: ['https://x.com/acme', 'menu:a', 'low'],
    });
  });

  it('does not take the page an off-canvas layout wraps, an element a control in the content names, or the main content, for a menu', () => {
    const wrapped =
      '<div class="off-canvas-wrapper"><div class="off-canvas-content" data-off-canvas-content>' +
      `<div class="post">${FOLLOW_US}</div></div></div>`;
    const namedFromContent =
      '<main><button aria-controls="comments">Comments</button></main>' +
      `<div id="comments">${FOLLOW_US}</div>`;
    const namedAroundContent =
      '<header><button aria-controls="page">Menu</button></header>' +
      `<div id="page"><main><div class="post">${FOLLOW_US}</div></main></div>`;
    expect(profilesOf(wrapped)).toBeNull();
    expect(profilesOf(namedFromContent)).toBeNull();
    expect(profilesOf(namedAroundContent)).toBeNull();
  });

  it('still refuses share buttons, posts and articles in navigation and menu layers', () => {
    const body =
      `<div role="navigation">${SHARE_BUTTONS}</div><div class="offcanvas">${SHARE_BUTTONS}` +
      `<article>${FOLLOW_US}</article><div hidden>${FOLLOW_US}</div></div>`;
    expect(profilesOf(body)).toBeNull();
  });

  it('ranks the header and footer first, then menu layers, then the side box, whatever the order on the page', () => {
    const body =
      '<aside><a href="https://www.instagram.com/acme.aside">i</a><a href="https://github.com/acme-aside">g</a>' +
      '<a href="https://www.youtube.com/@acme-aside">y</a></aside>' +
      '<div class="offcanvas"><a href="https://www.instagram.com/acme.menu">i</a>' +
      '<a href="https://github.com/acme-menu">g</a></div>' +
      '<footer><a href="https://www.instagram.com/acme">i</a></footer>';
    expect(profilesOf(body)).toEqual({
      instagram: ['https://www.instagram.com/acme', 'footer:a', 'low'],
      github: ['https://github.com/acme-menu', 'menu:a', 'low'],
      youtube: ['https://www.youtube.com/@acme-aside', 'aside:a', 'low'],
    });
  });

  it('keeps a link in the header or footer as it was read, wherever inside it a side box or menu sits', () => {
    const body =
      `<header><div class="offcanvas" hidden>${FOLLOW_US}</div></header>` +
      '<footer><aside><a href="https://www.instagram.com/acme">i</a></aside></footer>';
    expect(profilesOf(body)).toEqual({
      facebook: ['https://www.facebook.com/acme', 'header:a', 'low'],
      x: ['https://x.com/acme', 'header:a', 'low'],
      instagram: ['https://www.instagram.com/acme', 'footer:a', 'low'],
    });
  });
});

describe("a company's profile before a person's", () => {
  const ceo = '<a href="https://www.linkedin.com/in/jane-doe-ceo">Jane Doe, CEO</a>';
  const company = '<a href="https://uk.linkedin.com/company/acme-widgets">Acme on LinkedIn</a>';

  it("takes the company's LinkedIn page, not the chief executive's linked before it", () => {
    expect(profilesOf(`<footer>${ceo}${company}</footer>`)).toEqual({
      linkedin: ['https://www.linkedin.com/company/acme-widgets', 'footer:a', 'low'],
    });
  });

  it.each([
    ['showcase', 'https://www.linkedin.com/showcase/acme-labs/'],
    ['school', 'https://www.linkedin.com/school/acme-academy/'],
  ])("takes a LinkedIn %s page as an organisation's", (_, url) => {
    expect(profilesOf(`<footer>${ceo}<a href="${url}">l</a></footer>`)).toEqual({
      linkedin: [url, 'footer:a', 'low'],
    });
  });

  it("takes an organisation's page found anywhere over a person's from a more trusted source", () => {
    const head =
      '<link rel="me" href="https://www.linkedin.com/in/jane-doe-ceo">' +
      `<script type="application/ld+json">${JSON.stringify({
        '@type': 'Organization',
        url: PAGE_URL,
        sameAs: ['https://www.linkedin.com/in/john-roe', 'https://twitter.com/acme'],
      })}</script>`;
    expect(profilesOf(`<aside>${company}</aside>`, head)).toEqual({
      linkedin: ['https://www.linkedin.com/company/acme-widgets', 'aside:a', 'low'],
      x: ['https://x.com/acme', 'json-ld:Organization.sameAs', 'high'],
    });
  });

  it("suggests a person's profile when the page gives no other, with low confidence whatever its source", () => {
    const sameAs = `<script type="application/ld+json">${JSON.stringify({
      '@type': 'Organization',
      url: PAGE_URL,
      sameAs: ['https://de.linkedin.com/in/john-roe'],
    })}</script>`;
    expect(profilesOf('', sameAs)).toEqual({
      linkedin: ['https://www.linkedin.com/in/john-roe', 'json-ld:Organization.sameAs', 'low'],
    });
    expect(
      profilesOf(`<footer>${ceo}</footer>`, '<link rel="me" href="https://www.linkedin.com/in/jane-doe">'),
    ).toEqual({ linkedin: ['https://www.linkedin.com/in/jane-doe', 'rel=me', 'low'] });
  });

  it('keeps the first profile on networks whose URLs do not tell a person from a brand', () => {
    // A Facebook page without a username has a profile.php URL as a person does; handles are handles.
    const body =
      '<footer><a href="https://www.facebook.com/profile.php?id=1000123">f</a>' +
      '<a href="https://www.facebook.com/acme">f</a><a href="https://twitter.com/janedoe">t</a>' +
      '<a href="https://twitter.com/acme">t</a><a href="https://github.com/janedoe">g</a>' +
      '<a href="https://github.com/acme">g</a></footer>';
    expect(profilesOf(body)).toEqual({
      facebook: ['https://www.facebook.com/profile.php?id=1000123', 'footer:a', 'low'],
      x: ['https://x.com/janedoe', 'footer:a', 'low'],
      github: ['https://github.com/janedoe', 'footer:a', 'low'],
    });
  });
});
