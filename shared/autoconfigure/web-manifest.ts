import { httpUrl } from './html-document.ts';
import { isJsonObject, nonEmptyString, parseJsonOrNull } from './json-values.ts';

/** The parts of a web app manifest that describe a brand; icon URLs already resolved against the manifest's URL. */
export interface WebManifest {
  name: string | null;
  shortName: string | null;
  themeColor: string | null;
  backgroundColor: string | null;
  icons: Array<{ url: URL; sizes: string }>;
}

/** Reads a manifest's JSON text; anything that is not a JSON object yields null (a bad manifest is ignored). */
export function readWebManifest(text: string, manifestUrl: string): WebManifest | null {
  const data = parseJsonOrNull(text);
  if (!isJsonObject(data)) return null;
  const base = new URL(manifestUrl);
  const icons = Array.isArray(data.icons) ? data.icons.filter(isJsonObject) : [];
  return {
    name: nonEmptyString(data.name),
    shortName: nonEmptyString(data.short_name),
    themeColor: nonEmptyString(data.theme_color),
    backgroundColor: nonEmptyString(data.background_color),
    icons: icons.flatMap((icon) => {
      const url = httpUrl(nonEmptyString(icon.src), base);
      return url === null ? [] : [{ url, sizes: nonEmptyString(icon.sizes) ?? '' }];
    }),
  };
}
