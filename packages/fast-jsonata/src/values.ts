// JSONata's value model, ported from jsonata 2.x (utils.js, functions.js, jsonata.js) so the fast
// evaluator builds exactly the same intermediate values. JSONata marks its internal arrays with
// flags (`sequence`, `keepSingleton`, `outerWrapper`, `cons`, `tupleStream`) and the evaluation
// rules branch on them, so they are reproduced literally rather than "simplified".

import { FastJsonataError } from './errors.ts';
import { charge } from './budget.ts';

/** A JSONata array: a sequence (result of navigation) or a constructed/plain array, with its flags. */
export interface Seq extends Array<any> {
  sequence?: boolean;
  keepSingleton?: boolean;
  outerWrapper?: boolean;
  cons?: boolean;
  tupleStream?: boolean;
}

/**
 * A new object without a prototype, as JSONata makes its objects. Object.create(null) gives one
 * in V8's slow dictionary mode; a literal whose prototype is then set to null keeps fast
 * properties, so building it, reading it and JSON.stringify are about twice as fast.
 */
export function nullObject(): Record<string, any> {
  return Object.setPrototypeOf({}, null);
}

/** `createSequence()`: an empty sequence. */
export function seq(): Seq {
  const s: Seq = [];
  s.sequence = true;
  return s;
}

/** `createSequence(x)`: a sequence holding x, even when x is undefined (JSONata relies on this). */
export function seq1(x: unknown): Seq {
  const s: Seq = [x];
  s.sequence = true;
  return s;
}

export function isSequence(value: any): boolean {
  return Array.isArray(value) && (value as Seq).sequence === true;
}

/** Throws D1001 for infinities, exactly like JSONata, wherever it tests for numbers. */
export function isNumeric(n: unknown): boolean {
  let isNum = false;
  if (typeof n === 'number') {
    isNum = !isNaN(n);
    if (isNum && !isFinite(n)) throw new FastJsonataError('D1001', { value: n });
  }
  return isNum;
}

export function isArrayOfNumbers(arg: unknown): boolean {
  if (!Array.isArray(arg)) return false;
  charge(arg.length);
  return arg.filter((item) => !isNumeric(item)).length === 0;
}

export function isFunction(arg: any): boolean {
  // the type first: a string, number or boolean is never one (reading a marker off a primitive
  // goes through its prototype, which made this check a visible share of every call's cost)
  const type = typeof arg;
  if (type === 'function') return true;
  return type === 'object' && arg !== null && (arg._jsonata_function === true || arg._jsonata_lambda === true);
}

function isLambda(arg: any): boolean {
  return !!arg && arg._jsonata_lambda === true;
}

/** A value JSONata's apply() would run as a tail call (its trampoline tests exactly this). */
export function looksLikeThunk(v: any): boolean {
  return isLambda(v) && v.thunk === true;
}

export function isIterable(arg: any): boolean {
  return (
    typeof arg === 'object' && arg !== null && Symbol.iterator in arg && 'next' in arg && typeof arg.next === 'function'
  );
}

export function isPromise(arg: any): boolean {
  return typeof arg === 'object' && arg !== null && 'then' in arg && typeof arg.then === 'function';
}

/** utils.keys: own enumerable keys of objects (arrays included), nothing for anything else. */
export function keysOf(arg: unknown): string[] {
  return typeof arg === 'object' && arg !== null ? Object.keys(arg) : [];
}

export function isDeepEqual(lhs: any, rhs: any): boolean {
  if (lhs === rhs) return true;
  if (typeof lhs === 'object' && typeof rhs === 'object' && lhs !== null && rhs !== null) {
    if (Array.isArray(lhs) && Array.isArray(rhs)) {
      if (lhs.length !== rhs.length) return false;
      charge(lhs.length);
      for (let i = 0; i < lhs.length; i++) if (!isDeepEqual(lhs[i], rhs[i])) return false;
      return true;
    }
    // JSONata compares getOwnPropertyNames (so an array against an object compares 'length' too)
    const lkeys = Object.getOwnPropertyNames(lhs).sort();
    const rkeys = Object.getOwnPropertyNames(rhs).sort();
    if (lkeys.length !== rkeys.length) return false;
    charge(lkeys.length);
    for (let i = 0; i < lkeys.length; i++) if (lkeys[i] !== rkeys[i]) return false;
    for (const key of lkeys) if (!isDeepEqual(lhs[key], rhs[key])) return false;
    return true;
  }
  return false;
}

/** fn.boolean: JSONata's effective boolean value; undefined stays undefined. */
export function toBoolean(arg: any): boolean | undefined {
  // a boolean (what comparisons, `and`, `or` and most predicates give) is its own value
  if (typeof arg === 'boolean') return arg;
  if (typeof arg === 'undefined') return undefined;
  let result = false;
  if (Array.isArray(arg)) {
    if (arg.length === 1) {
      result = toBoolean(arg[0]) as boolean;
    } else if (arg.length > 1) {
      charge(arg.length);
      result = arg.filter((val) => toBoolean(val)).length > 0;
    }
  } else if (typeof arg === 'string') {
    result = arg.length > 0;
  } else if (isNumeric(arg)) {
    result = arg !== 0;
  } else if (arg !== null && typeof arg === 'object' && !isFunction(arg)) {
    result = keysOf(arg).length > 0;
  } else if (typeof arg === 'boolean' && arg === true) {
    result = true;
  }
  return result;
}

/** boolize: `and`/`or` treat undefined as false. */
export function boolize(value: unknown): boolean {
  const b = toBoolean(value);
  return typeof b === 'undefined' ? false : b;
}

/** fn.string: $string and `&`; non-integers go through toPrecision(15), functions become ''. */
export function toJsonataString(arg: any, prettify: boolean = false): string | undefined {
  if (typeof arg === 'undefined') return undefined;
  if (typeof arg === 'string') return arg;
  if (isFunction(arg)) return '';
  if (typeof arg === 'number' && !isFinite(arg)) throw new FastJsonataError('D3001', { value: arg });
  // JSON.stringify of a finite number or a boolean is its String() form: skip the replacer machinery
  if (typeof arg === 'number') return numberToString(arg);
  if (typeof arg === 'boolean') return String(arg);
  const space = prettify ? 2 : 0;
  if (Array.isArray(arg) && (arg as Seq).outerWrapper) arg = arg[0];
  const text = JSON.stringify(
    arg,
    (_key, val) => {
      if (typeof val !== 'undefined' && val !== null && isNumeric(val)) {
        return val.toPrecision && !Number.isInteger(val) ? Number(val.toPrecision(15)) : val;
      }
      return val && isFunction(val) ? '' : val;
    },
    space,
  );
  // serializing costs the structure's size: charged after the fact, by the text's length
  if (text !== undefined) charge(text.length);
  return text;
}

/**
 * JSONata prints non-integers via toPrecision(15), which is slow. When String(n) has at most 15
 * characters it has at most 15 significant digits, and then rounding n to 15 digits gives n back
 * (a double's half-ulp is below 0.12 units of the 15th digit), so String(n) is already the answer.
 */
function numberToString(n: number): string {
  if (Number.isInteger(n)) return String(n);
  const s = String(n);
  return s.length <= 15 ? s : String(Number(n.toPrecision(15)));
}

/** fn.lookup: field access, mapping over arrays and flattening one level per nesting. */
export function lookup(input: any, key: string): any {
  if (Array.isArray(input)) {
    charge(input.length);
    const result = seq();
    for (let i = 0; i < input.length; i++) {
      const res = lookup(input[i], key);
      if (typeof res !== 'undefined') {
        if (Array.isArray(res)) res.forEach((val) => result.push(val));
        else result.push(res);
      }
    }
    return result;
  }
  if (
    input !== null &&
    typeof input === 'object' &&
    Object.prototype.hasOwnProperty.call(input, key) &&
    !isFunction(input)
  ) {
    return input[key];
  }
  return undefined;
}

/** fn.append: concatenation that ignores undefined and wraps non-arrays. */
export function append(arg1: any, arg2: any): any {
  if (typeof arg1 === 'undefined') return arg2;
  if (typeof arg2 === 'undefined') return arg1;
  if (!Array.isArray(arg1)) arg1 = seq1(arg1);
  if (!Array.isArray(arg2)) arg2 = [arg2];
  charge(arg1.length + arg2.length);
  return arg1.concat(arg2);
}

/** Flattens nested arrays completely (used by the wildcard). */
export function flatten(arg: unknown, flattened: unknown[] = []): unknown[] {
  if (Array.isArray(arg)) {
    charge(arg.length);
    arg.forEach((item) => flatten(item, flattened));
  } else flattened.push(arg);
  return flattened;
}
