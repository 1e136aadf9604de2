import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * A counting HTTP proxy between the AWS SDK and DynamoDB Local: every request the SDK sends (retries
 * included) is recorded with its operation (from `X-Amz-Target`), its body and when it was in flight. It
 * counts at the wire, so it is independent of the code under test.
 */
export interface WireCall {
  /** `GetItem`, `TransactWriteItems`, ... (`DynamoDB_20120810.GetItem` without its prefix). */
  operation: string;
  /** The request body as sent (low-level DynamoDB JSON). */
  body: string;
  /** The upstream's status; 502 when the upstream could not be reached. */
  status: number;
  /** performance.now() when the request's headers arrived and when its response was sent back. */
  startedAt: number;
  endedAt: number;
}

export interface CountingProxy {
  /** `http://127.0.0.1:<port>`: use as DYNAMODB_ENDPOINT. */
  url: string;
  /** Every call so far, in order of arrival. */
  readonly calls: readonly WireCall[];
  /** The calls that arrived while `action` ran (run one action at a time to attribute calls). */
  record<T>(action: () => Promise<T>): Promise<{ result: T; calls: WireCall[] }>;
  /** While held, requests are accepted and never answered, as by a hung DynamoDB; releasing cuts them. */
  hold(held: boolean): void;
  close(): Promise<void>;
}

export async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true });
  const calls: WireCall[] = [];

  const forward = (request: IncomingMessage, response: ServerResponse, body: Buffer, startedAt: number) => {
    const call: WireCall = {
      operation: String(request.headers['x-amz-target'] ?? '(none)').replace(/^.*\./, ''),
      body: body.toString('utf8'),
      status: 0,
      startedAt,
      endedAt: 0,
    };
    calls.push(call);
    const finish = (status: number) => {
      call.status = status;
      call.endedAt = performance.now();
    };
    const upstreamRequest = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
        agent,
      },
      (upstreamResponse) => {
        response.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
        upstreamResponse.pipe(response);
        upstreamResponse.once('end', () => finish(upstreamResponse.statusCode ?? 502));
      },
    );
    upstreamRequest.once('error', (error) => {
      finish(502);
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ __type: 'BenchProxyError', message: String(error) }));
    });
    upstreamRequest.end(body);
  };

  let held: Set<ServerResponse> | undefined;
  const server = createServer((request, response) => {
    if (held) return void held.add(response);
    const startedAt = performance.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => forward(request, response, Buffer.concat(chunks), startedAt));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    async record(action) {
      const first = calls.length;
      const result = await action();
      return { result, calls: calls.slice(first) };
    },
    hold(hold) {
      if (!hold) for (const response of held ?? []) response.destroy();
      held = hold ? new Set() : undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}

/**
 * The calls grouped as they ran: a call that started while an earlier one of its group was still in flight
 * ran in parallel with it; one that started after every call of its group had ended begins the next group.
 */
export function concurrentGroups(calls: readonly WireCall[]): WireCall[][] {
  const groups: WireCall[][] = [];
  let groupEnd = Number.NEGATIVE_INFINITY;
  for (const call of [...calls].sort((a, b) => a.startedAt - b.startedAt)) {
    const current = groups.at(-1);
    if (current && call.startedAt < groupEnd) {
      current.push(call);
      groupEnd = Math.max(groupEnd, call.endedAt);
    } else {
      groups.push([call]);
      groupEnd = call.endedAt;
    }
  }
  return groups;
}

/**
 * A short label of a call for the report: the operation and what it touched, with ids left out, e.g.
 * `GetItem BRAND#`, `Query byId`, `TransactWriteItems[Put BRAND#, Update IDEMPOTENCY#]`.
 */
export function describeCall(call: WireCall): string {
  let input: Record<string, unknown>;
  try {
    input = JSON.parse(call.body) as Record<string, unknown>;
  } catch {
    return call.operation;
  }
  const failed = call.status >= 400 ? ` (${call.status})` : '';
  if (call.operation === 'TransactWriteItems') {
    const items = (input.TransactItems ?? []) as Array<Record<string, Record<string, unknown>>>;
    const kinds = items.map((item) => {
      const [action = '?', detail = {}] = Object.entries(item)[0] ?? [];
      return `${action} ${keyKind((detail.Key ?? detail.Item) as Record<string, unknown> | undefined)}`;
    });
    return `TransactWriteItems[${summarize(kinds)}]${failed}`;
  }
  if (call.operation === 'BatchGetItem') {
    const requests = Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: unknown[] }>);
    const kinds = requests.flatMap((r) =>
      (r.Keys ?? []).map((key) => keyKind(key as Record<string, unknown>)),
    );
    return `BatchGetItem[${summarize(kinds)}]${failed}`;
  }
  if (call.operation === 'Query') {
    const index = input.IndexName as string | undefined;
    const values = (input.ExpressionAttributeValues ?? {}) as Record<string, { S?: string }>;
    const prefix = values[':prefix']?.S;
    return `Query ${index ?? prefix ?? 'table'}${failed}`;
  }
  const key = (input.Key ?? input.Item) as Record<string, unknown> | undefined;
  return `${call.operation} ${keyKind(key)}${failed}`.trim();
}

/** The kind part of a key: `BRAND#000000000042` → `BRAND#`, `SEQ#brand` → `SEQ#brand`, `DEFAULT_BRAND`. */
function keyKind(key: Record<string, unknown> | undefined): string {
  const attribute = (name: string) => (key?.[name] as { S?: string } | undefined)?.S ?? '';
  const pk = attribute('pk');
  const sk = attribute('sk');
  if (pk.startsWith('SEQ#') || pk.startsWith('TOKEN#')) return pk.startsWith('SEQ#') ? pk : 'TOKEN#';
  return sk.replace(/#.*$/, '#');
}

/** `a, a, a, b` → `3×a, b` (keeps the order of first appearance). */
function summarize(labels: string[]): string {
  const counts = new Map<string, number>();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  return [...counts].map(([label, count]) => (count > 1 ? `${count}×${label}` : label)).join(', ');
}
