// achvendor (batch ACH) simulator: paths, error catalogue, batch model and the NACHA checks the
// vendor makes itself. The vendor error body is {code, message, target}.

import type { SimResponse } from '../lib/sim-server.ts';

export const SUBMIT_CREDIT_BATCH_PATH = '/fasterpayments/v1/masspayment/submitcreditbatch';
export const SUBMIT_DEBIT_BATCH_PATH = '/fasterpayments/v1/masspayment/submitdebitbatch';
export const BATCH_CANCEL_PATH = '/fasterpayments/v1/masspayment/cancelbatch';
/** simulator only: read a batch */
export const BATCH_PATH = '/fasterpayments/v1/masspayment/batches/{batchId}';
/** simulator control (recorded like any request; /__sandbox/* is the generic control API) */
export const CONTROL_WEBHOOKS_PATH = '/__achvendor/webhooks';
export const CONTROL_ADVANCE_PATH = '/__achvendor/batches/{batchId}/advance';
export const CONTROL_FAIL_AFTER_ACCEPT_PATH = '/__achvendor/fail-after-accept';

/** the engine's webhook paths (specification, "Batch inbound webhooks") */
export const WEBHOOK_BATCH_STATUS_PATH = '/webhooks/batch/statusupdate';
export const WEBHOOK_PAYMENT_STATUS_PATH = '/webhooks/payment/paymentupdate';

/** the demo values of values/environments/sandbox.yaml */
export const SANDBOX_CLIENT_KEY = 'sandbox-achvendor-client-key';
export const SANDBOX_WEBHOOK_SECRET = 'whsec_c2FuZGJveC1hY2h2ZW5kb3Itd2ViaG9vay1zZWNyZXQ=';

const CREDIT_CODES = ['22', '32', '42', '52'];
const DEBIT_CODES = ['27', '37', '47'];
const SEC_CODES = ['PPD', 'CCD', 'CTX', 'WEB', 'TEL'];
export const PRODUCTS = ['business_transfers', 'consumer_transfers'];
export const PAYMENT_CHANNELS = ['business_banking', 'retail_banking'];
export const REQUESTOR_TYPES = ['party', 'system'];

export const ACH_ERROR_CODES = {
  missingHeader: 'RSK-10-1001',
  invalidClientKey: 'RSK-10-1002',
  invalidHeader: 'RSK-10-1003',
  invalidBody: 'RSK-20-2001',
  duplicateBatchReference: 'RSK-20-2002',
  idempotencyMismatch: 'RSK-20-2003',
  invalidOriginatingDfi: 'RSK-20-2004',
  transactionCodeMismatch: 'RSK-20-2005',
  invalidAmount: 'RSK-20-2006',
  invalidReceivingDfi: 'RSK-20-2007',
  batchNotFound: 'RSK-30-3001',
  notCancellable: 'RSK-30-3002',
  /** a cancelled batch cancelled again, at vendors that refuse it (AchvendorOptions.repeatedCancel) */
  alreadyCancelled: 'RSK-30-3003',
  entryRejected: 'RSK-40-4001',
  batchRejected: 'RSK-40-4002',
  unavailable: 'RSK-90-9503',
} as const;

/** NACHA return reasons the simulator produces after settlement */
export const RETURN_REASONS: Readonly<Record<string, string>> = {
  R01: 'Insufficient funds',
  R02: 'Account closed',
  R03: 'No account / unable to locate account',
  R04: 'Invalid account number structure',
};

export type BatchStatus =
  'RECEIVED' | 'VALIDATING' | 'ACCEPTED' | 'REJECTED' | 'SUBMITTED' | 'SETTLED' | 'PARTIALLY_RETURNED' | 'CANCELLED';
export type PaymentStatus = 'PENDING' | 'REJECTED' | 'SUBMITTED' | 'SETTLED' | 'RETURNED' | 'CANCELLED';

export const TERMINAL: ReadonlySet<BatchStatus> = new Set(['REJECTED', 'SETTLED', 'PARTIALLY_RETURNED', 'CANCELLED']);
/** a batch can be cancelled only before it was submitted to the ACH network */
export const CANCELLABLE: ReadonlySet<BatchStatus> = new Set(['RECEIVED', 'VALIDATING', 'ACCEPTED', 'REJECTED']);

export interface Entry {
  entry_reference: string;
  transaction_code: string;
  receiving_dfi_routing: string;
  account_number: string;
  account_type?: string;
  amount_minor: number;
  individual_id?: string;
  individual_name: string;
  addenda?: { type?: string; payment_related_information: string }[];
}

export interface Payment {
  payment_id: string;
  entry_reference: string;
  index: number;
  transaction_code: string;
  amount_minor: number;
  status: PaymentStatus;
  return_code?: string;
  return_reason?: string;
  /** outcome decided at submission from the account number (sandbox rules) */
  plannedReject?: { code: string; message: string };
  plannedReturn?: string;
}

export interface Batch {
  batch_id: string;
  batch_reference: string;
  direction: 'credit' | 'debit';
  sec_code: string;
  originating_dfi: string;
  status: BatchStatus;
  status_reason?: { code: string; message: string };
  entry_count: number;
  total_credit_minor: number;
  total_debit_minor: number;
  rejected_entries: { entry_reference: string; index: number; code: string; message: string }[];
  payments: Payment[];
  history: { status: BatchStatus; at: string }[];
  created_at: string;
  updated_at: string;
}

export function achError(
  status: number,
  code: string,
  message: string,
  target: string,
  headers?: Record<string, string>,
): SimResponse {
  return { status, body: { code, message, target }, headers };
}

function abaValid(v: unknown): boolean {
  if (typeof v !== 'string' || !/^\d{9}$/.test(v)) return false;
  const d = [...v].map(Number);
  return (3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!)) % 10 === 0;
}

/**
 * Sandbox outcome rules, from the account number: `000...` is rejected by the vendor's own
 * checks (the entry lands in rejected_entries); `99900N...` (N = 1..4) settles and is then
 * returned with R0N. A batch_reference starting with `REJECT` is rejected as a whole.
 */
export function plannedOutcome(e: Entry): { reject?: { code: string; message: string }; returnCode?: string } {
  if (e.account_number.startsWith('000'))
    return {
      reject: { code: ACH_ERROR_CODES.entryRejected, message: 'Account number is not valid at the receiving DFI' },
    };
  const m = /^99900([1-4])/.exec(e.account_number);
  if (m) return { returnCode: `R0${m[1]}` };
  return {};
}

/** The first problem of a batch body, as the vendor reports it (one error). */
export function checkBatchBody(body: any, direction: 'credit' | 'debit'): SimResponse | undefined {
  const E = ACH_ERROR_CODES;
  if (!body || typeof body !== 'object')
    return achError(400, E.invalidBody, 'Request body must be a JSON object', 'body');
  for (const f of [
    'batch_reference',
    'sec_code',
    'company_name',
    'company_identification',
    'company_entry_description',
    'effective_entry_date',
    'originating_dfi',
  ]) {
    if (typeof body[f] !== 'string' || body[f] === '')
      return achError(400, E.invalidBody, `Missing or invalid field ${f}`, `body.${f}`);
  }
  if (!abaValid(body.originating_dfi))
    return achError(400, E.invalidOriginatingDfi, 'Invalid originating DFI routing number', 'body.originating_dfi');
  if (!SEC_CODES.includes(body.sec_code))
    return achError(400, E.invalidBody, `Unsupported SEC code ${body.sec_code}`, 'body.sec_code');
  if (!Array.isArray(body.entries) || body.entries.length === 0)
    return achError(400, E.invalidBody, 'A batch needs at least one entry', 'body.entries');
  const codes = direction === 'credit' ? CREDIT_CODES : DEBIT_CODES;
  for (let i = 0; i < body.entries.length; i++) {
    const e = body.entries[i];
    const at = `body.entries[${i}]`;
    if (!e || typeof e !== 'object' || typeof e.entry_reference !== 'string')
      return achError(400, E.invalidBody, 'Missing entry_reference', `${at}.entry_reference`);
    if (!codes.includes(e.transaction_code))
      return achError(
        400,
        E.transactionCodeMismatch,
        `Transaction code ${e.transaction_code} is not allowed in a ${direction} batch`,
        `${at}.transaction_code`,
      );
    if (!abaValid(e.receiving_dfi_routing))
      return achError(
        400,
        E.invalidReceivingDfi,
        'Invalid receiving DFI routing number',
        `${at}.receiving_dfi_routing`,
      );
    if (!Number.isInteger(e.amount_minor) || e.amount_minor <= 0)
      return achError(400, E.invalidAmount, 'Amount must be a positive integer in minor units', `${at}.amount_minor`);
    if (typeof e.account_number !== 'string' || e.account_number === '')
      return achError(400, E.invalidBody, 'Missing account_number', `${at}.account_number`);
  }
  return undefined;
}
