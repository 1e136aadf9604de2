import { describe, expect, it } from 'vitest';
import { routes } from '../../../shared/routes.ts';
import {
  describeFigure,
  exceeded,
  firstFailure,
  generatedRoutes,
  hardLimits,
  measureRoom,
  predictCrossings,
  type Room,
  withExtraRoutes,
} from '../../support/generated-routes.ts';

/**
 * Room to grow: the app synthesized with generated routes of every kind (test/support/
 * generated-routes.ts) at the largest settings, production and dev, checked against every AWS limit on what
 * the stack makes, each with its number and its source. A synth takes seconds to tens of seconds on two
 * cores: each count is synthesized once per variant and shared by the tests below.
 */
const HUNDRED = 100;
/** Hang-only timeouts: a synth at the largest settings takes tens of seconds on two busy cores. */
const SYNTHS_TIMEOUT = 900_000;

const rooms = new Map<string, Room>();
function room(extra: number, dev: boolean): Room {
  const key = `${extra} ${dev}`;
  let measured = rooms.get(key);
  if (!measured) {
    measured = measureRoom(extra, dev);
    rooms.set(key, measured);
  }
  return measured;
}

describe('Room to grow: generated routes at the largest settings', () => {
  it('generates every kind of route the table declares', () => {
    const rows = generatedRoutes(8);
    expect(new Set(rows.map((r) => r.method))).toEqual(new Set(['GET', 'POST', 'PUT', 'DELETE']));
    expect(rows.some((r) => r.table && !r.table.writes)).toBe(true);
    expect(rows.some((r) => r.table?.writes && r.handler.endsWith('/create.ts'))).toBe(true);
    expect(rows.some((r) => r.files?.length)).toBe(true);
    expect(rows.some((r) => r.deliversWebhooks)).toBe(true);
    expect(rows.some((r) => r.signingSecrets)).toBe(true);
    // In the table for the synth only, taken out again also when it throws.
    const before = routes.length;
    expect(withExtraRoutes(3, () => routes.length)).toBe(before + 3);
    expect(() =>
      withExtraRoutes(3, () => {
        throw new Error('synth failed');
      }),
    ).toThrow('synth failed');
    expect(routes.length).toBe(before);
    // Distinct routes: each one a new method.
    const generated = generatedRoutes(HUNDRED).map((r) => `${r.method} ${r.path}`);
    expect(new Set(generated).size).toBe(HUNDRED);
  });

  it(
    `fits ${HUNDRED} more routes under every AWS limit, production and dev`,
    () => {
      for (const dev of [false, true]) {
        const base = room(0, dev);
        const grown = room(HUNDRED, dev);
        expect(grown.routes).toBe(base.routes + HUNDRED);
        expect(exceeded(grown).map(describeFigure), dev ? 'dev' : 'production').toEqual([]);
      }
    },
    SYNTHS_TIMEOUT,
  );

  it(
    'names the limit at the first extra route that would not deploy',
    () => {
      const measured = [0, HUNDRED].flatMap((extra) => [false, true].map((dev) => room(extra, dev)));
      const first = firstFailure(measured, room);
      // One route fewer fits every limit; this one exceeds at least one, which the failure names.
      expect(exceeded(first.fits)).toEqual([]);
      expect(first.exceeded.length).toBeGreaterThan(0);
      expect(first.fails.extra).toBe(first.fits.extra + 1);
      console.info(
        `first failure at ${first.extra} extra routes (${first.dev ? 'dev' : 'production'}, ` +
          `${first.synths} more synths): ${first.exceeded.map(describeFigure).join('; ')}`,
      );
      // The same among the limits AWS does not raise (the raisable ones say when to ask: printed below).
      const hard = firstFailure(measured, room, hardLimits);
      expect(exceeded(hard.fits, hardLimits)).toEqual([]);
      expect(hard.exceeded.every((figure) => !figure.raisable)).toBe(true);
      expect(hard.extra).toBeGreaterThanOrEqual(first.extra);
      console.info(
        `first failure of a hard limit at ${hard.extra} extra routes: ` +
          hard.exceeded.map(describeFigure).join('; '),
      );
      for (const dev of [false, true])
        console.info(
          `${dev ? 'dev' : 'production'} crossings predicted from 0 and ${HUNDRED} extra routes:\n` +
            predictCrossings(room(0, dev), room(HUNDRED, dev))
              .filter((c) => Number.isFinite(c.extra))
              .map((c) => `  +${c.extra}: ${describeFigure(c.figure)}`)
              .join('\n'),
        );
      expect(first.extra).toBeGreaterThan(HUNDRED);
      expect(hard.extra).toBeGreaterThan(HUNDRED);
    },
    SYNTHS_TIMEOUT,
  );

  it(
    "counts every dashboard's widgets: within CloudWatch's 500 today and with 100 more routes",
    () => {
      for (const dev of [false, true]) {
        const variant = dev ? 'dev' : 'production';
        for (const extra of [0, HUNDRED]) {
          const { dashboards } = room(extra, dev);
          expect(dashboards.length, variant).toBeGreaterThan(0);
          for (const dashboard of dashboards) {
            console.info(
              `${variant} +${extra}: dashboard ${dashboard.name}: ${dashboard.widgets} widgets, ` +
                `${dashboard.metrics} metrics (at most ${dashboard.mostInWidget} in a widget), ` +
                `${dashboard.bodyBytes} bytes of body`,
            );
            // A widget is a graph, a number, a text or an alarm's status: each counts.
            expect(dashboard.widgets, `${variant} +${extra}: ${dashboard.name}`).toBeGreaterThan(0);
            expect(dashboard.widgets, `${variant} +${extra}: ${dashboard.name}`).toBeLessThanOrEqual(500);
          }
        }
      }
    },
    SYNTHS_TIMEOUT,
  );
});
