import jsonata from 'jsonata';
import { compileProgram } from '../engine/runtime/fast-jsonata/compile.ts';
import { FUNCTIONS } from '../engine/runtime/functions.ts';
import { readFileSync } from 'node:fs';
const reasons: Record<string, number> = {};
for (const src of readFileSync(0, 'utf8').split('\n').filter(Boolean)) {
  try { compileProgram(jsonata(src).ast(), FUNCTIONS); reasons['compiled'] = (reasons['compiled'] ?? 0) + 1; }
  catch (e: any) { const k = e.message; reasons[k] = (reasons[k] ?? 0) + 1; if ((reasons[k]) <= 1) console.log(k, '<=', src.slice(0, 150)); }
}
console.log(reasons);
