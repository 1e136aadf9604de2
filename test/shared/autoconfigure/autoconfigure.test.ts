import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autoConfigure } from '../../../shared/autoconfigure/index.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';
import {
  type FixtureServer,
  file,
  html,
  OWN_FIXTURES,
  REAL_SITE_FIXTURES,
  respond,
  startFixtureServer,
  status,
} from './fixture-server.ts';
import { expectValidBrandInput } from './valid-suggestions.ts';

/** ASCII markup around raw bytes in some legacy encoding (Node's TextEncoder only writes UTF-8). */
function encodedPage(...parts: Array<string | number[]>): Uint8Array {
  return Buffer.concat(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'ascii') : Buffer.from(part))),
  );
}

// Standard code points: 日本 東京 in Shift_JIS and EUC-JP, 中文 北京 in GB2312, Łódź Kraków in windows-1250.
const SHIFT_JIS_NIHON_TOKYO = [0x93, 0xfa, 0x96, 0x7b, 0x93, 0x8c, 0x8b, 0x9e];
const EUC_JP_NIHON_TOKYO = [0xc6, 0xfc, 0xcb, 0xdc, 0xc5, 0xec, 0xb5, 0xfe];
const GB2312_ZHONGWEN_BEIJING = [0xd6, 0xd0, 0xce, 0xc4, 0xb1, 0xb1, 0xbe, 0xa9];
const WINDOWS_1250_LODZ_KRAKOW = [0xa3, 0xf3, 0x64, 0x9f, 0x20, 0x4b, 0x72, 0x61, 0x6b, 0xf3, 0x77];

let server: FixtureServer;

beforeAll(async () => {
  useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
  server = await startFixtureServer({
    '/business/': file(OWN_FIXTURES, 'business.html'),
    '/news/storm': file(OWN_FIXTURES, 'news.html'),
    '/brand/': file(OWN_FIXTURES, 'brand.html'),
    '/brand/site.webmanifest': file(OWN_FIXTURES, 'brand.webmanifest', 'application/manifest+json'),
    '/no-manifest/': html(
      readFileSync(path.join(OWN_FIXTURES, 'brand.html'), 'utf8').replace(
        '/brand/site.webmanifest',
        '/gone.json',
      ),
    ),
    '/gone.json': status(404),
    '/html-manifest/': html(
      readFileSync(path.join(OWN_FIXTURES, 'brand.html'), 'utf8').replace(
        '/brand/site.webmanifest',
        '/business/',
      ),
    ),
    '/shift-jis/': html(
      encodedPage('<html><head><title>', SHIFT_JIS_NIHON_TOKYO, ' | Example</title></head></html>'),
      'text/html; charset=Shift_JIS',
    ),
    '/euc-jp/': html(
      encodedPage('<html><head><meta charset="EUC-JP"><title>', EUC_JP_NIHON_TOKYO, '</title></head></html>'),
      'text/html',
    ),
    '/gb2312/': html(
      encodedPage(
        '<html><head><meta charset=gb2312><meta property="og:site_name" content="',
        GB2312_ZHONGWEN_BEIJING,
        '"></head></html>',
      ),
      'text/html',
    ),
    '/windows-1250/': html(
      encodedPage(
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1250">',
        '<meta name="description" content="Piekarnia ',
        WINDOWS_1250_LODZ_KRAKOW,
        '"><title>Piekarnia</title></head></html>',
      ),
      'text/html',
    ),
    // The header wins over the meta tag, as in browsers.
    '/header-beats-meta/': html(
      encodedPage(
        '<html><head><meta charset="utf-8"><title>',
        SHIFT_JIS_NIHON_TOKYO,
        '</title></head></html>',
      ),
      'text/html; charset=shift_jis',
    ),
    '/unknown-charset/': html(
      '<html><head><title>Caf\u00e9 Zo\u00eb</title></head></html>',
      'text/html; charset=klingon',
    ),
    '/rakuten/': file(REAL_SITE_FIXTURES, 'rakuten-euc-jp.html', 'text/html'),
    '/no-content-type/': respond('<!DOCTYPE html><html><head><title>Sniffed Co</title></head></html>'),
    '/xhtml/': html(
      '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Xhtml Co</title></head></html>',
      'application/xhtml+xml',
    ),
  });
});

afterAll(async () => {
  await server.close();
  restoreSettings();
});

describe('autoConfigure on fixture sites', () => {
  it('suggests a small business site field by field', async () => {
    const { suggestions } = await autoConfigure(server.url('/business/'));

    expect(suggestions).toEqual({
      website_url: `${server.origin}/`,
      name: 'Bluebell Bakery',
      short_description:
        'Family-run sourdough bakery in Leeds since 1987. Fresh bread, cakes & coffee every day.',
      primary_color: '#e4572e',
      secondary_color: null,
      logo_image: server.url('/images/bluebell-logo.svg'),
      logo_square_image: server.url('/icons/apple-touch-icon.png'),
      header_image: null,
      footer_image: null,
      social_share_image: server.url('/images/shopfront.jpg'),
      social_links: {
        facebook: 'https://www.facebook.com/bluebellbakeryleeds/',
        instagram: 'https://instagram.com/bluebell.bakery',
        linkedin: 'https://www.linkedin.com/company/bluebell-bakery',
      },
    });
    expectValidBrandInput(suggestions);
  });

  it('ignores share buttons, embedded posts, bylines and videos on a news article', async () => {
    const { suggestions } = await autoConfigure(server.url('/news/storm'));

    expect(suggestions).toEqual({
      website_url: `${server.origin}/`,
      name: 'The Daily Ledger',
      short_description: 'Storm Agnes has closed the A171 between Whitby and Scarborough overnight.',
      // White (msapplication-TileColor) ranks after the chromatic mask-icon colour.
      primary_color: '#003366',
      secondary_color: '#ffffff',
      // Relative URLs resolve against <base href>.
      logo_image: 'https://static.dailyledger.example/assets/logo-wide.png',
      logo_square_image: 'https://static.dailyledger.example/assets/icons/ledger.svg',
      header_image: null,
      footer_image: null,
      social_share_image: 'https://cdn.dailyledger.example/og/storm-1200x630.jpg',
      social_links: {
        // twitter:site, as x.com; the rel=me Mastodon profile is on no known network's host.
        x: 'https://x.com/dailyledger',
        youtube: 'https://www.youtube.com/@dailyledger',
        facebook: 'https://www.facebook.com/dailyledger',
      },
    });
    expectValidBrandInput(suggestions);
  });

  it('reads JSON-LD and the web manifest (icons resolved against the manifest URL)', async () => {
    const { suggestions } = await autoConfigure(server.url('/brand/'));

    expect(suggestions).toEqual({
      website_url: `${server.origin}/`,
      name: 'Northwind Outfitters Ltd',
      short_description: 'Outdoor clothing and equipment, made to last.',
      primary_color: '#2f6b3a',
      secondary_color: '#f4f1ea',
      logo_image: 'https://cdn.northwind.example/logo-wide.png',
      logo_square_image: server.url('/brand/icons/icon-512.png'),
      header_image: null,
      footer_image: null,
      social_share_image: null,
      social_links: {
        facebook: 'https://www.facebook.com/northwindoutfitters',
        // sameAs also names a Wikipedia article (no social network) and a follow intent (no profile).
        linkedin: 'https://www.linkedin.com/company/northwind-outfitters',
      },
    });
    expectValidBrandInput(suggestions);
  });

  it.each([
    ['missing (404)', '/no-manifest/'],
    ['not JSON', '/html-manifest/'],
  ])('does not fail when the manifest is %s', async (_case, pathname) => {
    const { suggestions } = await autoConfigure(server.url(pathname));

    expect(suggestions.name).toBe('Northwind Outfitters Ltd');
    expect(suggestions.primary_color).toBeNull();
    expect(suggestions.logo_square_image).toBeNull();
    expectValidBrandInput(suggestions);
  });

  it.each([
    ['Shift_JIS from the Content-Type header', '/shift-jis/', 'name', '日本東京'],
    ['EUC-JP from <meta charset>', '/euc-jp/', 'name', '日本東京'],
    ['GB2312 from an unquoted <meta charset>', '/gb2312/', 'name', '中文北京'],
    ['windows-1250 from <meta http-equiv>', '/windows-1250/', 'short_description', 'Piekarnia Łódź Kraków'],
    ['the header charset over the meta charset', '/header-beats-meta/', 'name', '日本東京'],
    ['UTF-8 when the charset label is unknown', '/unknown-charset/', 'name', 'Café Zoë'],
    ['the real EUC-JP Rakuten page', '/rakuten/', 'name', '楽天市場'],
  ] as const)('decodes %s', async (_case, pathname, field, expected) => {
    const { suggestions } = await autoConfigure(server.url(pathname));

    expect(suggestions[field]).toBe(expected);
    expectValidBrandInput(suggestions);
  });

  it('sniffs a page served without Content-Type', async () => {
    expect((await autoConfigure(server.url('/no-content-type/'))).suggestions.name).toBe('Sniffed Co');
  });

  it('accepts XHTML', async () => {
    expect((await autoConfigure(server.url('/xhtml/'))).suggestions.name).toBe('Xhtml Co');
  });
});
