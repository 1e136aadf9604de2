import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam } from '../../shared/data/teams.ts';
import { issueToken, listTokens, revokeTokenById, TokenLimitError } from '../../shared/data/tokens.ts';
import { BEARER_CHALLENGE, MESSAGES } from '../../shared/http/messages.ts';
import { LIMITS } from '../../shared/limits.ts';
import type { RateLimits } from '../../shared/rate-limits.ts';
import { authorizer } from '../../shared/routes.ts';
import { apiClient, newTeam, startApi } from '../support/api.ts';
import { touchedBy } from '../support/key-observer.ts';

/**
 * The front door: a caller without an account cannot close it for the teams. Against the local
 * gateway, which keeps the web ACL's rules and the authorizer's validation expression as the template does
 * (test/lib/cdk/rate-limits.stack.test.ts reads them there): requests are counted per source address before they
 * cost an authorizer run, a header that cannot hold a token is refused without one, and a team's tokens
 * are bounded, so that its rate is bounded by its plan however many tokens it asks for.
 */
const PER_SOURCE = 200;
const LIMITS_UNDER_TEST: RateLimits = {
  plans: { standard: { limit: 1500, windowSeconds: 60 } },
  defaultPlan: 'standard',
  perSource: { limit: PER_SOURCE, windowSeconds: 60 },
};
/** Loopback addresses: all of 127.0.0.0/8 reaches the gateway on 127.0.0.1, each a source of its own. */
const STRANGER = '127.0.0.2';
const NEWCOMER = '127.0.0.3';
const TYPES = '/api/v1/contact-fields/types';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi(LIMITS_UNDER_TEST);
});
afterAll(() => api?.close());

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A GET from a chosen loopback address (fetch cannot choose one), with the headers given. */
function getFrom(localAddress: string, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, api.url);
    const outgoing = request(target, { localAddress, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: response.headers,
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** A token that looks like one the API makes but was never made: its plan, a team, a fresh secret. */
const inventedToken = () =>
  `tm_standard_${1 + (randomBytes(4).readUInt32BE() % 1_000_000)}_${randomBytes(33).toString('base64url').replace(/[-_]/g, 'A').slice(0, 43)}`;

/** The authorizer's reads of token items so far (its once-a-day write of `last_used_on` aside). */
const tokenReads = () =>
  touchedBy(authorizer.handler).filter((key) => key.pk.startsWith('TOKEN#') && key.command.startsWith('Get'))
    .length;

/** Runs `task` `total` times, `width` at a time. */
async function inParallel<T>(total: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < total) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

const tally = (answers: Answer[]) =>
  answers.reduce<Record<number, number>>((counts, { status }) => {
    counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }, {});

describe('a flood of invented tokens from one address', () => {
  it(`is held to ${PER_SOURCE} requests a minute before the authorizer runs, while a team elsewhere is served`, async () => {
    const team = await newTeam('Bystander');
    const readsBefore = tokenReads();
    let flooding = true;
    const bystander = (async () => {
      const answers: number[] = [];
      // At least 20 requests, and on until the flood is over: each one sent while it runs.
      while (flooding || answers.length < 20) {
        answers.push((await apiClient(api.url, team.token).get(TYPES)).status);
      }
      return answers;
    })();
    const flood = await inParallel(PER_SOURCE + 150, 16, () =>
      getFrom(STRANGER, TYPES, { Authorization: `Bearer ${inventedToken()}` }),
    );
    flooding = false;
    const served = await bystander;

    // Each invented token is new to every plan's count: only the source's count holds the flood.
    expect(tally(flood)).toEqual({ 401: PER_SOURCE, 429: 150 });
    for (const refused of flood.filter((answer) => answer.status === 429)) {
      expect(JSON.parse(refused.body)).toEqual({ message: MESSAGES.tooManyRequests });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // A refused request cost no authorizer run: one token read for each of the 200 let through, and the
    // bystander's own (its first request, or each: the local gateway has no cache).
    const reads = tokenReads() - readsBefore;
    expect(reads - served.length).toBe(PER_SOURCE);
    expect(served.every((status) => status === 200)).toBe(true);

    // Another address is counted on its own: a newcomer's first request is let through to the authorizer.
    expect((await getFrom(NEWCOMER, TYPES, { Authorization: `Bearer ${inventedToken()}` })).status).toBe(401);
    expect(
      (await getFrom(STRANGER, TYPES, { Authorization: `Bearer ${team.token}` })).status,
      'the address stays refused, whatever token it sends, until its window has room',
    ).toBe(429);
  });
});

describe('a header that cannot hold a token', () => {
  it('is a 401 that runs no authorizer and reads nothing, and a real token counts in one spelling only', async () => {
    const { token } = await newTeam('Spellings');
    const secretOf = (t: string) => t.slice(t.lastIndexOf('_') + 1);
    const cannotBeTokens = [
      'Bearer',
      'Bearer ',
      `Basic ${Buffer.from('user:password').toString('base64')}`,
      `Token ${token}`,
      'Bearer tm_short',
      `Bearer  ${token}`,
      `Bearer ${token}x`.padEnd(200, 'x'),
      `Bearer tm_${'A'.repeat(2000)}`,
      `Bearer sk_live_${secretOf(token)}`,
      'Bearer tm_standard_51_<script>alert(1)</script>AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      // The token itself in other spellings: each would be an authorizer cache entry of its own in AWS.
      `bearer ${token}`,
      `BEARER ${token}`,
      `bEaReR ${token}`,
    ];
    const readsBefore = tokenReads();
    for (const authorization of cannotBeTokens) {
      const answer = await getFrom(NEWCOMER, TYPES, { Authorization: authorization });
      expect(answer.status, authorization).toBe(401);
      expect(JSON.parse(answer.body), authorization).toEqual({ message: MESSAGES.unauthenticated });
      expect(answer.headers['www-authenticate'], authorization).toBe(BEARER_CHALLENGE);
    }
    expect(tokenReads() - readsBefore).toBe(0);

    // The one spelling API Gateway passes on: the authorizer reads the token and lets it in.
    expect((await getFrom(NEWCOMER, TYPES, { Authorization: `Bearer ${token}` })).status).toBe(200);
    expect(tokenReads() - readsBefore).toBe(1);
  });
});

describe("a team's tokens", () => {
  it(`are at most ${LIMITS.liveTokensPerTeam} live at once, also when asked for in parallel`, async () => {
    const team = await createTeam('Many tokens');
    const asked = 3 * LIMITS.liveTokensPerTeam;
    const outcomes = await Promise.allSettled(
      Array.from({ length: asked }, (_, i) => issueToken(team.id, { name: `token ${i}` })),
    );
    const made = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    // createTeam makes no token: exactly the bound is made, the rest refused.
    expect(made).toHaveLength(LIMITS.liveTokensPerTeam);
    expect(refused).toHaveLength(asked - LIMITS.liveTokensPerTeam);
    for (const reason of refused) {
      expect(reason).toBeInstanceOf(TokenLimitError);
      expect((reason as Error).message).toBe(
        `team ${team.id} has ${LIMITS.liveTokensPerTeam} live tokens, the most a team may hold ` +
          `(${LIMITS.liveTokensPerTeam}): revoke one it no longer uses first (token list shows them)`,
      );
    }
    expect(await listTokens(team.id)).toHaveLength(LIMITS.liveTokensPerTeam);

    // A revoked token frees its place, and a token that has expired holds none.
    const [first] = await listTokens(team.id);
    expect(await revokeTokenById(team.id, first?.id as number)).toBe(true);
    await issueToken(team.id, { name: 'expired', expiresAt: new Date(Date.now() - 60_000) });
    await expect(issueToken(team.id, { name: 'in its place' })).resolves.toMatchObject({
      name: 'in its place',
    });
    await expect(issueToken(team.id)).rejects.toBeInstanceOf(TokenLimitError);
  });
});
