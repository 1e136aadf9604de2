import { type AutoConfiguration, autoConfiguration } from '../../../shared/autoconfigure/extract.ts';
import { parsePage } from '../../../shared/autoconfigure/html-document.ts';
import { readWebManifest } from '../../../shared/autoconfigure/web-manifest.ts';
import { expectValidAutoConfiguration } from './valid-suggestions.ts';

/** The address the synthetic pages are read at: a site on www. of a suffix of two labels. */
export const PAGE_URL = 'https://www.acme-widgets.co.uk/shop/';

/**
 * What auto-configure suggests for a page made of `head` and `body` (with a web manifest's JSON when given), checked to
 * be valid suggestions.
 */
export function configure(head: string, body = '', manifestJson: string | null = null): AutoConfiguration {
  const manifest =
    manifestJson === null ? null : readWebManifest(manifestJson, `${PAGE_URL}site.webmanifest`);
  const page = parsePage(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`, PAGE_URL);
  const configuration = autoConfiguration(page, manifest);
  expectValidAutoConfiguration(configuration);
  return configuration;
}
