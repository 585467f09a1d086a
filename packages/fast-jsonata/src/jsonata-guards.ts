// engine.expressions.timeout on JSONata's own evaluator, whatever the callback. JSONata checks its
// `timeout` (and `stack`) only when it evaluates a node of the expression; a built-in passed as a
// callback runs no node, so `$map([1..9999999], $string)` ran 13 s past a 1 s limit with the event
// loop blocked. Every JSONata instance the engine evaluates with gets, from guardJsonata:
// - the higher-order built-ins ($map, $filter, $single, $reduce, $sift, $each) replaced by JSONata's
//   own, handed a callback that checks the limits before each call;
// - $sort and $distinct replaced by versions that check them as they go (JSONata's copy the array
//   at each step of a merge and compare every pair: quadratic, 10 s for 20,000 numbers);
// - its ranges bounded by engine.expressions.maxRange (jsonata-ranges.ts).
// The replacements take the same signatures and give the same results and errors.

import jsonata from 'jsonata';
import { boundRanges, RANGE, rangeOf } from './jsonata-ranges.ts';
import { isArrayOfNumbers, isDeepEqual, isSequence } from './values.ts';

/** What JSONata passes a built-in as `this`: the evaluation's frame (its base holds the limits). */
interface Focus {
  environment?: { base?: { guardrails?: () => void } };
  createSequence?: () => unknown[];
}

type Callback = ((...args: unknown[]) => unknown) & { arity?: number };

/** Throws JSONata's D1012 (time) or D1011 (depth) when the evaluation is over a limit. */
function limitsOf(focus: Focus): () => void {
  return focus?.environment?.base?.guardrails ?? (() => {});
}

/** The callback, checking the limits before each call; the arity JSONata reads is kept. */
function checked(focus: Focus, func: unknown): unknown {
  if (typeof func !== 'function') return func;
  const check = limitsOf(focus);
  const f = func as Callback;
  const guarded: Callback = function (this: unknown, ...args: unknown[]) {
    check();
    return f.apply(this, args);
  };
  guarded.arity = typeof f.arity === 'number' ? f.arity : f.length;
  return guarded;
}

const HIGHER_ORDER = ['map', 'filter', 'single', 'reduce', 'sift', 'each'] as const;
type HigherOrder = (typeof HIGHER_ORDER)[number];

/** JSONata's implementations, read from a bare instance (its built-ins are not exported). */
let originals: Promise<Record<HigherOrder, (...a: unknown[]) => unknown>> | undefined;
function original(name: HigherOrder): Promise<(...a: unknown[]) => unknown> {
  originals ??= jsonata(`[${HIGHER_ORDER.map((n) => '$' + n).join(', ')}]`)
    .evaluate({})
    .then((defs: any[]) => Object.fromEntries(HIGHER_ORDER.map((n, i) => [n, defs[i].implementation])) as any);
  return originals.then((o) => o[name]);
}

// The parameter names are JSONata's: partial application ($map(?, $f)) reads them from the source.
async function map(this: Focus, arr: unknown, func: unknown) {
  return (await original('map')).call(this, arr, checked(this, func));
}
async function filter(this: Focus, arr: unknown, func: unknown) {
  return (await original('filter')).call(this, arr, checked(this, func));
}
async function single(this: Focus, arr: unknown, func: unknown) {
  return (await original('single')).call(this, arr, checked(this, func));
}
async function foldLeft(this: Focus, sequence: unknown, func: unknown, init: unknown) {
  return (await original('reduce')).call(this, sequence, checked(this, func), init);
}
async function sift(this: Focus, arg: unknown, func: unknown) {
  return (await original('sift')).call(this, arg, checked(this, func));
}
async function each(this: Focus, obj: unknown, func: unknown) {
  return (await original('each')).call(this, obj, checked(this, func));
}

/** Calls `check` once every 1,024 steps of a loop whose steps are cheap. */
function every1024(check: () => void): () => void {
  let n = 0;
  return () => {
    if ((++n & 1023) === 0) check();
  };
}

const isPromise = (v: unknown): v is Promise<unknown> => !!v && typeof (v as any).then === 'function';

/**
 * JSONata's $sort (a stable merge sort: the same halves, the same comparisons in the same order),
 * merging by index instead of copying the rest of the array at each step.
 */
async function sort(this: Focus, arr: any[] | undefined, comparator?: Callback) {
  if (typeof arr === 'undefined') return undefined;
  if (arr.length <= 1) return arr;
  let comp: Callback;
  let tick: () => void;
  if (typeof comparator === 'undefined') {
    if (!isArrayOfNumbers(arr) && !arr.every((item) => typeof item === 'string'))
      throw { stack: new Error().stack, code: 'D3070', index: 1 };
    comp = (a: any, b: any) => a > b;
    tick = every1024(limitsOf(this));
  } else {
    comp = comparator;
    tick = limitsOf(this);
  }
  const merge = async (left: any[], right: any[]): Promise<any[]> => {
    const merged: any[] = [];
    let l = 0;
    let r = 0;
    while (l < left.length && r < right.length) {
      tick();
      let swap = comp(left[l], right[r]);
      if (isPromise(swap)) swap = await swap;
      merged.push(swap ? right[r++] : left[l++]);
    }
    while (l < left.length) merged.push(left[l++]);
    while (r < right.length) merged.push(right[r++]);
    return merged;
  };
  const msort = async (array: any[]): Promise<any[]> => {
    if (array.length <= 1) return array;
    const middle = Math.floor(array.length / 2);
    return merge(await msort(array.slice(0, middle)), await msort(array.slice(middle)));
  };
  return msort(arr);
}

/**
 * JSONata's $distinct (first occurrences, in order, compared with its deep equality): strings,
 * numbers and the like through a Set (deep equality is `===` for them), objects and arrays
 * compared with the earlier distinct ones, checking the limits as it goes.
 */
function distinct(this: Focus, arr: unknown) {
  if (typeof arr === 'undefined') return undefined;
  if (!Array.isArray(arr) || arr.length <= 1) return arr;
  const results: unknown[] = isSequence(arr) && this.createSequence ? this.createSequence() : [];
  const tick = every1024(limitsOf(this));
  const seen = new Set<unknown>();
  const structures: unknown[] = [];
  for (const value of arr) {
    tick();
    if (value !== null && typeof value === 'object') {
      let includes = false;
      for (const earlier of structures) {
        tick();
        if (isDeepEqual(value, earlier)) {
          includes = true;
          break;
        }
      }
      if (includes) continue;
      structures.push(value);
    } else if (typeof value === 'number' && Number.isNaN(value)) {
      // never equal to anything, itself included: JSONata keeps every one
    } else if (seen.has(value)) continue;
    else seen.add(value);
    results.push(value);
  }
  return results;
}

const GUARDED: [string, (...a: any[]) => unknown, string][] = [
  ['map', map, '<af>'],
  ['filter', filter, '<af>'],
  ['single', single, '<af?>'],
  ['reduce', foldLeft, '<afj?:j>'],
  ['sift', sift, '<o-f?:o>'],
  ['each', each, '<o-f:a>'],
  ['sort', sort, '<af?:a>'],
  ['distinct', distinct, '<x:x>'],
];

/**
 * Makes `expr` keep engine.expressions.timeout and .maxDepth whatever its callbacks are, and
 * refuse a range of more than `maxRange` items. Its AST is replaced by a copy whose ranges are
 * bounded (the original, which the fast path may have compiled, is not modified).
 */
export function guardJsonata(expr: jsonata.Expression, maxRange: number): void {
  for (const [name, fn, signature] of GUARDED) expr.registerFunction(name, fn as any, signature);
  expr.registerFunction(RANGE, rangeOf(maxRange) as any);
  const root = expr.ast() as unknown as Record<string, unknown>;
  const bounded = boundRanges(root);
  if (bounded === root) return;
  for (const key of Object.keys(root)) delete root[key];
  Object.assign(root, bounded);
}
