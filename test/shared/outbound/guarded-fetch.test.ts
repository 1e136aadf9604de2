import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { autoConfigure } from '../../../shared/autoconfigure/index.ts';
import { TeamShareFullError } from '../../../shared/domain/errors.ts';
import { httpErrorOf } from '../../../shared/http/errors.ts';
import { GuardedClient, type GuardedFetchOptions } from '../../../shared/outbound/guarded-fetch.ts';
import { FetchRefusal } from '../../../shared/outbound/refusal.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';
import {
  type FixtureServer,
  html,
  type Route,
  redirect,
  reset,
  respond,
  silent,
  stalledHtml,
  startFixtureServer,
  status,
  streamedHtml,
} from '../autoconfigure/fixture-server.ts';

const PAGE = '<!doctype html><html><head><title>Fixture Co</title></head><body></body></html>';
const SIX_MB = 6 * 1024 * 1024;

/** /chain/N redirects to /chain/N-1 (alternating relative and absolute Locations); /chain/0 is the page. */
function redirectChain(length: number): Record<string, Route> {
  const routes: Record<string, Route> = { '/chain/0': html(PAGE) };
  for (let step = 1; step <= length; step++) {
    routes[`/chain/${step}`] = redirect(step % 2 === 0 ? 301 : 307, `/chain/${step - 1}`, {
      absolute: step % 2 === 0,
    });
  }
  return routes;
}

let server: FixtureServer;
let hits: Record<string, number>;

beforeAll(async () => {
  server = await startFixtureServer({
    '/page/': html(PAGE),
    '/redirect/relative': redirect(302, '/page/'),
    '/redirect/absolute': redirect(301, '/page/', { absolute: true }),
    '/redirect/dot-relative': redirect(303, '../page/'),
    ...redirectChain(6),
    '/redirect/no-location': status(302),
    '/redirect/private': redirect(302, 'http://10.0.0.1/admin'),
    '/redirect/metadata': redirect(302, 'http://169.254.169.254/latest/meta-data/'),
    '/redirect/file': redirect(302, 'file:///etc/passwd'),
    '/redirect/credentials': redirect(302, 'http://admin:secret@example.com/'),
    '/redirect/rebind': redirect(302, 'http://rebind.example/'),
    '/forbidden': status(403),
    '/server-error': status(500),
    '/json': respond('{"a":1}', { 'content-type': 'application/json' }),
    '/image': respond(Buffer.from([0x89, 0x50, 0x4e, 0x47]), { 'content-type': 'image/png' }),
    '/no-type-binary': respond(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a])),
    '/huge': streamedHtml(SIX_MB),
    '/huge-declared': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html', 'content-length': SIX_MB });
      response.write('<html>');
    },
    '/gzip-bomb': respond(gzipSync(Buffer.alloc(SIX_MB, ' ')), {
      'content-type': 'text/html',
      'content-encoding': 'gzip',
    }),
    '/gzip-page': respond(gzipSync(PAGE), { 'content-type': 'text/html', 'content-encoding': 'gzip' }),
    '/slow-headers': silent(),
    '/slow-body': stalledHtml(),
    '/reset': reset(),
    '/close-after': (request, response) => {
      hits[request.url ?? ''] = (hits[request.url ?? ''] ?? 0) + 1;
      response.writeHead(200, { 'content-type': 'text/html', connection: 'close' }).end(PAGE);
    },
  });
});

afterAll(async () => {
  await server.close();
});

afterEach(() => {
  restoreSettings();
});

async function fetchPage(url: string, options: GuardedFetchOptions = {}): Promise<string> {
  const client = new GuardedClient({ allowLoopback: true, ...options });
  try {
    const document = await client.get(url, 'html');
    return new TextDecoder().decode(document.body);
  } finally {
    await client.close();
  }
}

async function expectRefusal(promise: Promise<unknown>, message: string | RegExp): Promise<void> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(FetchRefusal);
  expect(httpErrorOf(error as FetchRefusal)?.status).toBe(422);
  expect((error as FetchRefusal).message).toMatch(message);
}

describe('guarded fetch: redirects', () => {
  it.each([
    ['a relative Location', '/redirect/relative'],
    ['an absolute Location', '/redirect/absolute'],
    ['a dot-relative Location', '/redirect/dot-relative'],
    ['a chain of exactly 5 redirects', '/chain/5'],
  ])('follows %s', async (_case, pathname) => {
    expect(await fetchPage(server.url(pathname))).toBe(PAGE);
  });

  it('reports the final URL so relative links resolve against it', async () => {
    const client = new GuardedClient({ allowLoopback: true });
    const document = await client.get(server.url('/redirect/relative'), 'html').finally(() => client.close());
    expect(document.url).toBe(server.url('/page/'));
  });

  it('refuses a sixth redirect', async () => {
    await expectRefusal(fetchPage(server.url('/chain/6')), 'too many redirects');
  });

  it('treats a redirect without Location as the HTTP status it is', async () => {
    await expectRefusal(fetchPage(server.url('/redirect/no-location')), 'site responded with HTTP 302');
  });

  it.each([
    ['a private address', '/redirect/private', '10.0.0.1 resolves to a private address'],
    ['the metadata service', '/redirect/metadata', '169.254.169.254 resolves to a private address'],
    ['a file: URL', '/redirect/file', /^invalid URL/],
    ['a URL with credentials', '/redirect/credentials', 'URL must not contain credentials'],
  ])('re-checks every hop: refuses a redirect to %s', async (_case, pathname, message) => {
    await expectRefusal(fetchPage(server.url(pathname)), message);
  });

  it('re-checks DNS on every hop: refuses a redirect to a name resolving to a private address', async () => {
    const resolveHost = vi.fn(async () => [{ address: '10.0.0.1', family: 4 }]);
    await expectRefusal(
      fetchPage(server.url('/redirect/rebind'), { resolveHost }),
      'rebind.example resolves to a private address',
    );
    expect(resolveHost).toHaveBeenCalledWith('rebind.example');
  });
});

describe('guarded fetch: responses', () => {
  it.each([
    ['/forbidden', 'site responded with HTTP 403'],
    ['/server-error', 'site responded with HTTP 500'],
    ['/json', 'not an HTML page'],
    ['/image', 'not an HTML page'],
    ['/no-type-binary', 'not an HTML page'],
    ['/huge', 'page is too large'],
    ['/huge-declared', 'page is too large'],
    ['/gzip-bomb', 'page is too large'],
  ])('%s → 422 %s', async (pathname, message) => {
    await expectRefusal(fetchPage(server.url(pathname)), message);
  });

  it('decompresses gzip', async () => {
    expect(await fetchPage(server.url('/gzip-page'))).toBe(PAGE);
  });

  it('honours a smaller maxBytes', async () => {
    await expectRefusal(fetchPage(server.url('/page/'), { maxBytes: 20 }), 'page is too large');
  });

  it.each([
    ['never answers', '/slow-headers'],
    ['stalls mid-body', '/slow-body'],
  ])('times out when the site %s', async (_case, pathname) => {
    // The site never finishes: only the fetch's own deadline ends the wait (no bound on how soon: load).
    await expectRefusal(fetchPage(server.url(pathname), { timeoutMs: 300 }), 'timed out');
  });

  it('times out when DNS never answers', async () => {
    const resolveHost = () => new Promise<never>(() => undefined);
    await expectRefusal(fetchPage('http://slow-dns.example/', { resolveHost, timeoutMs: 200 }), 'timed out');
  });

  it('reports a reset connection as a 422, not a 5xx', async () => {
    await expectRefusal(fetchPage(server.url('/reset')), 'could not connect to 127.0.0.1');
  });

  it('reports a refused connection as a 422', async () => {
    const closed = await startFixtureServer({});
    await closed.close();
    await expectRefusal(fetchPage(closed.url('/')), 'could not connect to 127.0.0.1');
  });

  it('reports a name that does not resolve', async () => {
    await expectRefusal(
      fetchPage('http://example.invalid/', { resolveHost: async () => [] }),
      'could not resolve host example.invalid',
    );
    await expectRefusal(
      fetchPage('http://example.invalid/', { resolveHost: () => Promise.reject(new Error('ENOTFOUND')) }),
      'could not resolve host example.invalid',
    );
  });
});

describe('guarded fetch: DNS is checked at connect time', () => {
  it('refuses a name that rebinds to a private address on the next connection', async () => {
    hits = {};
    const answers = ['127.0.0.1', '10.0.0.1'];
    const resolveHost = vi.fn(async () => [{ address: answers.shift() ?? '10.0.0.1', family: 4 }]);
    const client = new GuardedClient({ allowLoopback: true, resolveHost });
    const url = `http://rebind.example:${new URL(server.origin).port}/close-after`;
    try {
      // The server closes each connection, so the second request must connect (and resolve) again.
      await client.get(url, 'html');
      await expectRefusal(client.get(url, 'html'), 'rebind.example resolves to a private address');
    } finally {
      await client.close();
    }
    expect(resolveHost).toHaveBeenCalledTimes(2);
    expect(hits['/close-after']).toBe(1);
  });
});

describe('guarded fetch: connecting to checked addresses', () => {
  it('tries every checked address of a name, not only the first', async () => {
    const resolveHost = async () => [
      { address: '127.0.0.2', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const url = `http://multi.example:${new URL(server.origin).port}/page/`;
    expect(await fetchPage(url, { resolveHost })).toBe(PAGE);
  });
});

describe('guarded fetch: the loopback test hook', () => {
  it('is needed to reach the loopback fixture', async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: undefined });
    const namingTheSwitch =
      /^127\.0\.0\.1 resolves to a private address: to read a site on this machine, start the API with AUTOCONFIGURE_ALLOW_LOOPBACK=1$/;
    await expectRefusal(autoConfigure(server.url('/page/')), namingTheSwitch);
    await expectRefusal(autoConfigure('http://127.0.0.1/'), namingTheSwitch);
  });

  it('treats localhost as the loopback address it is, without asking a resolver (RFC 6761)', async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    const resolveHost = vi.fn(async () => [{ address: '93.184.216.34', family: 4 }]);
    const url = `http://localhost:${new URL(server.origin).port}/page/`;
    expect(await fetchPage(url, { resolveHost })).toBe(PAGE);
    expect(resolveHost).not.toHaveBeenCalled();
  });

  it('is read from the configuration at call time', async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    expect((await autoConfigure(server.url('/page/'))).suggestions.name).toBe('Fixture Co');
  });

  it('has no effect inside Lambda', async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1', AWS_LAMBDA_FUNCTION_NAME: 'brands-auto-configure' });
    // Inside Lambda the switch does not exist, so the refusal does not name it.
    const publicOnly =
      /^127\.0\.0\.1 resolves to a private address: only sites on public addresses can be read$/;
    await expectRefusal(autoConfigure(server.url('/page/')), publicOnly);
    await expectRefusal(autoConfigure(server.url('/page/'), { allowLoopback: true }), publicOnly);
  });

  it('allows loopback only, and other ports only towards loopback', async () => {
    const toPublic = async () => [{ address: '93.184.216.34', family: 4 }];
    const toPrivate = async () => [{ address: '192.168.1.10', family: 4 }];
    await expectRefusal(fetchPage('http://10.0.0.1:8080/'), '10.0.0.1 resolves to a private address');
    await expectRefusal(
      fetchPage('http://169.254.169.254/'),
      '169.254.169.254 resolves to a private address',
    );
    await expectRefusal(
      fetchPage('http://public.example:8080/', { resolveHost: toPublic }),
      'port 8080 not allowed',
    );
    await expectRefusal(
      fetchPage('http://lan.example/', { resolveHost: toPrivate }),
      'lan.example resolves to a private address',
    );
    await expectRefusal(
      fetchPage(`http://localhost:${new URL(server.origin).port}/page/`, { allowLoopback: false }),
      /^localhost resolves to a private address: /,
    );
  });
});

describe('guarded fetch: admission (auto-configure sends a request only once its team slot is held)', () => {
  it('connects while the admission is pending, sends the request once it is given', async () => {
    hits = {};
    let admit: () => void = () => undefined;
    const admitted = new Promise<void>((resolve) => {
      admit = resolve;
    });
    const before = server.connections();
    const page = fetchPage(`${server.origin}/close-after`, { admitted });
    // The connection is made meanwhile (it costs the admission nothing), the request is not sent.
    while (server.connections() === before) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(hits['/close-after']).toBeUndefined();
    admit();
    expect(await page).toBe(PAGE);
    expect(hits['/close-after']).toBe(1);
  });

  it('refused, sends nothing and fails with the refusal itself', async () => {
    hits = {};
    const refusal = new TeamShareFullError('over the share', 1);
    const page = fetchPage(`${server.origin}/close-after`, { admitted: Promise.reject(refusal) });
    await expect(page).rejects.toBe(refusal);
    expect(hits['/close-after']).toBeUndefined();
  });
});
