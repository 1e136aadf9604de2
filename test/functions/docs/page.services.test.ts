import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, useApi } from '../../support/api.ts';
import { ROOT } from '../../support/processes.ts';
import { HANG_MS } from '../../support/timeouts.ts';

/**
 * The API reference in a real browser: Chromium from @sparticuz/chromium (decompressed into the temp
 * directory on first use), launched once for this file and always closed, loads /docs from the local
 * gateway once; the tests then read what it rendered, requested and reported.
 */
const api = useApi();
const openapi = JSON.parse(readFileSync(`${ROOT}/shared/openapi/openapi.json`, 'utf8'));
type Operations = Record<
  string,
  { operationId: string; summary: string; security?: Array<Record<string, string[]>> }
>;
const operations = Object.values(openapi.paths).flatMap((methods) => Object.values(methods as Operations));
/** What the API sends (the document's `webhooks`): Redoc renders each too, its heading marked `Webhook`. */
const webhooks = Object.values(openapi.webhooks).flatMap((methods) => Object.values(methods as Operations));

// Scripts run in the page, as text (this project's TypeScript has no DOM types).
/** The browser reports each refusal by the page's CSP as an event; the page keeps a list of them. */
const RECORD_VIOLATIONS = `
  window.violations = [];
  document.addEventListener('securitypolicyviolation', (event) =>
    window.violations.push(event.effectiveDirective + ' ' + event.blockedURI));
`;
/** Adds an inline script: whether it ran, and which directive refused it. */
const INLINE_SCRIPT = `new Promise((resolve) => {
  const ran = () => 'ranInline' in window;
  document.addEventListener('securitypolicyviolation',
    (event) => resolve({ ran: ran(), refusedBy: event.effectiveDirective }), { once: true });
  setTimeout(() => resolve({ ran: ran(), refusedBy: 'nothing' }), ${HANG_MS});
  const script = document.createElement('script');
  script.textContent = 'window.ranInline = true';
  document.body.append(script);
})`;

let browser: Browser | undefined;
/** The Chromium process this file started: killed if closing the browser fails. */
let chromiumProcess: ChildProcess | null | undefined;
let page: Page;
const loaded = {
  headers: {} as Record<string, string>,
  requests: [] as string[],
  errors: [] as string[],
  violations: [] as string[],
  /** Per rendered operation section: its id (`operation/<operationId>`), its heading and its text. */
  sections: [] as Array<{ id: string; heading: string; text: string }>,
  /** The sidebar's entries at its top level (not inside a tag): their ids and labels. */
  menu: [] as Array<{ id: string; label: string }>,
  /** The introduction's Authentication section as rendered: its text and its size on the page. */
  authentication: { text: '', height: 0 },
};

beforeAll(async () => {
  browser = await puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: puppeteer.defaultArgs({ args: chromium.args, headless: 'shell' }),
    headless: 'shell',
  });
  chromiumProcess = browser.process();
  page = await browser.newPage();
  page.on('request', (request) => loaded.requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') loaded.errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => loaded.errors.push(`page: ${String(error)}`));
  await page.evaluateOnNewDocument(RECORD_VIOLATIONS);
  const response = await page.goto(`${api.url}/docs`, { waitUntil: 'load', timeout: 60_000 });
  loaded.headers = response?.headers() ?? {};
  await page.waitForSelector('[data-section-id^="operation/"]', { timeout: 60_000 });
  // Whatever the rendered page goes on to load (images, its worker) has been asked for.
  await page.waitForNetworkIdle({ idleTime: 500, timeout: 60_000 });
  loaded.sections = await page.$$eval('[data-section-id^="operation/"]', (sections) =>
    sections.map((section) => ({
      id: section.getAttribute('data-section-id') ?? '',
      heading: section.querySelector('h2')?.textContent?.trim() ?? '',
      text: section.textContent ?? '',
    })),
  );
  loaded.violations = (await page.evaluate('window.violations')) as string[];
  loaded.menu = await page.$$eval('.menu-content ul > li[data-item-id^="section/"]', (items) =>
    items.map((item) => ({
      id: item.getAttribute('data-item-id') ?? '',
      label: item.querySelector('label')?.textContent?.trim() ?? '',
    })),
  );
  // Before anything on the page is clicked or expanded.
  loaded.authentication = await page
    .$eval('[data-section-id="section/Authentication"]', (section) => ({
      text: section.textContent ?? '',
      height: section.getBoundingClientRect().height,
    }))
    .catch(() => ({ text: '', height: 0 }));
});

afterAll(async () => {
  await browser?.close().catch(() => chromiumProcess?.kill('SIGKILL'));
});

describe('the API reference page in a browser', () => {
  it('renders every operation and webhook of the document, by its summary', () => {
    expect(operations.length).toBeGreaterThan(0);
    expect(webhooks.length).toBeGreaterThan(0);
    const rendered = loaded.sections.map(({ id, heading }) => `${id} ${heading.replace(/\s+/g, ' ')}`).sort();
    const expected = [
      ...operations.map(({ operationId, summary }) => `operation/${operationId} ${summary}`),
      ...webhooks.map(({ operationId, summary }) => `operation/${operationId} ${summary} Webhook`),
    ].sort();
    expect(rendered).toEqual(expected);
  });

  // Redoc names no role of an http scheme's requirement (only OAuth2 scopes): the description's line says it.
  it("shows each operation's scope: the line of its description, and its 403", () => {
    const scoped = operations.filter((operation) => operation.security?.[0]?.bearerAuth?.length);
    expect(scoped.length).toBeGreaterThan(0);
    const missing = scoped.filter((operation) => {
      const scope = operation.security?.[0]?.bearerAuth?.[0] ?? '';
      const text = loaded.sections.find(({ id }) => id === `operation/${operation.operationId}`)?.text ?? '';
      return !text.includes(`Requires the ${scope} scope`) || !text.includes(`lacks the ${scope} scope`);
    });
    expect(missing.map(({ operationId }) => operationId)).toEqual([]);
  });

  // How to get a token was once only behind each operation's collapsed "Authorizations".
  it('has an Authentication section in the sidebar and the introduction: how to send and get a token', () => {
    expect(loaded.menu.map(({ id, label }) => `${id} ${label}`)).toContain(
      'section/Authentication Authentication',
    );
    // Shown as it is, without expanding anything: how to send a token, how to get one, the scheme.
    expect(loaded.authentication.height).toBeGreaterThan(100);
    const text = loaded.authentication.text.replace(/\s+/g, ' ');
    for (const said of [
      'Authorization: Bearer <token>',
      'npm start',
      'npm run -s admin -- team create --name Acme',
      // The security scheme's own description (Getting one), and its kind.
      'npm run -s admin -- token create --team <team id>',
      'bearer',
    ]) {
      expect(text, said).toContain(said);
    }
  });

  // The payload samples were once fillers ("string", 9007199254740991, `"object": {}`).
  it("shows each webhook's payload sample as a real event of its type", () => {
    const samples = webhooks.map(({ operationId }) => {
      const text = loaded.sections.find(({ id }) => id === `operation/${operationId}`)?.text ?? '';
      return [operationId, text.slice(text.indexOf('Request samples'))];
    });
    expect(samples.length).toBe(Object.keys(openapi.webhooks).length);
    const fillers = samples.filter(
      ([, sample = '']) =>
        !/"id": "evt_\d+_\d+_\d+_\d+"/.test(sample) ||
        /"string"|9007199254740991|"object": \{\}/.test(sample) ||
        !/"resource_version": [1-9]/.test(sample),
    );
    expect(fillers.map(([id]) => id)).toEqual([]);
    for (const type of Object.keys(openapi.webhooks)) {
      const [, sample = ''] = samples.find(([id]) => id === openapi.webhooks[type].post.operationId) ?? [];
      expect(sample, type).toContain(`"type": "${type}"`);
    }
  });

  it('requests nothing from another origin', () => {
    const origin = new URL(api.url).origin;
    // data: URLs are inline (Redoc's icons); a blob: URL's origin is the page's that made it.
    const fetched = loaded.requests.filter((url) => !url.startsWith('data:'));
    expect(fetched.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    const paths = fetched.map((url) => new URL(url).pathname);
    expect(paths).toEqual(
      expect.arrayContaining(['/docs', '/docs/redoc.standalone.js', '/api/v1/openapi.json']),
    );
  });

  it('reports no console error, page error or CSP violation', () => {
    expect(loaded.errors).toEqual([]);
    expect(loaded.violations).toEqual([]);
  });

  it('is served with a Content-Security-Policy, which this browser enforces', async () => {
    expect(loaded.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(loaded.headers['x-content-type-options']).toBe('nosniff');
    // The CSP holds in this browser (its launch flags do not turn it off): an inline script is refused.
    const refused = await page.evaluate(INLINE_SCRIPT);
    expect(refused).toEqual({ ran: false, refusedBy: 'script-src-elem' });
  });
});

describe("the page's files", () => {
  it('serves Redoc under the version the page names, cached for good, with an ETag that answers 304', async () => {
    const client = apiClient(api.url);
    const html = await client.get('/docs');
    const src = html.text.match(/<script src="([^"]+)"/)?.[1] ?? '';
    expect(src).toMatch(/^\/docs\/redoc\.standalone\.js\?v=\d+\.\d+\.\d+$/);
    // The document names the files there are (the asset parameter's enum): the page's script among them.
    const asset = openapi.paths['/docs/{asset}'].get.parameters[0];
    expect(asset.schema.enum).toContain(new URL(src, api.url).pathname.split('/').pop());
    const script = await client.get(src);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect(script.text.match(/https:\/\/cdn\.[^"]*/g)).toBeNull(); // Redoc's logo is not fetched from its CDN
    const etag = script.headers.get('etag') ?? '';
    const again = await client.get(src, { 'If-None-Match': etag });
    expect([again.status, again.text]).toEqual([304, '']);
    // Asked for without the version, the script may change under the same URL: a short cache.
    const unversioned = await client.get('/docs/redoc.standalone.js');
    expect(unversioned.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it.each(['redoc.standalone.js.map', 'index.html', '__proto__', 'constructor', '..%2Fpage.ts'])(
    'answers any other name (%s) with a JSON 404',
    async (name) => {
      const response = await apiClient(api.url).get(`/docs/${name}`);
      expect([response.status, response.body]).toEqual([404, { message: 'Not Found.' }]);
    },
  );
});
