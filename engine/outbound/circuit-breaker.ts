// A circuit breaker per client profile: opens after `failures` consecutive failures, or when the
// failure ratio over a sliding window passes `ratio` (given `min-calls` calls in it); half-open
// after `half-open-after` with one probe call; closed again when the probe succeeds. Written here
// rather than taken from cockatiel's CircuitBreakerPolicy: that one wraps every call in its own
// async execute() (a promise and an event emitter per call), where a vendor call needs two
// synchronous checks, and it moves to half-open only when a call comes, while a paused AMQP
// consumer must be told when to send its probe (a timer here).

import { SlidingCounts } from './sliding-counts.ts';

export interface BreakerSettings {
  /** consecutive failures that open it */
  failures: number;
  /** failure ratio over `window` that opens it (0 < ratio <= 1); undefined: consecutive only */
  ratio?: number;
  /** ms, the window the ratio is taken over */
  window: number;
  /** calls in the window before the ratio counts */
  minCalls: number;
  /** ms the breaker stays open before a probe */
  halfOpenAfter: number;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

/** What enter() answers: a call may go (a probe decides the state), or it is refused. */
export const ADMIT = 0;
export const PROBE = 1;
export const REFUSED = -1;

export class CircuitBreaker {
  state: BreakerState = 'closed';
  /** Date.now() of the last transition */
  since = Date.now();
  /** why it last opened (masked error text) */
  lastCause?: string;
  private consecutive = 0;
  private probing = false;
  private timer?: NodeJS.Timeout;
  private readonly counts?: SlidingCounts;

  constructor(
    readonly settings: BreakerSettings,
    /** told of every transition, with the cause of an opening */
    private readonly changed: (to: BreakerState, from: BreakerState, cause?: string) => void,
  ) {
    if (settings.ratio !== undefined) this.counts = new SlidingCounts(settings.window);
  }

  /** ADMIT, PROBE (the one call of a half-open breaker) or REFUSED. */
  enter(): number {
    if (this.state === 'closed') return ADMIT;
    if (this.state === 'half-open' && !this.probing) {
      this.probing = true;
      return PROBE;
    }
    return REFUSED;
  }

  /** ms until a probe may be sent (for Retry-After); 0 when half-open. */
  retryAfterMs(): number {
    if (this.state !== 'open') return 0;
    return Math.max(0, this.since + this.settings.halfOpenAfter - Date.now());
  }

  success(probe: boolean): void {
    if (probe) {
      this.probing = false;
      if (this.state === 'half-open') this.move('closed');
      return;
    }
    this.consecutive = 0;
    this.counts?.add(false);
  }

  failure(probe: boolean, cause: string): void {
    if (probe) {
      this.probing = false;
      if (this.state === 'half-open') this.open(cause);
      return;
    }
    if (this.state !== 'closed') return;
    this.consecutive++;
    if (this.consecutive >= this.settings.failures) {
      this.open(cause);
      return;
    }
    const c = this.counts;
    if (c) {
      c.add(true);
      if (c.calls() >= this.settings.minCalls && c.failures() >= this.settings.ratio! * c.calls()) this.open(cause);
    }
  }

  /** A probe that ended without a verdict (aborted by its caller): another call may probe. */
  abandon(probe: boolean): void {
    if (probe) this.probing = false;
  }

  /** Back to closed with nothing counted, without a transition (route tests between cases). */
  reset(): void {
    clearTimeout(this.timer);
    this.state = 'closed';
    this.since = Date.now();
    this.lastCause = undefined;
    this.consecutive = 0;
    this.probing = false;
    this.counts?.reset();
  }

  /** Stops the half-open timer (engine shutdown, a reload that replaced the settings). */
  close(): void {
    clearTimeout(this.timer);
  }

  private open(cause: string): void {
    this.lastCause = cause;
    this.move('open', cause);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.move('half-open'), this.settings.halfOpenAfter);
    this.timer.unref?.();
  }

  private move(to: BreakerState, cause?: string): void {
    const from = this.state;
    if (from === to) {
      this.since = Date.now();
      return;
    }
    this.state = to;
    this.since = Date.now();
    if (to === 'closed') {
      this.consecutive = 0;
      this.counts?.reset();
    }
    this.changed(to, from, cause);
  }
}
