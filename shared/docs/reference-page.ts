import redoc from 'redoc/package.json' with { type: 'json' };

/**
 * The API reference page (GET /docs): Redoc rendering the OpenAPI document. It loads only from this
 * deployment, by absolute paths under the stage's prefix (`/prod` on an execute-api URL, empty locally):
 * relative ones would resolve differently from `/docs` and from `/docs/`.
 */
export function referencePage(basePath: string): { html: string; headers: Record<string, string> } {
  return { html: page(escapeHtml(basePath)), headers: HEADERS };
}

/**
 * Nothing but our own script and document, and what Redoc needs besides: the styles it injects
 * (styled-components), data: images (its icons) and a blob: worker (its search index).
 */
export const REFERENCE_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'unsafe-inline'",
  'img-src data:',
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS = {
  'Content-Security-Policy': REFERENCE_PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'public, max-age=300',
};

// The script's URL names Redoc's version, so that it can be cached for good (functions/docs/asset.ts).
const page = (base: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Team Messaging API reference</title>
</head>
<body>
<redoc spec-url="${base}/api/v1/openapi.json"></redoc>
<script src="${base}/docs/redoc.standalone.js?v=${redoc.version}"></script>
</body>
</html>
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
