import jsonata from 'jsonata';
import { readFileSync } from 'node:fs';
import { compileFast } from '../engine/runtime/fast-jsonata.ts';
import { FUNCTIONS as REAL } from '../engine/runtime/functions.ts';
const FUNCTIONS = { ...REAL, uuid: { fn: () => '00000000-0000-4000-8000-000000000000' } };
const FIXED = Date.parse('2031-05-06T07:08:09.123Z');
const RealDate = Date;
class FixedDate extends RealDate { constructor(...a: any[]) { super(...((a.length ? a : [FIXED]) as [])); } static now() { return FIXED; } }
(globalThis as any).Date = FixedDate;

let seed = Number(process.argv[2] ?? 7);
const ROUNDS = Number(process.argv[3] ?? 60);
const rnd = () => { seed |= 0; seed = (seed + 0x6d2b79f5) | 0; let t = Math.imul(seed ^ (seed >>> 15), 1 | seed); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const pick = <T,>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];

function collect(node: any, paths: string[][], strings: Set<string>) {
  if (Array.isArray(node)) { node.forEach((n) => collect(n, paths, strings)); return; }
  if (!node || typeof node !== 'object') return;
  if (node.type === 'path') {
    const names: string[] = [];
    for (const s of node.steps) { if (s.type === 'name') names.push(s.value); else if (names.length) break; else if (s.type !== 'variable') break; }
    if (names.length) paths.push(names);
  }
  if (node.type === 'string' && typeof node.value === 'string') strings.add(node.value);
  for (const v of Object.values(node)) collect(v, paths, strings);
}

function leaf(strings: string[]): unknown {
  return pick<unknown>([...strings, ...strings, 'EUR', 'USD', 'JPY', 'DE89370400440532013000', 'DEUTDEFF', '2030-01-01', '2000-01-01', '100.50', '1', '', 'x', 0, 1, 12.345, -5, true, false, null, [], {}, ['a', 'b'], [1, 2]]);
}

function build(paths: string[][], strings: string[]): Record<string, unknown> {
  const root: any = {};
  for (const p of paths) {
    if (rnd() < 0.3) continue;
    let targets: any[] = [root];
    // variable-headed paths: hang them somewhere random as well
    for (let i = 0; i < p.length; i++) {
      const last = i === p.length - 1;
      const next: any[] = [];
      for (const t of targets) {
        if (t === null || typeof t !== 'object' || Array.isArray(t)) continue;
        if (last) { if (!(p[i] in t) || rnd() < 0.3) t[p[i]] = rnd() < 0.15 ? [leaf(strings), leaf(strings)] : leaf(strings); continue; }
        if (!(p[i] in t) || typeof t[p[i]] !== 'object' || t[p[i]] === null) {
          t[p[i]] = rnd() < 0.2 ? Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => ({})) : {};
        }
        const v = t[p[i]];
        if (Array.isArray(v)) next.push(...v); else next.push(v);
      }
      targets = next;
    }
  }
  return root;
}

const clone = <T,>(v: T): T => (v === undefined ? v : structuredClone(v));
function shape(v: any): unknown {
  if (v === undefined) return '$undef';
  if (typeof v === 'number') return Number.isNaN(v) ? '$nan' : Object.is(v, -0) ? '$-0' : v;
  if (typeof v === 'function') return '$fn';
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return { arr: Array.from(v, shape), s: v.sequence === true, k: !!(v as any).keepSingleton, c: !!(v as any).cons };
  return { obj: Object.keys(v).map((k) => [k, shape(v[k])]), np: Object.getPrototypeOf(v) === null };
}
async function settle(f: () => unknown) { try { return { ok: true, v: shape(await f()) }; } catch (e: any) { return { ok: false, code: e?.code ?? String(e?.message ?? e).slice(0, 80) }; } }

const sources: string[] = JSON.parse(readFileSync('.fuzz.tmp/fast-corpus.json', 'utf8'));
const stats = { compared: 0, value: 0, undef: 0, error: 0, mismatch: 0, codeDiff: 0, bail: 0 };
for (const src of sources) {
  const e = jsonata(src);
  for (const [name, f] of Object.entries(FUNCTIONS)) e.registerFunction(name, f.fn, f.signature);
  const fast = compileFast(e.ast(), FUNCTIONS)!;
  const paths: string[][] = []; const strs = new Set<string>();
  collect(e.ast(), paths, strs);
  // variable-headed paths ($t.instructedAmount) also get hung under the other paths' prefixes
  const all = [...paths];
  for (const p of paths) for (const q of paths) if (q.length > 1 && rnd() < 0.3) all.push([...q.slice(0, -1), ...p]);
  const strings = [...strs].filter((s) => s.length < 40);
  for (let r = 0; r < ROUNDS; r++) {
    const input = build(all, strings);
    const a = await settle(() => e.evaluate(clone(input)));
    let promise = false;
    const b = await settle(() => { const v = fast(clone(input)); promise = v instanceof Promise; return v; });
    stats.compared++; if (promise) stats.bail++;
    if (a.ok) stats[(a as any).v === '$undef' ? 'undef' : 'value']++; else stats.error++;
    if (!a.ok && !b.ok) { if (a.code !== b.code) stats.codeDiff++; continue; }
    if (JSON.stringify(a) !== JSON.stringify(b)) {
      stats.mismatch++;
      if (stats.mismatch <= 5) console.log('MISMATCH', src.slice(0, 200), '\n input', JSON.stringify(input).slice(0, 400), '\n jsonata', JSON.stringify(a).slice(0, 300), '\n fast   ', JSON.stringify(b).slice(0, 300));
    }
  }
}
console.log(stats);
