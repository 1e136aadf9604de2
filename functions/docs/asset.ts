import redocScript from 'redoc/bundles/redoc.standalone.js' with { type: 'text' };
import redoc from 'redoc/package.json' with { type: 'json' };
import { NotFoundError } from '../../shared/domain/errors.ts';
import { etagOf, unlessNotModified } from '../../shared/http/conditional.ts';
import { okText, publicHttpHandler } from '../../shared/http/handler.ts';

/**
 * What the docs page loads from this deployment, by name (bundled into this function as text); any other
 * name is a 404. Asked for with the version the page names (`?v=`), a script is cached for a year.
 */
const ASSETS = new Map([
  ['redoc.standalone.js', asset('text/javascript; charset=utf-8', withoutRemoteLogo(redocScript))],
]);

export const handler = publicHttpHandler(async (req) => {
  const found = ASSETS.get(req.pathParams.asset ?? '');
  if (!found) throw new NotFoundError();
  const versioned = req.query.v?.[0] === redoc.version;
  const headers = {
    ETag: found.etag,
    'Cache-Control': versioned ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
    'X-Content-Type-Options': 'nosniff',
  };
  return unlessNotModified(req, { ...okText(found.contentType, found.body), headers });
});

function asset(contentType: string, body: string) {
  return { contentType, body, etag: etagOf(body) };
}

/**
 * Redoc's sidebar shows Redocly's logo from cdn.redoc.ly; the page loads nothing from another origin, so the
 * logo is an empty image instead, which Redoc leaves out (as when the CDN is unreachable).
 */
function withoutRemoteLogo(script: string): string {
  return script.replace('https://cdn.redoc.ly/redoc/logo-mini.svg', 'data:,');
}
