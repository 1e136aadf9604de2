import { referencePage } from '../../shared/docs/reference-page.ts';
import { etagOf, unlessNotModified } from '../../shared/http/conditional.ts';
import { okText, publicHttpHandler } from '../../shared/http/handler.ts';

/** The API reference: a page on which Redoc renders the OpenAPI document (shared/docs/reference-page.ts). */
export const handler = publicHttpHandler(async (req) => {
  const { html, headers } = referencePage(req.basePath);
  return unlessNotModified(req, {
    ...okText('text/html; charset=utf-8', html),
    headers: { ...headers, ETag: etagOf(html) },
  });
});
