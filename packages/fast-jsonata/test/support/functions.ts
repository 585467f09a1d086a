// Custom functions for the package's tests and bench, named like the ones the engine registers
// (abaValid, ibanValid, amountValid, ...), so that expressions written for routes compile here.
// Stand-ins, not the engine's rules: pure and synchronous like them, which is all fast-jsonata
// relies on. Both evaluators call the same function, so a differential test compares how each
// evaluator calls it and uses its result, never the rule itself.

import { createHash, randomUUID } from 'node:crypto';
import type { CustomFunctions } from '../../src/compile.ts';

const MINOR_UNITS: Record<string, number> = { EUR: 2, USD: 2, GBP: 2, CHF: 2, JPY: 0, BHD: 3 };

const electronic = (v: string) => v.replace(/\s+/g, '').toUpperCase();

/** ISO 13616 check digits (mod 97), without the per-country lengths of a real IBAN library. */
function ibanValid(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const e = electronic(v);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(e)) return false;
  const digits = (e.slice(4) + e.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return rest === 1;
}

function abaValid(v: unknown): boolean {
  const s = String(v ?? '');
  if (!/^\d{9}$/.test(s)) return false;
  const w = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  return [...s].reduce((sum, c, i) => sum + w[i] * Number(c), 0) % 10 === 0;
}

function amountValid(amount: unknown, currency?: unknown): boolean {
  if (typeof amount !== 'string' || !/^\d{1,15}(\.\d+)?$/.test(amount) || !/[1-9]/.test(amount)) return false;
  if (currency === undefined) return true;
  const mu = typeof currency === 'string' ? MINOR_UNITS[currency] : undefined;
  return mu !== undefined && (amount.split('.')[1] ?? '').length <= mu;
}

const today = () => new Date().toISOString().slice(0, 10);

function stableId(...parts: unknown[]): string {
  const h = createHash('sha256')
    .update(parts.map((p) => String(p ?? '')).join('\u0000'))
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const TEST_FUNCTIONS: CustomFunctions = {
  abaValid: { fn: abaValid },
  ibanValid: { fn: ibanValid },
  bicValid: { fn: (v: unknown) => typeof v === 'string' && /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(v) },
  currencyValid: { fn: (v: unknown) => typeof v === 'string' && v in MINOR_UNITS },
  minorUnits: { fn: (v: unknown) => (typeof v === 'string' ? MINOR_UNITS[v] : undefined) },
  amountValid: { fn: amountValid },
  notPast: { fn: (d: unknown) => typeof d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d) && d >= today() },
  today: { fn: today },
  uuid: { fn: () => randomUUID() },
  stableId: { fn: stableId },
  ibanElectronic: { fn: (v: unknown) => (typeof v === 'string' ? electronic(v) : v) },
};
