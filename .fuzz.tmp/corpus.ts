import jsonata from 'jsonata';
import { parseAllDocuments } from 'yaml';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compileProgram } from '../engine/runtime/fast-jsonata/compile.ts';
import { compileFast } from '../engine/runtime/fast-jsonata.ts';
import { FUNCTIONS } from '../engine/runtime/functions.ts';

const files = (d: string): string[] => readdirSync(d).flatMap((f) => { const p = join(d, f); return statSync(p).isDirectory() ? files(p) : [p]; });
const sources = new Set<string>();
const EXPR_KEYS = /^(assert|errors|condition|when|expression|expr|body|value|set|items|while|until|detail|key|idempotency-key|headers|query|vendorCode|code|message|status|to|into|text|id)$/;
function walk(node: any, key: string) {
  if (typeof node === 'string') { if (EXPR_KEYS.test(key) || /[$&?()]/.test(node)) sources.add(node); return; }
  if (Array.isArray(node)) node.forEach((n) => walk(n, key));
  else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, k);
}
for (const f of files('routes').filter((f) => f.endsWith('.yaml'))) for (const doc of parseAllDocuments(readFileSync(f, 'utf8'))) walk(doc.toJS(), '');
for (const f of files('transforms').filter((f) => f.endsWith('.jsonata'))) sources.add(readFileSync(f, 'utf8'));

const reasons: Record<string, number> = {};
let fast = 0, total = 0;
const fastOnes: string[] = [];
for (const src of sources) {
  let ast;
  try { ast = jsonata(src).ast(); } catch { continue; }
  if (ast.type === 'path' && ast.steps.length === 1 && !/[.$]/.test(src)) continue; // a plain word, not an expression
  total++;
  try { compileProgram(ast, FUNCTIONS); fast++; fastOnes.push(src); }
  catch (e: any) { reasons[e.message] = (reasons[e.message] ?? 0) + 1; if (process.env.SHOW === e.message) console.log('---', src.slice(0, 300)); }
}
console.log({ total, fast, fallback: total - fast }, reasons);
if (process.env.DUMP) { const fs = await import('node:fs'); fs.writeFileSync(process.env.DUMP, JSON.stringify(fastOnes)); }
