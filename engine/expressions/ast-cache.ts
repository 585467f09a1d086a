// The parse cache of JSONata expressions: the syntax tree of each expression the fast evaluator
// compiles (fast-jsonata), stored under the SHA-256 of its text, so that a start whose expressions
// did not change compiles them from the stored tree instead of parsing them with jsonata (cold at
// start, some 40 ms for a project's routes). An expression JSONata evaluates itself needs the
// jsonata object, so it is parsed as before; so is one with a syntax error, which reports it. One of
// the start-up caches of disk-cache.ts (where and when it is trusted).
//
// jsonata's parse depends on the text alone (its `timeout` and `stack` options bound evaluations),
// so the limits an expression is compiled with are not part of the key.

import jsonataPackage from 'jsonata/package.json' with { type: 'json' };
import { DiskCache, keyOf } from '../core/disk-cache.ts';

/**
 * What a stored tree was parsed by: another jsonata version, or another encoding below, reads as
 * another cache. The fast evaluator is not named: it compiles every tree read back, and one it no
 * longer takes is parsed again (expressions.ts). Within 2000 entries and 1 MiB, as every start
 * reads the whole file (this project's trees take some 330 KB).
 */
const cache = new DiskCache('jsonata-asts.json', `jsonata ${jsonataPackage.version} ast format 1`, {
  entries: 2000,
  bytes: 1 << 20,
});

/** The key of a value JSON has no form for: `{"\u0000": kind, ...}`. */
const TAG = '\u0000';
/** How TAG appears in JSON.stringify's output: a text without it has no tagged values. */
const TAG_IN_JSON = '\\u0000';

/** The stored tree of `source` (a fresh copy), or undefined when it must be parsed. */
export function cachedAst(source: string): unknown {
  if (!cache.on) return undefined;
  const j = cache.get(keyOf(source));
  if (j === undefined) return undefined;
  try {
    return decodeAst(j);
  } catch {
    return undefined;
  }
}

/** Keeps the tree `source` parsed to (as the fast evaluator took it), when it can be read back exactly. */
export function rememberAst(source: string, ast: unknown): void {
  if (!cache.on) return;
  const encoded = encodeAst(ast);
  if (encoded !== undefined) cache.set(keyOf(source), encoded);
}

/** Writes what this process learnt (as it exits; tests call it). */
export function writeAstCache(): void {
  cache.write();
}

const INEXACT = Symbol('inexact');

/**
 * The tree as JSON that decode() turns back into an equal tree, or undefined when there is none:
 * an object met twice (a tree with shared parts, `%` ancestry slots: JSON would make copies), a
 * function, an accessor, a property JSON drops. `undefined`, regex literals, NaN, ±Infinity and -0
 * are tagged. Nodes made from parser tokens inherit the parser's own fields (id, lbp, nud, led),
 * which neither the fast evaluator nor JSONata's evaluate() reads: read back, they are plain objects.
 */
export function encodeAst(ast: unknown): string | undefined {
  try {
    return JSON.stringify(encode(ast, new Set()));
  } catch (e) {
    if (e === INEXACT) return undefined;
    throw e;
  }
}

function encode(v: unknown, seen: Set<object>): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'undefined':
      return { [TAG]: 'u' };
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0) ? v : { [TAG]: 'n', v: Object.is(v, -0) ? '-0' : String(v) };
    case 'object':
      break;
    default:
      throw INEXACT;
  }
  if (v === null) return null;
  if (seen.has(v)) throw INEXACT;
  seen.add(v);
  if (v instanceof RegExp) {
    // as the lexer makes it: nothing but its pattern, flags and an unused lastIndex
    const own = Object.getOwnPropertyNames(v);
    if (Object.getPrototypeOf(v) !== RegExp.prototype || own.length !== 1 || v.lastIndex !== 0) throw INEXACT;
    if (Object.getOwnPropertySymbols(v).length) throw INEXACT;
    return { [TAG]: 'r', s: v.source, f: v.flags };
  }
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype || !exactOwn(v, v.length + 1)) throw INEXACT;
    const out: unknown[] = [];
    for (let i = 0; i < v.length; i++) {
      if (!Object.hasOwn(v, i)) throw INEXACT;
      out.push(encode(v[i], seen));
    }
    return out;
  }
  const keys = Object.keys(v);
  if (!plainOrToken(Object.getPrototypeOf(v)) || !exactOwn(v, keys.length)) throw INEXACT;
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (k === TAG || k === '__proto__' || !('value' in Object.getOwnPropertyDescriptor(v, k)!)) throw INEXACT;
    out[k] = encode((v as Record<string, unknown>)[k], seen);
  }
  return out;
}

/** `count` own properties by name (the enumerable ones, and an array's length) and no symbols. */
function exactOwn(v: object, count: number): boolean {
  return Object.getOwnPropertyNames(v).length === count && Object.getOwnPropertySymbols(v).length === 0;
}

/** What the parser's symbol tables give their tokens; the evaluators never read them. */
const PARSER_FIELDS = new Set(['id', 'value', 'lbp', 'nud', 'led']);

/** Object.prototype, or a parser symbol: a chain to it that adds nothing but PARSER_FIELDS. */
function plainOrToken(proto: object | null): boolean {
  for (let p = proto; p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    if (p === null) return false;
    for (const k of Reflect.ownKeys(p)) if (typeof k !== 'string' || !PARSER_FIELDS.has(k)) return false;
  }
  return true;
}

/** The tree encodeAst() encoded, a fresh copy. */
export function decodeAst(text: string): unknown {
  const v: unknown = JSON.parse(text);
  return text.includes(TAG_IN_JSON) ? decode(v) : v;
}

/**
 * The tree of a parsed text, its tagged values turned back into what encode() met. Made afresh, not
 * changed in place: each node is built with its final values, as the parser builds its own.
 */
function decode(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = decode(v[i]);
    return out;
  }
  const o = v as Record<string, unknown>;
  const tag = o[TAG];
  if (tag === 'u') return undefined;
  if (tag === 'r') return new RegExp(o.s as string, o.f as string);
  if (tag === 'n') return o.v === '-0' ? -0 : Number(o.v);
  if (tag !== undefined) throw new Error('unknown tag');
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) out[k] = decode(o[k]);
  return out;
}
