import { lookup } from 'node:dns/promises';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { DomainError } from '../domain/errors.ts';
import { LIMITS } from '../limits.ts';
import { FetchRefusal } from './refusal.ts';
import {
  assertPermittedAddresses,
  checkTargetUrl,
  hostOf,
  localhostAddresses,
  type TargetKind,
  type TargetPolicy,
  targetPolicy,
} from './target-policy.ts';

/**
 * The one outbound HTTP client: auto-configure GETs everything it fetches through it (page, each redirect hop, web
 * manifest), webhooks POST their deliveries. A caller-supplied URL must never reach an internal address: the URL
 * is checked before each request, and every address a name resolves to is checked again for each connection,
 * right before the socket opens, which may then connect only to those checked addresses, so a DNS answer that
 * changes between check and use (rebinding) cannot slip through. Node's own http/https do the rest (one
 * connection per request, no pool). Every failure is a 422 naming the cause.
 */

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all of its addresses; injectable so tests can script DNS answers. */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface GuardedFetchOptions {
  /** Overrides `AUTOCONFIGURE_ALLOW_LOOPBACK=1`; ignored inside Lambda. Allows loopback targets on any port. */
  allowLoopback?: boolean;
  /** Refuses http URLs (TargetPolicy.requireHttps). */
  requireHttps?: boolean;
  /** What the targets are, for the refusals' wording (TargetPolicy.target): sites unless said. */
  target?: TargetKind;
  /** Deadline for everything `get` fetches and `check` resolves through one client, counted from its creation. */
  timeoutMs?: number;
  /** Largest body read, counted after content decoding (gzip/br). */
  maxBytes?: number;
  resolveHost?: HostResolver;
  /**
   * A request is sent only once this resolves (an admission decided beside the fetch: auto-configure's team
   * share): its DNS and connection go ahead meanwhile, so waiting costs nothing when admission comes first;
   * rejected, nothing is sent, the connection is closed, and the request fails with its reason.
   */
  admitted?: Promise<unknown>;
}

/** What a fetch must return: the page must be HTML; a web manifest is JSON. */
export type ExpectedContent = 'html' | 'json';

export interface FetchedDocument {
  /** The URL after redirects: relative URLs in the document resolve against it. */
  url: string;
  contentType: string | null;
  body: Uint8Array;
}

export interface PostRequest {
  body: string;
  headers: Readonly<Record<string, string>>;
  /** Deadline for this one POST (DNS, connecting, the answer and the part of its body read). */
  timeoutMs: number;
}

/** What a POST was answered: any status, redirects included (they are not followed). */
export interface PostAnswer {
  status: number;
  header(name: string): string | null;
  /** The body's first ANSWER_BYTES at most, as sent (no content decoding). */
  body: Uint8Array;
}

export const DEFAULT_TIMEOUT_MS = 8_000;
export const DEFAULT_MAX_BYTES = LIMITS.autoConfigurePageBytes;
/** How much of a POST's answer is read: enough to show a receiver's error message, never a huge body. */
export const ANSWER_BYTES = 1024;
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'Mozilla/5.0 (compatible; TeamMessagingBrandBot/1.0)';
const ACCEPT: Record<ExpectedContent, string> = {
  html: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
  json: 'application/manifest+json,application/json;q=0.9,*/*;q=0.1',
};

const defaultResolver: HostResolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** A response as the client reads it: the status, a header, and the body decoded (gzip, deflate, br). */
interface Reply {
  status: number;
  header(name: string): string | null;
  body: Readable;
}

/** One request as #exchange sends it. */
interface Outgoing {
  method: 'GET' | 'POST';
  headers: Readonly<Record<string, string>>;
  body?: string;
  signal: AbortSignal;
}

export class GuardedClient {
  readonly #policy: TargetPolicy;
  readonly #signal: AbortSignal;
  readonly #maxBytes: number;
  readonly #resolveHost: HostResolver;
  readonly #admitted: Promise<unknown> | undefined;
  readonly #requests = new Set<ClientRequest>();

  constructor(options: GuardedFetchOptions = {}) {
    this.#policy = targetPolicy(options.allowLoopback, options.requireHttps, options.target);
    this.#signal = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#resolveHost = options.resolveHost ?? defaultResolver;
    this.#admitted = options.admitted;
  }

  /** GETs a URL, following up to 5 redirects, each one re-checked. Throws a FetchRefusal (422) on any failure. */
  async get(url: string, expected: ExpectedContent): Promise<FetchedDocument> {
    let target = checkTargetUrl(url, this.#policy);
    for (let redirects = 0; ; redirects++) {
      const response = await this.#get(target, expected);
      const location = REDIRECT_STATUSES.has(response.status) ? response.header('location') : null;
      if (location === null) return this.#read(target, response, expected);
      discard(response);
      if (redirects === MAX_REDIRECTS) throw new FetchRefusal('too_many_redirects', 'too many redirects');
      target = checkTargetUrl(location, this.#policy, target);
    }
  }

  /**
   * POSTs a body and returns the answer, whatever its status: a redirect is not followed, so only the URL checked
   * here is ever reached. Reads at most the first ANSWER_BYTES of the answer's body, then closes the connection.
   * Throws a FetchRefusal (422) when no answer came (a refused URL or address, unreachable, timed out). Once the
   * status came in time, a body that stalls is cut at the deadline: the answer stands.
   */
  async post(url: string, request: PostRequest): Promise<PostAnswer> {
    const target = checkTargetUrl(url, this.#policy);
    const response = await this.#exchange(target, {
      method: 'POST',
      // An explicit length: the body is sent whole, never chunked (some receivers refuse chunked requests).
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      body: request.body,
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    return {
      status: response.statusCode ?? 0,
      header: (name) => headerOf(response, name),
      body: await readPrefix(response, ANSWER_BYTES),
    };
  }

  /**
   * Checks a URL as a request to it is checked (the URL, then every address its host resolves to now), without
   * connecting: for URLs kept to be requested later, each request being checked again then.
   */
  async check(url: string): Promise<URL> {
    const target = checkTargetUrl(url, this.#policy);
    try {
      await this.#addresses(target, this.#signal);
    } catch (error) {
      throw describeFailure(error, this.#signal, target);
    }
    return target;
  }

  /** Closes every connection this client opened. */
  async close(): Promise<void> {
    for (const request of this.#requests) request.destroy();
    this.#requests.clear();
  }

  async #get(url: URL, expected: ExpectedContent): Promise<Reply> {
    const headers = {
      'user-agent': USER_AGENT,
      accept: ACCEPT[expected],
      'accept-language': 'en;q=0.9,*;q=0.5',
      'accept-encoding': 'gzip, deflate, br',
    };
    return reply(await this.#exchange(url, { method: 'GET', headers, signal: this.#signal }));
  }

  /**
   * Sends one request to a checked URL, on a connection of its own that may only reach the addresses its host
   * resolves to right now, each checked; resolves with the response once its head came.
   */
  async #exchange(url: URL, outgoing: Outgoing): Promise<IncomingMessage> {
    try {
      const addresses = await this.#addresses(url, outgoing.signal);
      return await new Promise<IncomingMessage>((resolve, reject) => {
        const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
          {
            hostname: hostOf(url),
            port: url.port || (url.protocol === 'https:' ? '443' : '80'),
            path: `${url.pathname}${url.search}`,
            method: outgoing.method,
            agent: false,
            lookup: answeringWith(addresses),
            signal: outgoing.signal,
            headers: { host: url.host, ...outgoing.headers },
          },
          resolve,
        );
        this.#requests.add(request);
        request.once('close', () => this.#requests.delete(request));
        request.once('error', reject);
        // The head and body go out with end(): until admitted, only the connection is made.
        if (this.#admitted === undefined) request.end(outgoing.body);
        else
          this.#admitted.then(
            () => request.end(outgoing.body),
            (reason: unknown) => {
              request.destroy();
              reject(reason);
            },
          );
      });
    } catch (error) {
      throw describeFailure(error, outgoing.signal, url);
    }
  }

  /** The URL host's addresses, each checked; a resolver that hangs gives up with the signal. */
  #addresses(url: URL, signal: AbortSignal): Promise<readonly ResolvedAddress[]> {
    return untilAborted(checkedAddresses(hostOf(url), url.port, this.#policy, this.#resolveHost), signal);
  }

  async #read(url: URL, response: Reply, expected: ExpectedContent): Promise<FetchedDocument> {
    const contentType = response.header('content-type');
    const refusal = refusalOf(response, contentType, expected, this.#maxBytes);
    if (refusal !== null) {
      discard(response);
      throw refusal;
    }
    const body = await readAtMost(response, this.#maxBytes).catch((error: unknown) => {
      throw describeFailure(error, this.#signal, url);
    });
    // No Content-Type at all: sniff, as browsers do, rather than refuse pages from sloppy servers.
    if (contentType === null && expected === 'html' && !looksLikeHtml(body)) {
      throw new FetchRefusal('not_html', 'not an HTML page');
    }
    return { url: url.href, contentType, body };
  }
}

/** The promise's outcome, or the signal's reason once it aborts (a DNS lookup cannot be cancelled). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** The response with its body decoded as its Content-Encoding says (identity when unknown). */
function reply(response: IncomingMessage): Reply {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  const body = decoder ? response.pipe(decoder) : response;
  if (decoder) response.once('error', (error) => decoder.destroy(error));
  return { status: response.statusCode ?? 0, header: (name) => headerOf(response, name), body };
}

function headerOf(response: IncomingMessage, name: string): string | null {
  const value = response.headers[name.toLowerCase()];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

/** Why a response is refused before its body is read, or null when it may be read. */
function refusalOf(
  response: Reply,
  contentType: string | null,
  expected: ExpectedContent,
  maxBytes: number,
): FetchRefusal | null {
  if (response.status < 200 || response.status > 299) {
    return new FetchRefusal('http_error', `site responded with HTTP ${response.status}`);
  }
  if (contentType !== null && !isAcceptedType(mediaTypeOf(contentType), expected)) {
    return expected === 'html'
      ? new FetchRefusal('not_html', 'not an HTML page')
      : new FetchRefusal('not_json', 'not a JSON document');
  }
  if (Number(response.header('content-length') ?? 0) > maxBytes) {
    return new FetchRefusal('too_large', 'page is too large');
  }
  return null;
}

function mediaTypeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

function isAcceptedType(mediaType: string, expected: ExpectedContent): boolean {
  if (expected === 'html') return mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
  // Manifests are often served as octet-stream or text/plain; JSON.parse decides.
  return (
    /[/+]json$/.test(mediaType) || mediaType === 'text/plain' || mediaType === 'application/octet-stream'
  );
}

function looksLikeHtml(body: Uint8Array): boolean {
  const start = new TextDecoder().decode(body.subarray(0, 512));
  return /^\s*<(?:!doctype\s+html|html|head|body|title|meta|!--)/i.test(start);
}

/** Reads the decoded body, giving up (and cancelling the stream) as soon as it exceeds maxBytes. */
async function readAtMost(response: Reply, maxBytes: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      response.body.destroy();
      throw new FetchRefusal('too_large', 'page is too large');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The body's first `limit` bytes (fewer when it ends, fails or is cut by the request's deadline first); then the
 * response, and with it its connection, is destroyed, so a huge or endless answer is never read on.
 */
function readPrefix(response: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      response.destroy();
      resolve(Buffer.concat(chunks).subarray(0, limit));
    };
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size >= limit) done();
    });
    for (const end of ['end', 'error', 'close']) response.once(end, done);
  });
}

/** Drops a body we will not read: its connection is closed (each request has its own). */
function discard(response: Reply): void {
  response.body.destroy();
}

/** Maps what a request threw to the 422 a user sees. Our own refusals (address checks, size) pass through. */
function describeFailure(error: unknown, signal: AbortSignal, url: URL): DomainError {
  const cause = error instanceof Error ? error.cause : undefined;
  if (error instanceof DomainError) return error;
  if (cause instanceof DomainError) return cause;
  if (signal.aborted || isTimeoutCode(error) || isTimeoutCode(cause))
    return new FetchRefusal('timeout', 'timed out');
  return new FetchRefusal('unreachable', `could not connect to ${hostOf(url)}`);
}

function isTimeoutCode(cause: unknown): boolean {
  return (cause as { code?: unknown } | undefined)?.code === 'ETIMEDOUT';
}

async function checkedAddresses(
  hostname: string,
  port: string,
  policy: TargetPolicy,
  resolveHost: HostResolver,
): Promise<readonly ResolvedAddress[]> {
  const fixed = isIP(hostname) ? [hostname] : localhostAddresses(hostname);
  const addresses = fixed
    ? fixed.map((address) => ({ address, family: isIP(address) }))
    : await resolveHost(hostname).catch(() => []);
  if (addresses.length === 0) throw new FetchRefusal('unresolvable', `could not resolve host ${hostname}`);
  assertPermittedAddresses(
    hostname,
    port,
    addresses.map((resolved) => resolved.address),
    policy,
  );
  return addresses;
}

/**
 * A dns.lookup stand-in for one connection that can only answer with the addresses just checked (Node still
 * tries them all, happy eyeballs); the TLS server name still comes from the URL's host.
 */
function answeringWith(addresses: readonly ResolvedAddress[]): LookupFunction {
  const [first] = addresses;
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [...addresses]);
    else callback(null, first?.address ?? '', first?.family);
  };
}
