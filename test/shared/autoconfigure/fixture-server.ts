import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostResolver } from '../../../shared/outbound/guarded-fetch.ts';

/**
 * A throwaway HTTP server on 127.0.0.1 (random port) serving a fixed route table, for the guarded client's tests
 * (auto-configure's fetches, webhook deliveries).
 */

export type Route = (request: IncomingMessage, response: ServerResponse, origin: string) => void;

export interface FixtureServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  url(pathname: string): string;
  /** Connections accepted so far: an SSRF test asserts none was made. */
  connections(): number;
  close(): Promise<void>;
}

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const OWN_FIXTURES = path.join(repoRoot, 'test', 'fixtures', 'sites');
export const REAL_SITE_FIXTURES = path.join(repoRoot, 'test', 'fixtures', 'real-sites');

export async function startFixtureServer(routes: Record<string, Route>): Promise<FixtureServer> {
  let origin = '';
  const server = createServer((request, response) => {
    const route = routes[new URL(request.url ?? '/', origin).pathname];
    if (route === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    route(request, response, origin);
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (pathname) => `${origin}${pathname}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        // Stalled fixtures (slow, huge) keep sockets open; drop them so close() returns.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A scripted DNS: every name resolves to these addresses (none: the name does not resolve). */
export function answering(...addresses: string[]): HostResolver {
  return async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

/** Serves bytes with the given headers. */
export function respond(body: string | Uint8Array, headers: Record<string, string | number> = {}): Route {
  return (_request, response) => {
    response.writeHead(200, headers).end(body);
  };
}

export function html(body: string | Uint8Array, contentType = 'text/html; charset=utf-8'): Route {
  return respond(body, { 'content-type': contentType });
}

export function file(directory: string, name: string, contentType = 'text/html; charset=utf-8'): Route {
  return respond(readFileSync(path.join(directory, name)), { 'content-type': contentType });
}

export function status(code: number, headers: Record<string, string> = {}): Route {
  return (_request, response) => {
    response.writeHead(code, { 'content-type': 'text/html', ...headers }).end(`<h1>${code}</h1>`);
  };
}

/** A redirect; a location starting with '/' is sent as is (relative), `absolute` makes it a full URL first. */
export function redirect(code: number, location: string, options: { absolute?: boolean } = {}): Route {
  return (_request, response, origin) => {
    response.writeHead(code, { location: options.absolute ? `${origin}${location}` : location }).end();
  };
}

/** Streams `totalBytes` of HTML in 64 KiB chunks, honouring back-pressure and stopping when the client goes away. */
export function streamedHtml(totalBytes: number): Route {
  const chunk = Buffer.alloc(64 * 1024, '<p>filler text</p>\n');
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.write('<!doctype html><html><head><title>Huge</title></head><body>');
    let sent = 0;
    const pump = (): void => {
      while (sent < totalBytes && !response.destroyed) {
        sent += chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', pump);
          return;
        }
      }
      response.end('</body></html>');
    };
    pump();
  };
}

/** Sends headers and a first chunk, then nothing: the client's deadline must end the wait. */
export function stalledHtml(): Route {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.write('<!doctype html><html><head>');
  };
}

/** Never answers at all. */
export function silent(): Route {
  return () => undefined;
}

/** Drops the connection without a response (connection reset). */
export function reset(): Route {
  return (request) => {
    request.socket.destroy();
  };
}
