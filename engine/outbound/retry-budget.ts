// A retry budget per client (after Finagle's RetryBudget): over a sliding window, retries may be at
// most `ratio` of the calls plus `min-retries` per second of the window, so that a vendor outage
// never multiplies the traffic sent to it; each call's own retry settings (the values' retry flag,
// count, delay and statuses) still decide its retries within the budget.

import { SlidingCounts } from './sliding-counts.ts';

export interface BudgetSettings {
  /** retries as a share of calls over the window (0..1) */
  ratio: number;
  /** ms */
  window: number;
  /** retries per second always allowed (a quiet client still retries) */
  minPerSecond: number;
}

export const DEFAULT_BUDGET: BudgetSettings = { ratio: 0.2, window: 10_000, minPerSecond: 10 };

export class RetryBudget {
  private readonly counts: SlidingCounts;
  private readonly floor: number;
  /** retries refused since start (for the console) */
  refused = 0;

  constructor(readonly settings: BudgetSettings) {
    this.counts = new SlidingCounts(settings.window);
    this.floor = (settings.minPerSecond * settings.window) / 1000;
  }

  /** A first attempt: it adds `ratio` to what may be retried. */
  call(): void {
    this.counts.add(false);
  }

  /** Takes one retry from the budget; false when it has none left (the retry is not made). */
  retry(): boolean {
    const c = this.counts;
    if (c.failures() + 1 > this.floor + this.settings.ratio * c.calls()) {
      this.refused++;
      return false;
    }
    c.add(true, false);
    return true;
  }

  reset(): void {
    this.counts.reset();
    this.refused = 0;
  }

  /** retries and calls in the window */
  view(): { calls: number; retries: number; refused: number } {
    return { calls: this.counts.calls(), retries: this.counts.failures(), refused: this.refused };
  }
}
