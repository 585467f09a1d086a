// The built-in functions the fast evaluator runs itself: synchronous ports of jsonata 2.x
// functions.js, with the same signatures (the signature does the argument coercion). Anything
// not listed here makes compileFast fall back to JSONata.

import { FastJsonataError, BAIL } from './errors.ts';
import { charge } from './budget.ts';
import { parseSignature, type Signature } from './signature.ts';
import {
  append,
  isFunction,
  nullObject,
  isNumeric,
  keysOf,
  lookup,
  seq,
  toBoolean,
  toJsonataString,
  type Seq,
} from './values.ts';

/** Per-evaluation state: the clock JSONata samples once per evaluate() for $now()/$millis(). */
export interface RunState {
  root: unknown;
  bindings: Record<string, unknown> | undefined;
  millis: number | undefined;
}

/** A function value as JSONata hands it to $map/$filter: a closure with an arity. */
export type HofFn = ((...args: unknown[]) => unknown) & { arity: number };

export interface Builtin {
  signature: Signature;
  impl: (args: any[], run: RunState) => unknown;
  /** arguments that may be lambdas (index); other function-valued arguments are not emulated */
  lambdaArgs?: number[];
  /** only the zero-argument form is emulated */
  noArgsOnly?: boolean;
  /** arguments that may be regex literals (index) */
  regexArgs?: number[];
}

/** A regex literal as the built-ins see it (evaluateRegex's closure): here only tested against. */
export type RegexMatcher = ((str: string) => boolean) & { readonly [MATCHER]: true };

const MATCHER = Symbol('fast-jsonata regex');

/**
 * JSONata copies the literal's RegExp (flags `g` and maybe `i`, `m`) per evaluation and starts
 * at lastIndex 0; one RegExp reset before each use behaves the same, evaluations being synchronous.
 */
export function regexMatcher(re: RegExp): RegexMatcher {
  const test = (str: string) => {
    re.lastIndex = 0;
    return re.exec(str) !== null;
  };
  return Object.assign(test, { [MATCHER]: true as const });
}

export function isRegexMatcher(v: unknown): v is RegexMatcher {
  return typeof v === 'function' && (v as any)[MATCHER] === true;
}

/** fn.contains: a substring, or a match of a regex literal (any other function: JSONata's matcher protocol). */
function contains(str: string | undefined, token: unknown): boolean | undefined {
  if (typeof str === 'undefined' || typeof token === 'undefined') return undefined;
  if (typeof token === 'string') return str.indexOf(token) !== -1;
  if (isRegexMatcher(token)) {
    charge(str.length);
    return token(str);
  }
  throw BAIL;
}

/** Code points, not UTF-16 units: JSONata's stringToArray. */
function chars(str: string): string[] {
  return [...str];
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Length in code points; a string without surrogates has one per UTF-16 unit. */
function codePoints(str: string): number {
  return SURROGATE.test(str) ? chars(str).length : str.length;
}

function substring(str: string | undefined, start: number, length?: number): string | undefined {
  if (typeof str === 'undefined') return undefined;
  // without surrogates code points are UTF-16 units: the same slices without the array
  if (!SURROGATE.test(str)) return substringUnits(str, start, length);
  const strArray = chars(str);
  const strLength = strArray.length;
  if (strLength + start < 0) start = 0;
  if (typeof length !== 'undefined') {
    if (length <= 0) return '';
    const end = start >= 0 ? start + length : strLength + start + length;
    return strArray.slice(start, end).join('');
  }
  return strArray.slice(start).join('');
}

/** `substring` for strings whose code points are their UTF-16 units (the same arithmetic). */
function substringUnits(str: string, start: number, length?: number): string {
  const strLength = str.length;
  if (strLength + start < 0) start = 0;
  if (typeof length !== 'undefined') {
    if (length <= 0) return '';
    const end = start >= 0 ? start + length : strLength + start + length;
    return str.slice(start, end);
  }
  // String.prototype.slice clamps and counts from the end exactly as Array.prototype.slice does
  return str.slice(start);
}

function trim(str: string | undefined): string | undefined {
  if (typeof str === 'undefined') return undefined;
  let result = str.replace(/[ \t\n\r]+/gm, ' ');
  if (result.charAt(0) === ' ') result = result.substring(1);
  if (result.charAt(result.length - 1) === ' ') result = result.substring(0, result.length - 1);
  return result;
}

function pad(str: string | undefined, width: number, char?: string): string | undefined {
  if (typeof str === 'undefined') return undefined;
  if (typeof char === 'undefined' || char.length === 0) char = ' ';
  width = Math.trunc(width);
  const padLength = Math.abs(width) - chars(str).length;
  // a width from a missing value is NaN: JSONata returns the string as it is
  if (!(padLength > 0)) return str;
  let padding = new Array(padLength + 1).join(char);
  if (char.length > 1) padding = substring(padding, 0, padLength)!;
  return width > 0 ? str + padding : padding + str;
}

function toNumber(arg: unknown): number | undefined {
  if (typeof arg === 'undefined') return undefined;
  if (typeof arg === 'number') return arg;
  if (
    typeof arg === 'string' &&
    /^-?[0-9]+(\.[0-9]+)?([Ee][-+]?[0-9]+)?$/.test(arg) &&
    !isNaN(parseFloat(arg)) &&
    isFinite(arg as any)
  ) {
    return parseFloat(arg);
  }
  if (typeof arg === 'string' && /^(0[xX][0-9A-Fa-f]+)|(0[oO][0-7]+)|(0[bB][0-1]+)$/.test(arg)) return Number(arg);
  if (arg === true) return 1;
  if (arg === false) return 0;
  throw new FastJsonataError('D3030', { value: arg, index: 1 });
}

function round(arg: number | undefined, precision?: number): number | undefined {
  if (typeof arg === 'undefined') return undefined;
  if (precision) {
    // shift the decimal point in the string form, as JSONata does, to avoid float error
    const value = arg.toString().split('e');
    arg = +(value[0] + 'e' + (value[1] ? +value[1] + precision : precision));
  }
  let result = Math.round(arg);
  const diff = result - arg;
  if (Math.abs(diff) === 0.5 && Math.abs(result % 2) === 1) result = result - 1; // half to even
  if (precision) {
    const value = result.toString().split('e');
    result = +(value[0] + 'e' + (value[1] ? +value[1] - precision : -precision));
  }
  if (Object.is(result, -0)) result = 0;
  return result;
}

function split(str: string | undefined, separator: unknown, limit?: number): string[] | undefined {
  if (typeof str === 'undefined') return undefined;
  if (limit! < 0) throw new FastJsonataError('D3020', { value: limit, index: 3 });
  if (typeof limit === 'undefined' || limit > 0) {
    // regex separators are not emulated (and JSONata crashes on an undefined one)
    if (typeof separator !== 'string') throw BAIL;
    return str.split(separator, limit);
  }
  return [];
}

function keys(arg: unknown): Seq {
  let result = seq();
  if (Array.isArray(arg)) {
    charge(arg.length);
    const merged: Record<string, boolean> = Object.create(null);
    for (const item of arg) for (const key of keys(item)) merged[key] = true;
    result = keys(merged);
  } else if (arg !== null && typeof arg === 'object' && !isFunction(arg)) {
    for (const key of keysOf(arg)) result.push(key);
  }
  return result;
}

function merge(arg: any[] | undefined): Record<string, unknown> | undefined {
  if (typeof arg === 'undefined') return undefined;
  const result: Record<string, unknown> = nullObject();
  arg.forEach((obj: any) => {
    for (const prop of keysOf(obj)) result[prop] = obj[prop];
  });
  return result;
}

function typeOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (value === null) return 'null';
  if (isNumeric(value)) return 'number';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (Array.isArray(value)) return 'array';
  if (isFunction(value)) return 'function';
  return 'object';
}

/** hofFuncArgs: pass index and array only when the function declares them. */
function hofArgs(func: HofFn, value: unknown, index: unknown, whole: unknown): unknown[] {
  const args = [value];
  if (func.arity >= 2) args.push(index);
  if (func.arity >= 3) args.push(whole);
  return args;
}

function map(arr: any[] | undefined, func: HofFn): Seq | undefined {
  if (typeof arr === 'undefined') return undefined;
  const result = seq();
  for (let i = 0; i < arr.length; i++) {
    charge();
    const res = func(...hofArgs(func, arr[i], i, arr));
    if (typeof res !== 'undefined') result.push(res);
  }
  return result;
}

function filter(arr: any[] | undefined, func: HofFn): Seq | undefined {
  if (typeof arr === 'undefined') return undefined;
  const result = seq();
  for (let i = 0; i < arr.length; i++) {
    charge();
    if (toBoolean(func(...hofArgs(func, arr[i], i, arr)))) result.push(arr[i]);
  }
  return result;
}

function aggregate(args: number[] | undefined, reduce: (args: number[]) => number): number | undefined {
  if (typeof args === 'undefined' || args.length === 0) return undefined;
  charge(args.length);
  return reduce(args);
}

/** Charges work proportional to a string or array argument (the builtins that walk one). */
function sized<T extends { length: number } | undefined>(v: T): T {
  if (v !== undefined) charge(v.length);
  return v;
}

function sum(args: number[]): number {
  let total = 0;
  args.forEach((num) => (total += num));
  return total;
}

/** $now() formats the evaluation's clock as ISO 8601 in UTC, like JSONata's default picture. */
function now(run: RunState): string {
  run.millis ??= Date.now();
  const d = new Date(run.millis);
  // the default picture [Y0001] differs from toISOString outside years 0..9999
  if (d.getUTCFullYear() < 0 || d.getUTCFullYear() > 9999) throw BAIL;
  return d.toISOString();
}

const str = (f: (s: string) => unknown) => (a: any[]) => (typeof a[0] === 'undefined' ? undefined : f(a[0]));
const num = (f: (n: number) => number) => (a: any[]) => (typeof a[0] === 'undefined' ? undefined : f(a[0]));

const TABLE: Record<string, [string, Builtin['impl'], Partial<Builtin>?]> = {
  sum: ['<a<n>:n>', (a) => (typeof a[0] === 'undefined' ? undefined : sum(sized(a[0])))],
  count: ['<a:n>', (a) => (typeof a[0] === 'undefined' ? 0 : a[0].length)],
  max: ['<a<n>:n>', (a) => aggregate(a[0], (xs) => Math.max(...xs))],
  min: ['<a<n>:n>', (a) => aggregate(a[0], (xs) => Math.min(...xs))],
  average: ['<a<n>:n>', (a) => aggregate(a[0], (xs) => sum(xs) / xs.length)],
  string: ['<x-b?:s>', (a) => toJsonataString(a[0], a[1])],
  substring: ['<s-nn?:s>', (a) => substring(sized(a[0]), a[1], a[2])],
  substringBefore: [
    '<s-s:s>',
    (a) =>
      typeof a[0] === 'undefined' ? undefined : a[0].indexOf(a[1]) > -1 ? a[0].substr(0, a[0].indexOf(a[1])) : a[0],
  ],
  substringAfter: [
    '<s-s:s>',
    (a) =>
      typeof a[0] === 'undefined'
        ? undefined
        : a[0].indexOf(a[1]) > -1
          ? a[0].substr(a[0].indexOf(a[1]) + a[1].length)
          : a[0],
  ],
  lowercase: ['<s-:s>', str((s) => s.toLowerCase())],
  uppercase: ['<s-:s>', str((s) => s.toUpperCase())],
  length: ['<s-:n>', (a) => (typeof a[0] === 'undefined' ? undefined : codePoints(sized(a[0])))],
  trim: ['<s-:s>', (a) => trim(a[0])],
  // the width comes from data: charged before the padding is built
  pad: ['<s-ns?:s>', (a) => (charge(Math.abs(a[1]) || 0), pad(a[0], a[1], a[2]))],
  contains: ['<s-(sf):b>', (a) => contains(a[0], a[1]), { regexArgs: [1] }],
  split: ['<s-(sf)n?:a<s>>', (a) => sized(split(a[0], a[1], a[2]))],
  join: [
    '<a<s>s?:s>',
    (a) => (typeof a[0] === 'undefined' ? undefined : sized(a[0]).join(typeof a[1] === 'undefined' ? '' : a[1])),
  ],
  number: ['<(nsb)-:n>', (a) => toNumber(a[0])],
  floor: ['<n-:n>', num(Math.floor)],
  ceil: ['<n-:n>', num(Math.ceil)],
  abs: ['<n-:n>', num(Math.abs)],
  round: ['<n-n?:n>', (a) => round(a[0], a[1])],
  boolean: ['<x-:b>', (a) => toBoolean(a[0])],
  not: ['<x-:b>', (a) => (typeof a[0] === 'undefined' ? undefined : !toBoolean(a[0]))],
  map: ['<af>', (a) => map(a[0], a[1]), { lambdaArgs: [1] }],
  filter: ['<af>', (a) => filter(a[0], a[1]), { lambdaArgs: [1] }],
  keys: ['<x-:a<s>>', (a) => keys(a[0])],
  lookup: ['<x-s:x>', (a) => lookup(a[0], a[1])],
  append: ['<xx:a>', (a) => append(a[0], a[1])],
  exists: ['<x:b>', (a) => typeof a[0] !== 'undefined'],
  merge: ['<a<o>:o>', (a) => merge(sized(a[0]))],
  type: ['<x:s>', (a) => typeOf(a[0])],
  now: ['<s?s?:s>', (_a, run) => now(run), { noArgsOnly: true }],
  millis: ['<:n>', (_a, run) => (run.millis ??= Date.now())],
};

export const BUILTINS: Record<string, Builtin> = Object.fromEntries(
  Object.entries(TABLE).map(([name, [sig, impl, extra]]) => [name, { signature: parseSignature(sig), impl, ...extra }]),
);

/**
 * Every name JSONata binds in its static frame or per expression. A variable reference to one of
 * these (as a value, not a call) is left to JSONata.
 */
export const JSONATA_FUNCTION_NAMES = new Set([
  'sum',
  'count',
  'max',
  'min',
  'average',
  'string',
  'substring',
  'substringBefore',
  'substringAfter',
  'lowercase',
  'uppercase',
  'length',
  'trim',
  'pad',
  'match',
  'contains',
  'replace',
  'split',
  'join',
  'formatNumber',
  'formatBase',
  'formatInteger',
  'parseInteger',
  'number',
  'floor',
  'ceil',
  'round',
  'abs',
  'sqrt',
  'power',
  'random',
  'boolean',
  'not',
  'map',
  'zip',
  'filter',
  'single',
  'reduce',
  'sift',
  'keys',
  'lookup',
  'append',
  'exists',
  'spread',
  'merge',
  'reverse',
  'each',
  'error',
  'assert',
  'type',
  'sort',
  'shuffle',
  'distinct',
  'base64encode',
  'base64decode',
  'encodeUrlComponent',
  'encodeUrl',
  'decodeUrlComponent',
  'decodeUrl',
  'eval',
  'toMillis',
  'fromMillis',
  'clone',
  'now',
  'millis',
]);
