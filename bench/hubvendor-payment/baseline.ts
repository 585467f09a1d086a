// The hand-written limit of the payment initiation route: its work with node:http, a compiled
// ajv, an undici pool called through `dispatch` and plain JavaScript, and nothing else — check the
// query, the Idempotency-Key header, the body (same JSON Schema) and the business rules, map to
// the hub's envelope, POST it with an idempotency key and the caller's Authorization (retrying
// like the route would), map the answer, reply with a content-length. Prints its URL.
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { createAjv } from '../../engine/schemas/schemas.ts';
import { amountValid, currencyValid, minorUnits } from '../../engine/core/functions.ts';
import { electronicFormatIBAN } from 'ibantools';
import { call, readText, reply, vendorPool } from '../lib/limit.ts';

const vendor = process.argv[2];
const ajv = createAjv();
const validate = ajv.compile(JSON.parse(readFileSync('schemas/payments/payment-order-request.schema.json', 'utf8')));
const pool = vendorPool(vendor);
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const REASONS: Record<string, string> = {
  AC01: 'Incorrect account number',
  AC04: 'Closed account number',
  AM04: 'Insufficient funds',
};
const KEY = /^[\x21-\x7E]{1,64}$/;

function problem(
  res: ServerResponse,
  status: number,
  code: string,
  errors: { field: string; message: string }[],
): void {
  reply(
    res,
    status,
    JSON.stringify({
      type: `urn:platform:error:${code}`,
      title: 'Validation error',
      status,
      code,
      detail: errors.map((e) => `${e.field} ${e.message}`).join('; '),
      errors,
    }),
    'application/problem+json',
  );
}

function rules(b: any): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  const t = b.transferTransactionInformation;
  const a = t.instructedAmount;
  if (amountValid(a.amount) && currencyValid(a.currencyCode) && !amountValid(a.amount, a.currencyCode)) {
    out.push({
      field: '/transferTransactionInformation/instructedAmount/amount',
      message: `has more decimals than ${a.currencyCode} allows (${minorUnits(a.currencyCode)})`,
    });
  }
  if (b.paymentMode === 'RECURRING' && !b.schedule)
    out.push({ field: '/schedule', message: 'is required when paymentMode is RECURRING' });
  if (b.paymentMode === 'SINGLE' && b.schedule)
    out.push({ field: '/paymentMode', message: 'must be RECURRING when a schedule is given' });
  if (b.schedule && b.requestedExecutionDate)
    out.push({ field: '/requestedExecutionDate', message: 'is not allowed with a schedule' });
  if (b.schedule?.endDate && b.schedule.endDate < b.schedule.startDate)
    out.push({ field: '/schedule/endDate', message: 'must not be before schedule.startDate' });
  if (b.paymentType === 'SWIFT' && !t.counterpartyBank?.bic)
    out.push({
      field: '/transferTransactionInformation/counterpartyBank/bic',
      message: 'is required for SWIFT payments',
    });
  if ((b.paymentType === 'SEPA' || b.paymentType === 'SEPAINST') && a.currencyCode !== 'EUR')
    out.push({ field: '/transferTransactionInformation/instructedAmount/currencyCode', message: 'must be EUR' });
  if (
    (b.paymentType === 'SEPA' || b.paymentType === 'SEPAINST') &&
    t.counterpartyAccount.identification.schemeName !== 'IBAN'
  )
    out.push({
      field: '/transferTransactionInformation/counterpartyAccount/identification/schemeName',
      message: 'must be IBAN',
    });
  return out;
}

function toVendor(b: any): Record<string, unknown> {
  const t = b.transferTransactionInformation;
  const o = b.originatorAccount.identification;
  const c = t.counterpartyAccount.identification;
  const v: Record<string, unknown> = {
    paymentOrderProductId: b.paymentType,
    paymentCurrencyId: t.instructedAmount.currencyCode,
    amount: t.instructedAmount.amount,
    beneficiaryName: t.counterparty.name,
  };
  if (o.schemeName === 'IBAN') v.debitAccountIBAN = electronicFormatIBAN(o.identification);
  else v.debitAccountId = o.identification;
  if (c.schemeName === 'IBAN') v.beneficiaryIBAN = electronicFormatIBAN(c.identification);
  else v.beneficiaryAccountId = c.identification;
  if (t.counterpartyBank?.bic) v.beneficiaryBIC = String(t.counterpartyBank.bic).toUpperCase();
  if (b.originatorAccount.name) v.orderingCustomerName = b.originatorAccount.name;
  if (t.endToEndIdentification) v.endToEndReference = t.endToEndIdentification;
  if (b.requestedExecutionDate) v.executionDate = b.requestedExecutionDate;
  if (t.chargeBearer) v.chargeBearer = t.chargeBearer;
  if (t.remittanceInformation) v.narratives = [t.remittanceInformation];
  return v;
}

async function callHub(body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  for (let attempt = 0, delay = 200; ; attempt++, delay *= 2) {
    try {
      const r = await call(pool, { method: 'POST', path: '/v1/order/paymentOrders', body, headers });
      if (!RETRY_STATUSES.has(r.status) || attempt >= 3) return { status: r.status, body: JSON.parse(r.text) };
    } catch (e) {
      if (attempt >= 3) throw e;
    }
    await new Promise((res) => setTimeout(res, delay));
  }
}

const BAD_GATEWAY = JSON.stringify({ status: 502, code: 'GC027' });

const server = createServer((req, res) => {
  readText(req, async (text) => {
    const q = new URL(req.url!, 'http://x').searchParams.get('validate_only');
    if (q !== null && q !== 'true' && q !== 'false')
      return problem(res, 400, 'GC025', [{ field: '/query/validate_only', message: 'must be one of "true", "false"' }]);
    const key = req.headers['idempotency-key'] as string | undefined;
    if (key !== undefined && !KEY.test(key))
      return problem(res, 400, 'GC025', [
        { field: '/headers/idempotency-key', message: 'must be 1 to 64 visible ASCII characters' },
      ]);
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return problem(res, 400, 'GC025', [{ field: '/', message: 'the body is not valid JSON' }]);
    }
    if (!validate(body as object))
      return problem(
        res,
        400,
        'GC025',
        (validate.errors ?? []).map((e) => ({ field: e.instancePath || '/', message: e.message ?? 'is invalid' })),
      );
    const errs = rules(body);
    if (errs.length) return problem(res, 400, 'GC025', errs);
    const order = toVendor(body);
    const e2e = body.transferTransactionInformation.endToEndIdentification;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/json',
      'x-correlation-id': randomUUID(),
      'idempotency-key': key ?? (e2e ? `e2e:${e2e}` : randomUUID()),
    };
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    try {
      const r = await callHub(JSON.stringify({ header: {}, body: order }), headers);
      if (r.status !== 200 && r.status !== 201) {
        reply(res, 502, BAD_GATEWAY, 'application/problem+json');
        return;
      }
      const b = r.body.body;
      const ccy = b.paymentCurrencyId;
      reply(
        res,
        201,
        JSON.stringify({
          bankReferenceId: b.paymentInstruction.instructionId,
          bankStatus: b.paymentStatus,
          reasonCode: b.statusReasonCode,
          reasonText: b.statusReasonCode ? (REASONS[b.statusReasonCode] ?? null) : null,
          paymentMode: 'SINGLE',
          paymentInstruction: b.paymentInstruction,
          paymentType: b.paymentOrderProductId,
          endToEndIdentification: b.endToEndReference,
          requestedExecutionDate: b.executionDate,
          instructedAmount: { amount: b.amount, currencyCode: ccy },
          charges: (b.charges ?? []).map((c: any) => ({
            chargeType: c.chargeType,
            amount: { amount: c.chargeAmount, currencyCode: c.chargeCurrency },
          })),
          totalChargeAmount: { amount: b.totalChargeAmount, currencyCode: ccy },
          totalDebitAmount: { amount: b.totalDebitAmount, currencyCode: ccy },
          createdAt: b.createdAt,
          ...(r.status === 200 ? { replayed: true } : {}),
        }),
      );
    } catch {
      reply(res, 502, BAD_GATEWAY, 'application/problem+json');
    }
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
