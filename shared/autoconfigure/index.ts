import { GuardedClient, type GuardedFetchOptions } from '../outbound/guarded-fetch.ts';
import { FetchRefusal } from '../outbound/refusal.ts';
import { decodeHtml } from './decode.ts';
import {
  type AutoConfiguration,
  autoConfiguration,
  type BrandSuggestions,
  manifestUrlOf,
} from './extract.ts';
import { parsePage } from './html-document.ts';
import { readWebManifest, type WebManifest } from './web-manifest.ts';

export type { AutoConfiguration, BrandSuggestions };
export interface AutoConfigureOptions extends GuardedFetchOptions {
  /**
   * Called once the last fetch has ended (page and manifest), before the suggestions are worked out from
   * them: what it starts (a slot's release) goes out while they are.
   */
  onFetched?: () => Promise<unknown>;
}

/** Event loop turns given to what `onFetched` starts before the page is read (see autoConfigure). */
const YIELDED_TURNS = 3;

/**
 * Suggests brand values for a website, with their sources, confidence and dark-mode variants: fetches the page (and
 * its web manifest) through the guarded client and reads its metadata. Creates nothing. Throws a FetchRefusal (422) naming the cause when the site cannot be fetched.
 */
export async function autoConfigure(
  url: string,
  options: AutoConfigureOptions = {},
): Promise<AutoConfiguration> {
  const client = new GuardedClient(options);
  try {
    const document = await client.get(url, 'html');
    const page = parsePage(decodeHtml(document.body, document.contentType), document.url);
    const manifest = await fetchManifest(client, manifestUrlOf(page));
    const fetched = options.onFetched?.();
    // A few turns of the event loop, so that what the hook sent is on the wire before the CPU-bound work below:
    // the SDK writes a request on a kept-alive connection two turns after it is sent (measured; one is not
    // enough), and the reading of a page would hold the thread until it ends.
    if (fetched) for (let turn = 0; turn < YIELDED_TURNS; turn++) await new Promise(setImmediate);
    const configuration = autoConfiguration(page, manifest);
    await fetched;
    return configuration;
  } finally {
    await client.close();
  }
}

/** The manifest only adds names, colours and icons: when it cannot be fetched, the page alone decides. */
async function fetchManifest(client: GuardedClient, url: string | null): Promise<WebManifest | null> {
  if (url === null) return null;
  return client.get(url, 'json').then(
    (document) => readWebManifest(new TextDecoder().decode(document.body), document.url),
    (error: unknown) => {
      if (error instanceof FetchRefusal) return null;
      throw error;
    },
  );
}
