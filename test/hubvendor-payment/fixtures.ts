// Shared inputs of the payment connector tests: valid unified requests and date helpers.

export const ROUTES = ['routes/hubvendor-payment'];

/** YYYY-MM-DD, `days` from today (UTC) */
export function day(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** A bearer token with every character class a JWT can hold, to prove byte-for-byte forwarding. */
export const BEARER =
  'Bearer eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1c2VyLTEiLCJhdWQiOiJodWIifQ.c2ln-bmF0_dXJl+/w==';

let seq = 0;
/** A unique endToEndIdentification per call, so tests never collide on the hub's deduplication. */
export function e2e(prefix = 'E2E'): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${++seq}`;
}

/** A valid SEPA payment order (warehoused: executed in the future, so it stays cancellable). */
export function sepaOrder(over: Record<string, unknown> = {}): Record<string, any> {
  return {
    paymentType: 'SEPA',
    requestedExecutionDate: day(30),
    originatorAccount: {
      name: 'Acme GmbH',
      identification: { identification: 'DE89370400440532013000', schemeName: 'IBAN' },
    },
    transferTransactionInformation: {
      endToEndIdentification: e2e(),
      instructedAmount: { amount: '100.25', currencyCode: 'EUR' },
      counterparty: { name: 'Jane Doe' },
      counterpartyAccount: { identification: { identification: 'FR1420041010050500013M02606', schemeName: 'IBAN' } },
      remittanceInformation: 'Invoice 42',
    },
    ...over,
  };
}

/** A valid monthly recurring payment on account ACC-1001. */
export function recurringOrder(over: Record<string, unknown> = {}): Record<string, any> {
  const o = sepaOrder();
  delete o.requestedExecutionDate;
  return {
    ...o,
    paymentMode: 'RECURRING',
    originatorAccount: { name: 'Acme GmbH', identification: { identification: 'ACC-1001', schemeName: 'ID' } },
    schedule: { transferFrequency: 'MONTHLY', every: 1, startDate: day(10), endDate: day(400) },
    ...over,
  };
}

/** Deep copy with one path set (or removed when value is undefined). */
export function withField(obj: Record<string, any>, path: string, value: unknown): Record<string, any> {
  const copy = structuredClone(obj);
  const keys = path.split('.');
  let o = copy;
  for (const k of keys.slice(0, -1)) o = o[k] ??= {};
  if (value === undefined) delete o[keys.at(-1)!];
  else o[keys.at(-1)!] = value;
  return copy;
}
