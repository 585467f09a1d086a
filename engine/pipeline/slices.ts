// One exchange must not hold the event loop for long: while a 5,000-entry batch runs through its
// rules, a health probe or an FX lookup would wait behind it. Steps whose work grows with the data
// (validate, transform, to-http) time themselves from the start of the event loop's turn they run
// in (turnStarted) and, once the turn is longer than SLICE_MS, let the event loop run before they
// go on. The turn counts what ran before the step in it too: parsing a large body, other steps,
// another exchange's slice. Short steps never allocate a promise for this.

/** Longest stretch (ms) the work of a turn runs before a step lets other work through. */
export const SLICE_MS = 5;

export const clock = (): number => performance.now();

/** When the current turn's work started (clock()); -1 when no work asked since the loop last turned. */
let turnStart = -1;
const turnEnded = (): void => {
  turnStart = -1;
};

/**
 * When the work running now started without the event loop turning in between: the first ask in a
 * turn reads the clock, and a setImmediate ends the turn (it runs once the callbacks of the loop's
 * current phase are done, so work queued in one poll phase is one turn, as a request waiting
 * behind it sees it). The HTTP source asks before it parses a body, the steps as they start.
 */
export function turnStarted(): number {
  if (turnStart < 0) {
    turnStart = clock();
    setImmediate(turnEnded);
  }
  return turnStart;
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

/** A promise of the next slice when the work since `started` (turnStarted()) was long, else nothing. */
export function yieldAfter(started: number): Promise<void> | undefined {
  return clock() - started > SLICE_MS ? nextSlice() : undefined;
}
