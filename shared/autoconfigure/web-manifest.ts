import { httpUrl } from './html-document.ts';
import { isJsonObject, type JsonObject, nonEmptyString, parseBoundedJsonOrNull } from './json-values.ts';

export interface ManifestIcon {
  url: URL;
  sizes: string;
}

/** The colours and icons a manifest gives for one colour scheme. */
export interface ManifestTheme {
  themeColor: string | null;
  backgroundColor: string | null;
  icons: ManifestIcon[];
}

/** The parts of a web app manifest that describe a brand; icon URLs already resolved against the manifest's URL. */
export interface WebManifest extends ManifestTheme {
  name: string | null;
  shortName: string | null;
  /** Dark-mode overrides; every field empty when the manifest has none. */
  dark: ManifestTheme;
}

/**
 * Reads a manifest's JSON text; anything that is not a JSON object, or JSON past autoConfigureJsonDepth or
 * autoConfigureJsonValues, yields null (a bad manifest is ignored).
 */
export function readWebManifest(text: string, manifestUrl: string): WebManifest | null {
  const data = parseBoundedJsonOrNull(text);
  if (!isJsonObject(data)) return null;
  const base = new URL(manifestUrl);
  return {
    name: nonEmptyString(data.name),
    shortName: nonEmptyString(data.short_name),
    ...themeOf(data, base),
    dark: themeOf(darkOverridesOf(data), base),
  };
}

/**
 * The manifest's dark-mode overrides: `color_scheme_dark` of the Web App Manifest spec (theme and background colour
 * only), then `user_preferences.color_scheme.dark` (or its earlier name `user_preferences.color_scheme_dark`) of
 * the WICG incubation, which may also replace `icons`. Icon `purpose` (monochrome, maskable) is about masking, not
 * the colour scheme, so it marks nothing as dark.
 */
function darkOverridesOf(data: JsonObject): JsonObject {
  const preferences = isJsonObject(data.user_preferences) ? data.user_preferences : {};
  const colorScheme = isJsonObject(preferences.color_scheme) ? preferences.color_scheme : {};
  const overrides = [data.color_scheme_dark, colorScheme.dark, preferences.color_scheme_dark];
  // Earlier sources win field by field; a fresh object without prototype holds them.
  return Object.assign(Object.create(null), ...overrides.filter(isJsonObject).reverse());
}

function themeOf(data: JsonObject, base: URL): ManifestTheme {
  const icons = Array.isArray(data.icons) ? data.icons.filter(isJsonObject) : [];
  return {
    themeColor: nonEmptyString(data.theme_color),
    backgroundColor: nonEmptyString(data.background_color),
    icons: icons.filter(isForAnyContext).flatMap((icon) => {
      const url = httpUrl(nonEmptyString(icon.src), base);
      return url === null ? [] : [{ url, sizes: nonEmptyString(icon.sizes) ?? '' }];
    }),
  };
}

/**
 * An icon meant to be shown as it is: its `purpose` (a list, `any` when absent) includes `any`. A `monochrome`
 * icon is a silhouette to be filled with one colour and a `maskable` one has safe-zone padding to be cropped:
 * neither is the brand's logo as drawn.
 */
function isForAnyContext(icon: JsonObject): boolean {
  const purposes = (nonEmptyString(icon.purpose) ?? 'any').toLowerCase().split(/\s+/);
  return purposes.includes('any');
}
