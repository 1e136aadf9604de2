import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../shared/limits.ts';
import { newTeam, startApi } from '../../support/api.ts';

/**
 * The local gateway at the HTTP level, over raw sockets: whatever arrives, the answer is JSON with a
 * `message`, as API Gateway's are, and a connection is never left to read the rest of a refused body as
 * the next request.
 */
let api: Awaited<ReturnType<typeof startApi>>;
let port: number;
let token: string;
beforeAll(async () => {
  api = await startApi();
  port = Number(new URL(api.url).port);
  token = (await newTeam()).token;
});
afterAll(() => api.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes the bytes, reads until the server closes the connection or one whole response has arrived. */
function exchange(chunks: Array<string | Buffer>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const parse = (): RawResponse | undefined => {
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      const length = Number(headers['content-length'] ?? -1);
      const body = received.subarray(end + 4).toString('utf8');
      if (length >= 0 && Buffer.byteLength(body) < length) return undefined;
      return { status: Number(statusLine.split(' ')[1]), headers, body };
    };
    socket.on('data', (data) => {
      received = Buffer.concat([received, data]);
      const response = parse();
      if (response) {
        socket.destroy();
        resolve(response);
      }
    });
    socket.on('close', () => {
      const response = parse();
      if (response) resolve(response);
      else reject(new Error(`connection closed without a whole response: ${received.toString('latin1')}`));
    });
    // A reset after the answer arrived is fine; the answer is what is checked.
    socket.on('error', () => {});
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        if (!socket.write(chunk)) await new Promise((drained) => socket.once('drain', drained));
      }
    });
  });
}

function expectJsonError(response: RawResponse, status: number): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(response.body);
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
}

const host = 'Host: 127.0.0.1\r\n';

describe('malformed HTTP gets a JSON error and a closed connection', () => {
  it.each([
    ['a garbage request line', 'GARBAGE\r\n\r\n'],
    ['a header without a colon', `GET /api/v1/brands HTTP/1.1\r\n${host}NoColonHere\r\n\r\n`],
    [
      'an invalid chunk size',
      `POST /api/v1/brands HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ],
    [
      'two different Content-Lengths',
      `POST /api/v1/brands HTTP/1.1\r\n${host}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
    ],
  ])('%s: 400', async (_what, request) => {
    const response = await exchange([request]);
    expectJsonError(response, 400);
    expect(response.headers.connection).toBe('close');
  });

  it(`a header over ${LIMITS.headerBytes} bytes: 431`, async () => {
    const response = await exchange([
      `GET /api/v1/brands HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]);
    expectJsonError(response, 431);
    expect(response.headers.connection).toBe('close');
  });
});

describe('bodies over the payload limit', () => {
  it('an 11 MB body is 413 JSON with Connection: close, so no next request is sent on the cut stream', async () => {
    const size = 11 * 1024 * 1024;
    const head =
      `POST /api/v1/brands HTTP/1.1\r\n${host}Authorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;
    const megabyte = Buffer.alloc(1024 * 1024, 0x20);
    const response = await exchange([head, ...Array.from({ length: 11 }, () => megabyte)]);
    expectJsonError(response, 413);
    expect(response.headers.connection).toBe('close');
  });
});

describe('the path', () => {
  it.each(['/api/v1/brands/%zz', '/api/v1/brands/%', '/api/v1/contact-fields/%ED%A0%80'])(
    '%s: a JSON 400, not a gateway failure',
    async (path) => {
      const response = await exchange([
        `GET ${path} HTTP/1.1\r\n${host}Authorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
      ]);
      expectJsonError(response, 400);
    },
  );
});
