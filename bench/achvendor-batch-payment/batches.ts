// ACH batches for the batch benchmark: valid entries (every rule passes, so every rule runs over
// every entry), half of them with a DED addenda record.

const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

export function achBatch(entries: number, reference = `BENCH-${entries}`): Record<string, unknown> {
  return {
    batch_reference: reference,
    sec_code: 'PPD',
    company_name: 'ACME PAYROLL',
    company_identification: '1234567890',
    company_entry_description: 'PAYROLL',
    effective_entry_date: tomorrow(),
    entries: Array.from({ length: entries }, (_, i) => ({
      entry_reference: `EMP-${i}`,
      transaction_code: i % 3 === 0 ? '32' : '22',
      receiving_dfi_routing: i % 2 ? '021000021' : '011000015',
      account_number: `12345${i}`,
      account_type: i % 3 === 0 ? 'SAVINGS' : 'CHECKING',
      amount_minor: 1000 + i,
      individual_id: `EMP${i}`,
      individual_name: 'JANE DOE',
      ...(i % 2 ? { addenda: [{ payment_related_information: 'DED;CS123456;20251128;CS;12500;N;JANE DOE;NY' }] } : {}),
    })),
  };
}

/** The answer both targets give to `?validate_only=true` for `achBatch(n)` (credit). */
export function validationSummary(batch: Record<string, any>): Record<string, unknown> {
  const total = batch.entries.reduce((s: number, e: any) => s + e.amount_minor, 0);
  return {
    batch_reference: batch.batch_reference,
    direction: 'credit',
    status: 'VALIDATED',
    validate_only: true,
    entry_count: batch.entries.length,
    total_credit_minor: total,
    total_debit_minor: 0,
    rejected_entries: [],
  };
}
