// Batches and helpers shared by the batch ACH tests.

import type { Achvendor } from '../../sandbox/achvendor/index.ts';
import type { TestEngine } from '../helpers/engine.ts';

let seq = 0;
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

export function entry(over: Record<string, unknown> = {}): Record<string, unknown> {
  seq++;
  return {
    entry_reference: `E-${seq}`,
    transaction_code: '22',
    receiving_dfi_routing: '021000021',
    account_number: `12345${seq}`,
    amount_minor: 125000,
    individual_id: `EMP${seq}`,
    individual_name: 'JANE DOE',
    ...over,
  };
}

export function batch(over: Record<string, unknown> = {}, entries?: Record<string, unknown>[]): Record<string, any> {
  seq++;
  return {
    batch_reference: `B-${Date.now()}-${seq}`,
    sec_code: 'PPD',
    company_name: 'ACME PAYROLL',
    company_identification: '1234567890',
    company_entry_description: 'PAYROLL',
    effective_entry_date: inDays(1),
    entries: entries ?? [entry(), entry({ transaction_code: '32', receiving_dfi_routing: '011000015' })],
    ...over,
  };
}

export const achvendorOf = (engine: TestEngine): Achvendor => engine.sandbox.services.achvendor as Achvendor;

export async function eventually<T>(fn: () => T | undefined | false, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
