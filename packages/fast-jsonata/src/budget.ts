// The fast evaluator's time limit. JSONata checks its clock on every node it evaluates; reading
// the clock that often would cost the fast path more than the evaluation itself. Instead, every
// loop whose length depends on data (steps, filters, ranges, $map, joins, comparisons of
// structures, ...) charges its items to a counter, and only every CHECK_EVERY items is the clock
// read. An evaluation that never does FIRST_CHECK items of such work never reads the clock, so
// ordinary expressions pay one decrement per item at most.
//
// The budget of the running evaluation is module state rather than a parameter: evaluations are
// synchronous, so at most one runs at a time (run() saves and restores it for nested ones), and
// the value helpers deep inside it can charge without every signature carrying it.

import { FastJsonataError } from './errors.ts';

/** What one evaluation has left before its next clock check, and when it started. */
export interface Budget {
  /** items left before the clock is read again */
  work: number;
  /** the clock at the first check (ms), undefined until then */
  started: number | undefined;
  /** engine.expressions.timeout, ms */
  readonly timeout: number;
  /** engine.expressions.maxRange: the most items a range (`a..b`) may have */
  readonly maxRange: number;
}

/** The clock starts once an evaluation has done this much work: time before that is negligible. */
const FIRST_CHECK = 1024;
const CHECK_EVERY = 65_536;
/** JSONata's own bound on a range (D2014); engine.expressions.maxRange is at most this. */
export const JSONATA_MAX_RANGE = 1e7;

/**
 * Outside an evaluation (helpers called directly): never times out. `work` stays a small integer
 * everywhere (never Infinity): V8 then keeps the field untagged and resetting it costs nothing.
 */
const UNLIMITED: Budget = { work: CHECK_EVERY, started: undefined, timeout: Infinity, maxRange: JSONATA_MAX_RANGE };

let active: Budget = UNLIMITED;

export function newBudget(timeout: number, maxRange = JSONATA_MAX_RANGE): Budget {
  return { work: FIRST_CHECK, started: undefined, timeout, maxRange };
}

/**
 * Starts an evaluation on `budget` (reset, so a compiled expression reuses its own and the fast
 * path allocates nothing); returns the previous budget for `restore`.
 */
export function enter(budget: Budget): Budget {
  const previous = active;
  // the same expression evaluated inside itself (through a registered function) gets its own
  const b = budget === previous ? newBudget(budget.timeout, budget.maxRange) : budget;
  b.work = FIRST_CHECK;
  b.started = undefined;
  active = b;
  return previous;
}

export function restore(previous: Budget): void {
  active = previous;
}

/** The most items a range of the running evaluation may have. */
export function maxRange(): number {
  return active.maxRange;
}

/** Charges `items` of work; throws JSONata's timeout error (D1012) once the evaluation is too long. */
export function charge(items = 1): void {
  if ((active.work -= items) <= 0) checkClock(active);
}

function checkClock(budget: Budget): void {
  budget.work = CHECK_EVERY;
  if (budget.timeout === Infinity) return;
  const now = Date.now();
  if (budget.started === undefined) budget.started = now;
  else if (now - budget.started > budget.timeout) throw new FastJsonataError('D1012', { value: budget.timeout });
}
