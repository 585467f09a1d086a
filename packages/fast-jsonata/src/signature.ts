// Function signature validation, ported from jsonata 2.x signature.js. Signatures do more than
// check types: `-` substitutes the context value for a missing argument and `a` wraps a single
// value into an array, so the port keeps the original regex-driven algorithm unchanged.

import { FastJsonataError } from './errors.ts';
import { isFunction } from './values.ts';
import { charge } from './budget.ts';

interface Param {
  regex: string;
  type: string;
  array?: boolean;
  subtype?: string;
  context?: boolean;
  contextRegex?: RegExp;
}

export interface Signature {
  /**
   * Returns the arguments the implementation receives, or throws T0410/T0411/T0412. `owned`: the
   * caller made `args` for this call alone, so optional parameters may be padded into it in place.
   */
  validate(args: unknown[], context: unknown, owned?: boolean): unknown[];
}

const ARRAY_TYPE_NAMES: Record<string, string> = {
  a: 'arrays',
  b: 'booleans',
  f: 'functions',
  n: 'numbers',
  o: 'objects',
  s: 'strings',
};

/** The one-letter type JSONata matches against the signature regex ('m' for missing). */
function symbolOf(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return 's';
    case 'number':
      return 'n';
    case 'boolean':
      return 'b';
    case 'object':
      if (value === null) return 'l';
      if (isFunction(value)) return 'f';
      return Array.isArray(value) ? 'a' : 'o';
    case 'function':
      return 'f';
    default:
      return 'm';
  }
}

/** The symbols as bits, for the per-parameter masks of the full-arity check. */
const SYMBOL_BITS: Record<string, number> = { s: 1, n: 2, b: 4, l: 8, a: 16, o: 32, f: 64, m: 128 };

/** The bit of a value's symbol (symbolOf's as a number: no string per argument). */
function symbolBit(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return 1;
    case 'number':
      return 2;
    case 'boolean':
      return 4;
    case 'object':
      if (value === null) return 8;
      if (isFunction(value)) return 64;
      return Array.isArray(value) ? 16 : 32;
    case 'function':
      return 64;
    default:
      return 128;
  }
}

/** The symbols a parameter's regex class (`[sm]`, `[asnblfom]`, `f`) admits, as bits. */
function maskOf(param: Param): number {
  const re = param.regex.replace(/[?+]$/, '');
  const cls = /^\[([a-z]+)\]$/.exec(re)?.[1] ?? (/^[a-z]$/.test(re) ? re : '');
  let mask = 0;
  for (const ch of cls) mask |= SYMBOL_BITS[ch] ?? 0;
  return mask;
}

function findClosingBracket(str: string, start: number, open: string, close: string): number {
  let depth = 1;
  let position = start;
  while (position < str.length) {
    position++;
    const symbol = str.charAt(position);
    if (symbol === close) {
      depth--;
      if (depth === 0) break;
    } else if (symbol === open) {
      depth++;
    }
  }
  return position;
}

function parseParams(signature: string): Param[] {
  const params: Param[] = [];
  let param = {} as Param;
  let prevParam = param;
  const next = () => {
    params.push(param);
    prevParam = param;
    param = {} as Param;
  };
  for (let position = 1; position < signature.length; position++) {
    const symbol = signature.charAt(position);
    if (symbol === ':') break; // return type is not validated
    switch (symbol) {
      case 's':
      case 'n':
      case 'b':
      case 'l':
      case 'o':
        param.regex = '[' + symbol + 'm]';
        param.type = symbol;
        next();
        break;
      case 'a':
        param.regex = '[asnblfom]';
        param.type = symbol;
        param.array = true;
        next();
        break;
      case 'f':
        param.regex = 'f';
        param.type = symbol;
        next();
        break;
      case 'j':
        param.regex = '[asnblom]';
        param.type = symbol;
        next();
        break;
      case 'x':
        param.regex = '[asnblfom]';
        param.type = symbol;
        next();
        break;
      case '-':
        prevParam.context = true;
        prevParam.contextRegex = new RegExp(prevParam.regex);
        prevParam.regex += '?';
        break;
      case '?':
      case '+':
        prevParam.regex += symbol;
        break;
      case '(': {
        const endParen = findClosingBracket(signature, position, '(', ')');
        const choice = signature.substring(position + 1, endParen);
        if (choice.indexOf('<') !== -1) throw new Error(`unsupported signature ${signature}`);
        param.regex = '[' + choice + 'm]';
        param.type = '(' + choice + ')';
        position = endParen;
        next();
        break;
      }
      case '<': {
        if (prevParam.type !== 'a' && prevParam.type !== 'f') throw new Error(`bad signature ${signature}`);
        const endPos = findClosingBracket(signature, position, '<', '>');
        prevParam.subtype = signature.substring(position + 1, endPos);
        position = endPos;
        break;
      }
    }
  }
  return params;
}

export function parseSignature(signature: string): Signature {
  const params = parseParams(signature);
  const regex = new RegExp('^' + params.map((p) => '(' + p.regex + ')').join('') + '$');
  const matches = new Map<string, RegExpExecArray | null>();
  // no context defaults, arrays, optional or repeated parameters: valid arguments pass unchanged
  const simple = params.every((p) => !p.context && p.type !== 'a' && !/[?+]$/.test(p.regex));

  const throwValidationError = (badArgs: unknown[], badSig: string): never => {
    // find the first argument the signature stops matching at
    let partialPattern = '^';
    let goodTo = 0;
    for (const p of params) {
      partialPattern += p.regex;
      const match = badSig.match(partialPattern);
      if (match === null) throw new FastJsonataError('T0410', { value: badArgs[goodTo], index: goodTo + 1 });
      goodTo = match[0].length;
    }
    throw new FastJsonataError('T0410', { value: badArgs[goodTo], index: goodTo + 1 });
  };

  const checkArrayItems = (param: Param, arg: any, single: string, match: string): boolean => {
    if (typeof param.subtype === 'undefined') return true;
    if (single !== 'a' && match !== param.subtype) return false;
    if (single === 'a' && arg.length > 0) {
      const itemType = symbolOf(arg[0]);
      if (itemType !== param.subtype.charAt(0)) return false;
      charge(arg.length);
      return arg.filter((val: unknown) => symbolOf(val) !== itemType).length === 0;
    }
    return true;
  };

  /**
   * What validate() does with each argument for one string of argument types, worked out once
   * from the regex match (signature.js walks the parameters and the match on every call).
   */
  type Op = { kind: 'context' | 'as-is' | 'array'; argIndex: number; param: Param; single: string; match: string };
  const plans = new Map<string, Op[] | 'as-is'>();
  /** The ops, or 'as-is' when every argument passes unchanged in its own place. */
  const planOf = (isValid: RegExpExecArray, argCount: number): Op[] | 'as-is' => {
    const ops: Op[] = [];
    let argIndex = 0;
    params.forEach((param, index) => {
      const match = isValid[index + 1];
      if (match === '') {
        if (param.context && param.contextRegex) ops.push({ kind: 'context', argIndex, param, single: '', match });
        else ops.push({ kind: 'as-is', argIndex: argIndex++, param, single: '', match });
        return;
      }
      // a '+' parameter may have matched several arguments
      for (const single of match.split(''))
        ops.push({ kind: param.type === 'a' ? 'array' : 'as-is', argIndex: argIndex++, param, single, match });
    });
    return ops.length === argCount && ops.every((op, i) => op.kind === 'as-is' && op.argIndex === i) ? 'as-is' : ops;
  };

  /**
   * Each argument to the parameter in its place, none of them repeated (`+`), and any parameters
   * after the last argument optional (`?`) without a context default (`-`): the regex, greedy,
   * matches each argument to its own parameter (and nothing to the rest) exactly when each
   * argument's symbol is one its parameter admits, and validate() passes the arguments unchanged,
   * the missing ones undefined, unless an array parameter gets a non-array or has an item type to
   * check. That case is settled here with a bit test per argument, without the string of symbols
   * and the cache look-ups; anything else takes the general way below.
   */
  const masks = params.map(maskOf);
  const noRepeats = params.every((p) => !p.regex.endsWith('+'));
  /** the fewest arguments the shortcut takes: the parameters after them are optional, without a context default */
  let fewest = params.length;
  while (fewest > 0 && params[fewest - 1].regex.endsWith('?') && !params[fewest - 1].context) fewest--;
  const plainArray = params.map((p) => p.type === 'a' && p.subtype === undefined);
  const arrayParam = params.map((p) => p.type === 'a');
  const passesAsIs = (args: unknown[]): boolean => {
    if (!noRepeats || args.length > params.length || args.length < fewest) return false;
    for (let i = 0; i < args.length; i++) {
      const bit = symbolBit(args[i]);
      if ((masks[i] & bit) === 0) return false;
      // an array parameter: an array (or nothing) passes as it is when it has no item type
      if (arrayParam[i] && !(plainArray[i] && (bit === 16 || bit === 128))) return false;
    }
    return true;
  };

  return {
    validate(args, context, owned) {
      if (passesAsIs(args)) {
        // the optional parameters not given, as the general way passes them
        if (args.length < params.length) {
          const all = owned ? args : args.slice();
          while (all.length < params.length) all.push(undefined);
          return all;
        }
        return args;
      }
      let suppliedSig = '';
      for (let i = 0; i < args.length; i++) suppliedSig += symbolOf(args[i]);
      // the match depends only on the argument types: remembered per type string (few per call site)
      let isValid = matches.get(suppliedSig);
      if (isValid === undefined) {
        isValid = regex.exec(suppliedSig);
        if (matches.size < 64) matches.set(suppliedSig, isValid);
      }
      if (!isValid) return throwValidationError(args, suppliedSig);
      // the common case: every parameter matched exactly one argument of a non-array type
      if (simple && isValid[0].length === params.length) return args;
      let plan = plans.get(suppliedSig);
      if (plan === undefined) {
        plan = planOf(isValid, args.length);
        if (plans.size < 64) plans.set(suppliedSig, plan);
      }
      if (plan === 'as-is') return args;
      const validatedArgs: unknown[] = new Array(plan.length);
      for (let i = 0; i < plan.length; i++) {
        const op = plan[i];
        let arg: any = args[op.argIndex];
        if (op.kind === 'context') {
          // substitute the context value for the missing argument, if its type fits
          if (op.param.contextRegex!.test(symbolOf(context))) arg = context;
          else throw new FastJsonataError('T0411', { value: context, index: op.argIndex + 1 });
        } else if (op.kind === 'array') {
          if (op.single === 'm') arg = undefined;
          else {
            if (!checkArrayItems(op.param, arg, op.single, op.match)) {
              throw new FastJsonataError('T0412', {
                value: arg,
                index: op.argIndex + 1,
                type: ARRAY_TYPE_NAMES[op.param.subtype!],
              });
            }
            if (op.single !== 'a') arg = [arg];
          }
        }
        validatedArgs[i] = arg;
      }
      return validatedArgs;
    },
  };
}
