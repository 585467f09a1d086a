// Functions added to JSONata for banking rules, bound once in every compiled expression.
// Pure and synchronous, so the fast evaluator can call them as well.

import { randomUUID, createHash } from 'node:crypto';
import { isValidIBAN, electronicFormatIBAN, isValidBIC } from 'ibantools';
import { CURRENCY_MINOR_UNITS } from './currencies.ts';

const ABA_WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1];

/** 9 digits whose weighted sum (3, 7, 1, ...) is a multiple of 10: the ABA routing check digit. */
export function abaValid(v: unknown): boolean {
  const s = String(v ?? '');
  if (!/^\d{9}$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += ABA_WEIGHTS[i] * (s.charCodeAt(i) - 48);
  return sum % 10 === 0;
}

export function ibanValid(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const e = electronicFormatIBAN(v);
  return !!e && isValidIBAN(e);
}

export function bicValid(v: unknown): boolean {
  return typeof v === 'string' && isValidBIC(v);
}

export function currencyValid(v: unknown): boolean {
  return typeof v === 'string' && v in CURRENCY_MINOR_UNITS;
}

/** Minor units of an ISO 4217 currency (2 for EUR, 0 for JPY, 3 for BHD), undefined if unknown. */
export function minorUnits(v: unknown): number | undefined {
  return typeof v === 'string' ? CURRENCY_MINOR_UNITS[v] : undefined;
}

/** A positive decimal string with no more fraction digits than the currency allows. */
export function amountValid(amount: unknown, currency?: unknown): boolean {
  if (typeof amount !== 'string' || !/^\d{1,15}(\.\d+)?$/.test(amount)) return false;
  if (!/[1-9]/.test(amount)) return false;
  if (currency === undefined) return true;
  const mu = minorUnits(currency);
  if (mu === undefined) return false;
  const frac = amount.split('.')[1] ?? '';
  return frac.length <= mu;
}

/** Today's date as YYYY-MM-DD in UTC. */
function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** True when `date` (YYYY-MM-DD) is today or later (UTC). */
export function notPast(date: unknown): boolean {
  return typeof date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(date) && date >= today();
}

/** A deterministic UUID-shaped id from parts, so a redelivered input keeps its event id. */
export function stableId(...parts: unknown[]): string {
  const h = createHash('sha256')
    .update(parts.map((p) => String(p ?? '')).join('\u0000'))
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const FUNCTIONS: Record<string, { fn: (...a: any[]) => unknown; signature?: string }> = {
  abaValid: { fn: abaValid },
  ibanValid: { fn: ibanValid },
  bicValid: { fn: bicValid },
  currencyValid: { fn: currencyValid },
  minorUnits: { fn: minorUnits },
  amountValid: { fn: amountValid },
  notPast: { fn: notPast },
  today: { fn: today },
  uuid: { fn: () => randomUUID() },
  stableId: { fn: stableId },
  ibanElectronic: { fn: (v: unknown) => (typeof v === 'string' ? (electronicFormatIBAN(v) ?? v) : v) },
};
