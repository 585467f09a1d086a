import { toJsonataString } from '../engine/runtime/fast-jsonata/values.ts';
const rep = (_k: string, v: any) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(15)) : v);
let bad = 0, n = 0;
const check = (x: number) => { n++; const a = JSON.stringify(x, rep); const b = toJsonataString(x); if (a !== b) { bad++; if (bad < 5) console.log(x, a, b); } };
for (const x of [0.1, 0.2, 0.30000000000000004, 1e21, 1e-7, 1.005, 5e-324, 1 / 3, 100.5, 0.1 + 0.2, -0.000001234, 999999999999999.9, 0.9999999999999999]) check(x);
const buf = new Float64Array(1); const u = new Uint32Array(buf.buffer);
for (let i = 0; i < 2_000_000; i++) { u[0] = (Math.random() * 2 ** 32) >>> 0; u[1] = (Math.random() * 2 ** 32) >>> 0; if (isFinite(buf[0])) check(buf[0]); }
for (let i = 0; i < 2_000_000; i++) check(Math.round(Math.random() * 10 ** (1 + (i % 15))) / 10 ** (i % 8));
for (let i = 0; i < 1_000_000; i++) check((Math.random() - 0.5) * 10 ** Math.floor(Math.random() * 40 - 20));
console.log('mismatches', bad, 'of', n);
