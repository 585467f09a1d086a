// Hand-written baseline of the ACH batch routes: node:http, the request schema compiled once by
// ajv, every business rule of routes/achvendor-batch-payment/validate-batch.yaml as plain
// JavaScript (same checks, same messages), the vendor call through an undici Pool, and replies
// with content-length. `node --import tsx bench/achvendor-batch-payment/baseline.ts <vendor URL>` prints its URL.
import { createServer, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { createAjv } from '../../engine/schemas/schemas.ts';
import { abaValid, notPast, stableId } from '../../engine/core/functions.ts';

const vendor = process.argv[2];
const MAX_ENTRIES = 5000;
const SUPPORTED = ['PPD', 'CCD', 'CTX', 'WEB', 'TEL'];
const CODES = { credit: ['22', '32', '42', '52'], debit: ['27', '37', '47'] };
const ACCOUNT: Record<string, string> = {
  22: 'CHECKING',
  27: 'CHECKING',
  32: 'SAVINGS',
  37: 'SAVINGS',
  42: 'GENERAL_LEDGER',
  47: 'GENERAL_LEDGER',
  52: 'LOAN',
};
const MAX_ADDENDA: Record<string, number> = { TEL: 0, PPD: 1, CCD: 1, WEB: 1, CTX: 9999 };
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const validate = createAjv().compile<any>(
  JSON.parse(readFileSync('schemas/batch-payments/batch-request.schema.json', 'utf8')),
);
const pool = new Pool(vendor, { connections: 4 });

type FieldError = { index?: number; field: string; message: string };

function separated(text: string, prefix: string, n: number): string {
  const parts = text.split(';');
  if (parts[0] !== prefix) return `a ${prefix} addenda record starts with '${prefix};' (${prefix};f1;...;f${n})`;
  if (parts.length - 1 !== n)
    return `a ${prefix} addenda record holds exactly ${n} semicolon-delimited fields after the prefix (${prefix};f1;...;f${n}), found ${parts.length - 1}`;
  return '';
}

function rules(direction: 'credit' | 'debit', b: any): FieldError[] {
  const errors: FieldError[] = [];
  if (!SUPPORTED.includes(b.sec_code))
    errors.push({
      field: '/sec_code',
      message: `SEC code ${b.sec_code} is not supported; supported: ${SUPPORTED.join(', ')}`,
    });
  if (!DATE.test(b.effective_entry_date))
    errors.push({ field: '/effective_entry_date', message: 'must be a date YYYY-MM-DD' });
  else if (!notPast(b.effective_entry_date))
    errors.push({ field: '/effective_entry_date', message: 'must be today or later' });
  const entries: any[] = b.entries;
  if (entries.length === 0) errors.push({ field: '/entries', message: 'a batch needs at least one entry' });
  else if (entries.length > MAX_ENTRIES)
    errors.push({
      field: '/entries',
      message: `the batch holds ${entries.length} entries; a batch takes at most ${MAX_ENTRIES} (batch.max.entries)`,
    });
  const codes = CODES[direction];
  const other = direction === 'credit' ? CODES.debit : CODES.credit;
  const refs = new Map<string, number>();
  for (const e of entries) refs.set(e.entry_reference, (refs.get(e.entry_reference) ?? 0) + 1);
  const maxAddenda = MAX_ADDENDA[b.sec_code];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const at = `/entries/${i}`;
    if (!codes.includes(e.transaction_code)) {
      const what = other.includes(e.transaction_code)
        ? `is a ${direction === 'credit' ? 'debit' : 'credit'} code`
        : 'is not a supported NACHA code';
      errors.push({
        index: i,
        field: `${at}/transaction_code`,
        message: `transaction code ${e.transaction_code} ${what}; a ${direction} batch takes ${codes.join(', ')}`,
      });
    }
    if (!abaValid(e.receiving_dfi_routing)) {
      errors.push({
        index: i,
        field: `${at}/receiving_dfi_routing`,
        message: /^\d{9}$/.test(e.receiving_dfi_routing)
          ? `ABA routing number ${e.receiving_dfi_routing} has a wrong check digit`
          : 'must be a 9-digit ABA routing number',
      });
    }
    const a = e.amount_minor;
    if (!(a > 0 && a === Math.floor(a) && a <= 9999999999))
      errors.push({
        index: i,
        field: `${at}/amount_minor`,
        message: 'must be a positive integer amount in minor units (cents), at most 9999999999',
      });
    const account = ACCOUNT[e.transaction_code];
    if (e.account_type !== undefined && account !== undefined && e.account_type !== account) {
      errors.push({
        index: i,
        field: `${at}/account_type`,
        message: `transaction code ${e.transaction_code} is for a ${account} account, not ${e.account_type}`,
      });
    }
    if (refs.get(e.entry_reference)! > 1)
      errors.push({
        index: i,
        field: `${at}/entry_reference`,
        message: `entry_reference ${e.entry_reference} is used by more than one entry`,
      });
    const addenda: any[] = e.addenda ?? [];
    if (maxAddenda !== undefined && addenda.length > maxAddenda) {
      errors.push({
        index: i,
        field: `${at}/addenda`,
        message: `a ${b.sec_code} entry takes at most ${maxAddenda} addenda record${maxAddenda === 1 ? '' : 's'}, found ${addenda.length}`,
      });
    }
    for (let j = 0; j < addenda.length; j++) {
      const text: string = addenda[j].payment_related_information;
      const field = `${at}/addenda/${j}/payment_related_information`;
      if (text.length > 80)
        errors.push({ index: i, field, message: `must be at most 80 characters, found ${text.length}` });
      const msg = text.startsWith('DED')
        ? separated(text, 'DED', 7)
        : text.startsWith('TXP')
          ? separated(text, 'TXP', 8)
          : '';
      if (msg) errors.push({ index: i, field, message: msg });
    }
  }
  return errors;
}

function reply(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) }).end(text);
}

async function batchRoute(
  direction: 'credit' | 'debit',
  validateOnly: boolean,
  headerKey: string | undefined,
  b: any,
  res: ServerResponse,
): Promise<void> {
  if (!validate(b))
    return reply(res, 400, { status: 400, code: 'GC025', errors: validate.errors }, 'application/problem+json');
  const errors = rules(direction, b);
  if (errors.length) return reply(res, 400, { status: 400, code: 'GC025', errors }, 'application/problem+json');
  let total = 0;
  for (const e of b.entries) total += e.amount_minor;
  if (validateOnly) {
    return reply(res, 200, {
      batch_reference: b.batch_reference,
      direction,
      status: 'VALIDATED',
      validate_only: true,
      entry_count: b.entries.length,
      total_credit_minor: direction === 'credit' ? total : 0,
      total_debit_minor: direction === 'debit' ? total : 0,
      rejected_entries: [],
    });
  }
  const key = headerKey ?? stableId(`achvendor-${direction}-batch`, b.batch_reference, JSON.stringify(b));
  const r = await pool.request({
    method: 'POST',
    path: `/fasterpayments/v1/masspayment/submit${direction}batch`,
    headers: {
      'content-type': 'application/json',
      client_key: 'sandbox-achvendor-client-key',
      client_requestor_reference: 'gc-batch-development',
      product: 'business_transfers',
      payment_channel: 'business_banking',
      requestor_type: 'party',
      access_channel: 'platform-development',
      timestamp: new Date().toISOString(),
      idempotent_request_key: key,
    },
    body: JSON.stringify({ ...b, originating_dfi: '021000021' }),
  });
  const v = JSON.parse(await r.body.text());
  if (r.statusCode >= 300) return reply(res, 502, { status: 502, code: 'GC027' }, 'application/problem+json');
  reply(res, 202, {
    batch_id: v.batch_id,
    batch_reference: v.batch_reference,
    direction,
    status: v.status,
    validate_only: false,
    entry_count: v.entry_count,
    total_credit_minor: v.total_credit_minor,
    total_debit_minor: v.total_debit_minor,
    rejected_entries: v.rejected_entries ?? [],
  });
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health/live') return reply(res, 200, { status: 'UP' });
  const m = /^\/batch-payments\/(credit|debit)-batches(\?validate_only=(true|false))?$/.exec(req.url ?? '');
  if (req.method !== 'POST' || !m) return reply(res, 404, { status: 404 });
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return reply(res, 400, { status: 400 });
    }
    const key = req.headers['idempotency-key'];
    batchRoute(m[1] as 'credit' | 'debit', m[3] === 'true', typeof key === 'string' ? key : undefined, body, res).catch(
      () => reply(res, 502, { status: 502 }),
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as any).port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
