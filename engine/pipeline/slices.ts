// One exchange must not hold the event loop for long: while a 5,000-entry batch runs through its
// rules, a health probe or an FX lookup would wait behind it. Steps whose work grows with the data
// (validate, transform) time themselves and, once they have run longer than SLICE_MS, let the
// event loop run before they go on. Short steps never allocate a promise for this.

/** Longest stretch (ms) a step runs before it lets other work through. */
export const SLICE_MS = 5;

export const clock = (): number => performance.now();

/**
 * After the event loop had its turn, I/O included. One setImmediate is not enough: called from
 * the poll phase (a request's callback) it runs in the same loop iteration's check phase, before
 * libuv polls again, so a request that arrived meanwhile would still wait for the next slice. The
 * second one runs only after the next poll.
 */
export function nextSlice(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** A promise of the next slice when the work since `started` was long, else nothing. */
export function yieldAfter(started: number): Promise<void> | undefined {
  return clock() - started > SLICE_MS ? nextSlice() : undefined;
}
