import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the AWS control plane the admin CLI calls, API Gateway (`migrate` deletes the API keys of
 * the former usage plans): there is no local version of it. It records every request it gets, so a test can
 * count the control-plane calls a command makes (none, but for that one), and keeps just enough state to
 * answer them as AWS does.
 */
export class FakeControlPlane {
  readonly calls: string[] = [];
  readonly apiKeys = new Map<string, string>();
  private server = createServer((request, response) => this.answer(request, response));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Read to the end before answering; no call it answers needs the body.
    for await (const _chunk of request);
    const target = String(request.headers['x-amz-target'] ?? '');
    const url = new URL(request.url ?? '/', 'http://localhost');
    const call = target ? (target.split('.').pop() ?? target) : `${request.method} ${url.pathname}`;
    this.calls.push(call);
    const send = (status: number, payload: unknown, type = 'application/x-amz-json-1.1') => {
      response.writeHead(status, { 'Content-Type': type });
      response.end(JSON.stringify(payload));
    };
    if (request.method === 'GET' && url.pathname === '/apikeys') {
      const prefix = url.searchParams.get('name') ?? '';
      const item = [...this.apiKeys]
        .filter(([, name]) => name.startsWith(prefix))
        .map(([id, name]) => ({ id, name, enabled: true }));
      return send(200, { item }, 'application/json');
    }
    const deleted = /^\/apikeys\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'DELETE' && deleted?.[1]) {
      if (!this.apiKeys.delete(deleted[1])) {
        response.setHeader('x-amzn-ErrorType', 'NotFoundException');
        return send(404, { message: 'Invalid API Key identifier specified' }, 'application/json');
      }
      response.writeHead(202);
      return void response.end();
    }
    send(400, { __type: 'UnknownOperationException', Message: call }, 'application/json');
  }
}
