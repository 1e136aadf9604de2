/**
 * Words a title, a logo's alt text or a site name uses for the page's role rather than its owner ("Startseite: …",
 * "Accueil - …", "首页_…", "ホーム | …"), per language. Such a segment names no brand.
 */

/** The home or start page, the official site. */
const PAGE_ROLES: Record<string, readonly string[]> = {
  en: [
    'home',
    'homepage',
    'home page',
    'start',
    'start page',
    'main page',
    'front page',
    'index',
    'top',
    'official site',
    'official website',
  ],
  de: ['startseite', 'hauptseite', 'offizielle website', 'offizielle webseite'],
  fr: ['accueil', "page d'accueil", 'site officiel'],
  es: ['inicio', 'portada', 'página de inicio', 'página principal', 'sitio oficial', 'web oficial'],
  pt: ['início', 'inicio', 'página inicial', 'página principal', 'site oficial'],
  zh: ['首页', '首頁', '主页', '主頁', '网站首页', '網站首頁', '官网', '官網', '官方网站', '官方網站'],
  ja: ['ホーム', 'トップ', 'トップページ', 'ホームページ', '公式', '公式サイト', '公式ホームページ'],
  ar: ['الرئيسية', 'الصفحة الرئيسية', 'الموقع الرسمي'],
  it: ['pagina iniziale', 'sito ufficiale'],
  nl: ['startpagina', 'officiële website'],
  da: ['forside'],
  sv: ['startsida'],
  pl: ['strona główna'],
};

/** Greetings: generic as a segment of their own ("Welcome :: Widget World"), never cut from a longer one. */
const GREETINGS: Record<string, readonly string[]> = {
  en: ['welcome'],
  de: ['willkommen', 'herzlich willkommen'],
  fr: ['bienvenue'],
  es: ['bienvenido', 'bienvenidos', 'bienvenida', 'bienvenidas'],
  pt: ['bem-vindo', 'bem-vindos', 'bem-vinda', 'bem-vindas'],
  zh: ['欢迎', '歡迎', '欢迎光临', '歡迎光臨'],
  ja: ['ようこそ'],
  ar: ['مرحبا', 'مرحباً', 'أهلا وسهلا'],
  it: ['benvenuto', 'benvenuti'],
  nl: ['welkom'],
  da: ['velkommen'],
  sv: ['välkommen'],
  pl: ['witamy'],
};

// Role words that also begin or end real names (Home Depot, Start Today, Index Ventures, Top Gear): generic only as
// a whole segment.
const ALSO_IN_NAMES = new Set(['home', 'start', 'index', 'top', 'ホーム', 'トップ']);

const GENERIC = new Set([...Object.values(PAGE_ROLES).flat(), ...Object.values(GREETINGS).flat()]);

// A role word at the start or end of a segment, apart from the rest by a space: "infopark.de Startseite".
const EDGE_WORDS = Object.values(PAGE_ROLES)
  .flat()
  .filter((word) => !ALSO_IN_NAMES.has(word))
  .map((word) => word.replace(/'/g, "['’]"))
  .join('|');
const ROLE_AT_EDGE = new RegExp(`^(?:${EDGE_WORDS})\\s+|\\s+(?:${EDGE_WORDS})$`, 'iu');

// Scripts written without spaces between words (Chinese, Japanese, Thai…): a role word there is joined to the name it
// follows or precedes ("腾讯首页", "小米官网").
export const UNSPACED_LETTER = String.raw`[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]`;
const UNSPACED_EDGE_WORDS = [...(PAGE_ROLES.zh ?? []), ...(PAGE_ROLES.ja ?? [])]
  .filter((word) => !ALSO_IN_NAMES.has(word))
  .sort((a, b) => b.length - a.length)
  .join('|');
const ROLE_AT_UNSPACED_EDGE = new RegExp(
  `^(?:${UNSPACED_EDGE_WORDS})(?=${UNSPACED_LETTER})|(?<=${UNSPACED_LETTER})(?:${UNSPACED_EDGE_WORDS})$`,
  'u',
);

/** Whether the text is only a word for the page's role or a greeting (case, width and closing punctuation aside). */
export function isPageRole(text: string): boolean {
  const comparable = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/’/g, "'")
    .replace(/[\s!.…。]+$/u, '')
    .trim();
  return GENERIC.has(comparable);
}

/** The text without a role word at its start or end ("infopark.de Startseite" → "infopark.de", "腾讯首页" → "腾讯"). */
export function withoutPageRole(text: string): string {
  return text.trim().replace(ROLE_AT_EDGE, '').replace(ROLE_AT_UNSPACED_EDGE, '').trim();
}
