// Counts over a sliding time window, in ten buckets (the window moves a tenth at a time): what the
// circuit breaker's failure ratio and the retry budget's share are taken over. Adding is a clock
// read and two increments; no timer.

const BUCKETS = 10;

export class SlidingCounts {
  private readonly width: number;
  private readonly a = new Float64Array(BUCKETS);
  private readonly b = new Float64Array(BUCKETS);
  /** the bucket number (time / width) of the newest bucket */
  private head = 0;

  /** `window` in ms */
  constructor(window: number) {
    this.width = Math.max(1, window / BUCKETS);
  }

  /** Counts one event: `a` always, `b` when `second` (a failure among calls, a retry among calls). */
  add(second: boolean, first = true): void {
    const i = this.roll();
    if (first) this.a[i]++;
    if (second) this.b[i]++;
  }

  /** Events counted as `a` in the window (calls). */
  calls(): number {
    this.roll();
    return sum(this.a);
  }

  /** Events counted as `b` in the window (failures, retries). */
  failures(): number {
    this.roll();
    return sum(this.b);
  }

  reset(): void {
    this.a.fill(0);
    this.b.fill(0);
  }

  /** Drops the buckets that left the window; answers the index of the current one. */
  private roll(): number {
    const now = Math.floor(Date.now() / this.width);
    const gap = now - this.head;
    if (gap > 0) {
      if (gap >= BUCKETS) this.reset();
      else
        for (let k = 1; k <= gap; k++) {
          const j = (this.head + k) % BUCKETS;
          this.a[j] = 0;
          this.b[j] = 0;
        }
      this.head = now;
    }
    return now % BUCKETS;
  }
}

function sum(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < BUCKETS; i++) s += x[i];
  return s;
}
