// One exchange must not hold the event loop for long: while a 5,000-entry batch runs through its
// rules, a health probe or an FX lookup would wait behind it. Steps whose work grows with the data
// (validate, transform, to-http) time their slice from the start of the exchange's current stretch
// of synchronous work (Exchange.sliceStart: set by the HTTP source before it parses the body, kept
// from step to step while they return synchronously) and, once it is longer than SLICE_MS, let the
// event loop run before they go on; so a long parse and steps each shorter than a slice add up. An
// exchange that waited (a slice, a vendor call) starts a new stretch. Short steps never allocate a
// promise for this.

import type { Exchange } from './exchange.ts';

/** Longest stretch (ms) of an exchange's synchronous work before a step lets other work through. */
export const SLICE_MS = 5;

export const clock = (): number => performance.now();

/** When the exchange's current stretch started: now, when nothing before this step timed it. */
export function sliceStart(ex: Exchange): number {
  return ex.sliceStart ?? clock();
}

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

/**
 * The end of a step that timed its work from `started`: the next slice when the stretch was long
 * (the exchange then starts a new one), else nothing, and the next step goes on timing the stretch.
 */
export function endOfStep(ex: Exchange, started: number): Promise<void> | undefined {
  const turn = yieldAfter(started);
  ex.sliceStart = turn ? undefined : started;
  return turn;
}
