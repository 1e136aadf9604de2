import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the two AWS control planes the admin CLI calls, WAF (regex pattern sets) and API Gateway
 * (API keys): there is no local version of either. It records every request it gets, so a test can count
 * the control-plane calls a command makes, and keeps just enough state to answer them as AWS does.
 */
export interface RegexSet {
  name: string;
  id: string;
  description?: string;
  patterns: string[];
  lockToken: number;
}

export class FakeControlPlane {
  readonly calls: string[] = [];
  readonly sets = new Map<string, RegexSet>();
  readonly apiKeys = new Map<string, string>();
  /** Updates to refuse with WAFOptimisticLockException before accepting one (another writer came first). */
  lockConflicts = 0;
  private server = createServer((request, response) => this.answer(request, response));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  addSet(name: string, id: string, patterns: string[]): string {
    this.sets.set(id, { name, id, description: 'plan set', patterns, lockToken: 1 });
    return `arn:aws:wafv2:eu-west-1:123456789012:regional/regexpatternset/${name}/${id}`;
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const target = String(request.headers['x-amz-target'] ?? '');
    const url = new URL(request.url ?? '/', 'http://localhost');
    const call = target ? (target.split('.').pop() ?? target) : `${request.method} ${url.pathname}`;
    this.calls.push(call);
    const send = (status: number, payload: unknown, type = 'application/x-amz-json-1.1') => {
      response.writeHead(status, { 'Content-Type': type });
      response.end(JSON.stringify(payload));
    };
    if (call === 'GetRegexPatternSet' || call === 'UpdateRegexPatternSet') {
      const input = JSON.parse(body) as {
        Id: string;
        LockToken?: string;
        RegularExpressionList?: Array<{ RegexString: string }>;
      };
      const set = this.sets.get(input.Id);
      if (!set) return send(400, { __type: 'WAFNonexistentItemException', Message: 'no such set' });
      if (call === 'GetRegexPatternSet') {
        return send(200, {
          RegexPatternSet: {
            Name: set.name,
            Id: set.id,
            Description: set.description,
            RegularExpressionList: set.patterns.map((RegexString) => ({ RegexString })),
          },
          LockToken: String(set.lockToken),
        });
      }
      if (this.lockConflicts > 0 || input.LockToken !== String(set.lockToken)) {
        this.lockConflicts = Math.max(0, this.lockConflicts - 1);
        set.lockToken++;
        return send(400, { __type: 'WAFOptimisticLockException', Message: 'stale lock token' });
      }
      set.patterns = (input.RegularExpressionList ?? []).map((regex) => regex.RegexString);
      set.lockToken++;
      return send(200, { NextLockToken: String(set.lockToken) });
    }
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
