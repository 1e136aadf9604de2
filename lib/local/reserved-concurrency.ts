import {
  CONCURRENCY_DEFAULTS,
  type ConcurrencyClass,
  type ConcurrencySettings,
  reservation,
} from '../cdk/concurrency.ts';

/**
 * Lambda's reserved concurrency, for the local stand-ins (the gateway, the Invoke API): a function whose
 * class reserves a share (lib/cdk/concurrency.ts, the template's `ReservedConcurrentExecutions`) never runs
 * more than that many at once; a run that finds the share full does not run at all, as Lambda throttles it.
 * What the caller then gets is the stand-in's to say: the gateway answers the stack's 503, the Invoke API
 * keeps an asynchronous event for later, as Lambda's queue does.
 */
export class ReservedConcurrency {
  private running = 0;

  /** `share` undefined: no reservation, no bound (a plain route, or a stack deployed without reservations). */
  constructor(readonly share: number | undefined) {}

  /** Runs `work` in a free slot, held until it settles; undefined, and nothing run, when the share is full. */
  tryRun<T>(work: () => Promise<T>): Promise<T> | undefined {
    if (this.share !== undefined && this.running >= this.share) return undefined;
    this.running += 1;
    const release = () => {
      this.running -= 1;
    };
    return work().finally(release);
  }

  /** Runs at once now (a test's observation of the share). */
  get inFlight(): number {
    return this.running;
  }
}

/**
 * One bound per function, keyed by the function's name, with its class's share from the settings the stack
 * is synthesized with (cdk.json's `concurrency`; CONCURRENCY_DEFAULTS lists the same).
 */
export class ReservedShares {
  private readonly functions = new Map<string, ReservedConcurrency>();

  constructor(private readonly settings: ConcurrencySettings = CONCURRENCY_DEFAULTS) {}

  of(functionName: string, kind: ConcurrencyClass): ReservedConcurrency {
    let bound = this.functions.get(functionName);
    if (!bound) {
      bound = new ReservedConcurrency(reservation(this.settings, kind));
      this.functions.set(functionName, bound);
    }
    return bound;
  }
}
