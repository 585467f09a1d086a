import jsonata from 'jsonata';
import pino from 'pino';
import { readFileSync } from 'node:fs';
import { compileFast } from '../engine/runtime/fast-jsonata.ts';
import { FUNCTIONS as REAL } from '../engine/runtime/functions.ts';
import { createExchange } from '../engine/runtime/exchange.ts';
const FUNCTIONS = { ...REAL, uuid: { fn: () => 'fixed-uuid' } };
const sources: string[] = JSON.parse(readFileSync('.fuzz.tmp/fast-corpus.json', 'utf8'));
const mk = () => {
  const ex = createExchange({ routeId: 'r', correlationId: 'c', body: { amount: '10.00', currency: 'EUR', items: [{ a: 1 }], date: new Date(0) }, headers: { 'idempotency-key': 'k' }, query: { validate_only: 'true' }, params: { externalReferenceNo: 'E1' }, rawBody: Buffer.from('raw'), log: pino({ level: 'silent' }), signal: new AbortController().signal, message: { id: 'm' } });
  ex.vars.order = { endToEndReference: 'e2e' };
  return ex;
};
const shape = (v: any): string => { try { return JSON.stringify(v) ?? 'undefined'; } catch (e: any) { return 'JSONERR ' + e.message; } };
let same = 0, diff = 0;
for (const src of [...sources, '$string($)', '$keys($)', 'log', 'rawBody', 'signal.aborted', '**.level', '$count(*)', 'body.date', '$string(body.date)', 'log.level', '$type(log.info)']) {
  const e = jsonata(src);
  for (const [n, f] of Object.entries(FUNCTIONS)) e.registerFunction(n, f.fn, f.signature);
  const fast = compileFast(e.ast(), FUNCTIONS);
  if (!fast) continue;
  let a: string, b: string;
  try { a = shape(await e.evaluate(mk())); } catch (err: any) { a = 'ERR ' + (err.code ?? err.constructor?.name); }
  try { b = shape(await fast(mk())); } catch (err: any) { b = 'ERR ' + (err.code ?? err.constructor?.name); }
  if (a === b) same++; else { diff++; console.log('DIFF', src.slice(0, 120), '\n  jsonata', a.slice(0, 200), '\n  fast   ', b.slice(0, 200)); }
}
console.log({ same, diff });
