import jsonata from 'jsonata';
import { compileFast } from '../engine/runtime/fast-jsonata.ts';
import { FUNCTIONS } from '../engine/runtime/functions.ts';

let seed = Number(process.argv[2] ?? 1);
const N = Number(process.argv[3] ?? 2000);
const rnd = () => { seed |= 0; seed = (seed + 0x6d2b79f5) | 0; let t = Math.imul(seed ^ (seed >>> 15), 1 | seed); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const pick = <T,>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
const NAMES = ['a', 'b', 'c', 'n', 'x', 'items', 'price', 'tags'];

function value(d: number): unknown {
  const r = rnd();
  if (d <= 0 || r < 0.35) return pick<unknown>([0, 1, 2, -1, 0.5, 1e21, 'a', 'b', '', 'abc', '1', true, false, null]);
  if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(d - 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(rnd() * 4); i > 0; i--) o[pick(NAMES)] = value(d - 1);
  return o;
}

function path(d: number): string {
  let s = pick(NAMES);
  for (let i = Math.floor(rnd() * 3); i > 0; i--) {
    s += '.' + (rnd() < 0.1 ? pick(['$', '*', '(' + expr(d - 1) + ')', '[' + expr(d - 1) + ']', '{"k": ' + expr(d - 1) + '}']) : pick(NAMES));
    const r = rnd();
    if (r < 0.1) s += '[' + pick(['0', '1', '-1', '0.5']) + ']';
    else if (r < 0.2) s += '[' + expr(d - 1) + ']';
    else if (r < 0.25) s += '[]';
  }
  return s;
}

const FNS = ['$string', '$count', '$sum', '$exists', '$boolean', '$not', '$uppercase', '$length', '$keys', '$type', '$number', '$append', '$lookup', '$join', '$substring', '$max', '$merge', '$trim', '$contains', '$split', '$abs', '$round'];
function expr(d: number): string {
  if (d <= 0) return rnd() < 0.6 ? path(0) : pick(['1', '0', '-2', '0.1', '"a"', "'b'", 'true', 'false', 'null', '$', '$$', '$v', '[]', '{}']);
  const r = rnd();
  if (r < 0.25) return path(d);
  if (r < 0.45) return '(' + expr(d - 1) + ' ' + pick(['+', '-', '*', '/', '%', '=', '!=', '<', '<=', '>', '>=', '&', 'and', 'or', 'in']) + ' ' + expr(d - 1) + ')';
  if (r < 0.52) return expr(d - 1) + ' ? ' + expr(d - 1) + (rnd() < 0.7 ? ' : ' + expr(d - 1) : '');
  if (r < 0.68) {
    const f = pick(FNS);
    const args = Array.from({ length: Math.floor(rnd() * 3) }, () => expr(d - 1));
    return f + '(' + args.join(', ') + ')';
  }
  if (r < 0.75) return '[' + Array.from({ length: Math.floor(rnd() * 3) }, () => expr(d - 1)).join(', ') + ']';
  if (r < 0.82) return '{' + Array.from({ length: Math.floor(rnd() * 3) }, () => (rnd() < 0.8 ? JSON.stringify(pick(NAMES)) : expr(d - 1)) + ': ' + expr(d - 1)).join(', ') + '}';
  if (r < 0.86) return '-' + expr(d - 1);
  if (r < 0.9) return pick(['$map', '$filter']) + '(' + expr(d - 1) + ', function($v, $i){' + expr(d - 1).replace(/\$v\b/g, '$v') + '})';
  if (r < 0.94) return '($v := ' + expr(d - 1) + '; ' + expr(d - 1) + ')';
  if (r < 0.97) return expr(d - 1) + ' ~> ' + pick(['$string()', '$count()', '$exists()', '$uppercase()', '$append(1)']);
  return '(' + expr(d - 1) + ')' + pick(['[0]', '[]', '[' + expr(d - 1) + ']']);
}

const clone = <T,>(v: T): T => (v === undefined ? v : structuredClone(v));
function shape(v: any): unknown {
  if (v === undefined) return '$undef';
  if (typeof v === 'number') return Number.isNaN(v) ? '$nan' : Object.is(v, -0) ? '$-0' : v;
  if (typeof v === 'function') return '$fn';
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return { arr: Array.from(v, shape), s: v.sequence === true, k: !!(v as any).keepSingleton, c: !!(v as any).cons, o: !!(v as any).outerWrapper };
  return { obj: Object.keys(v).map((k) => [k, shape(v[k])]), np: Object.getPrototypeOf(v) === null };
}
async function settle(f: () => unknown) { try { return { ok: true, v: shape(await f()) }; } catch (e: any) { return { ok: false, code: e?.code ?? String(e?.message ?? e).slice(0, 60) }; } }

const stats: Record<string, number> = { undef: 0, value: 0, error: 0 };
let codeDiffs = 0;
let compiled = 0, fallbacks = 0, compared = 0, mismatches = 0, parseErrors = 0, bails = 0;
for (let i = 0; i < N; i++) {
  const src = expr(Number(process.argv[4] ?? 3));
  let e: jsonata.Expression;
  try { e = jsonata(src); } catch { parseErrors++; continue; }
  for (const [name, f] of Object.entries(FUNCTIONS)) e.registerFunction(name, f.fn, f.signature);
  const fast = compileFast(e.ast(), FUNCTIONS);
  if (!fast) { fallbacks++; if (process.env.FALLBACKS) console.log("FB " + src); continue; }
  compiled++;
  for (let j = 0; j < 6; j++) {
    const input = j === 0 ? undefined : value(4);
    const bindings = rnd() < 0.5 ? { v: value(2) } : undefined;
    const a = await settle(() => e.evaluate(clone(input), clone(bindings)));
    let wasPromise = false;
    const b = await settle(() => { const r = fast(clone(input), clone(bindings)); wasPromise = r instanceof Promise; return r; });
    if (wasPromise) bails++;
    compared++;
    stats[a.ok ? (a.v === "$undef" ? "undef" : "value") : "error"]++;
    if (!a.ok && !b.ok && a.code !== b.code) { codeDiffs++; if (!/[\[{]/.test(src) || process.env.SHOW) console.log('CODEDIFF', src, JSON.stringify(input), a.code, b.code); }
    if (JSON.stringify(a) !== JSON.stringify(b) && (a.ok || b.ok)) {
      mismatches++;
      if (mismatches <= 15) console.log('MISMATCH', src, '\n  input', JSON.stringify(input), 'bindings', JSON.stringify(bindings), '\n  jsonata', JSON.stringify(a).slice(0, 300), '\n  fast   ', JSON.stringify(b).slice(0, 300));
    }
  }
}
console.log(stats, { codeDiffs, seed: process.argv[2], compiled, fallbacks, parseErrors, compared, mismatches, bails });
