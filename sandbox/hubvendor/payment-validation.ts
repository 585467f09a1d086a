// Field checks of a payment order body, reporting every problem at once as the hub does
// (one errorDetails entry per field). Returns only the known fields, typed.

import { electronicFormatIBAN, extractIBAN, isSEPACountry, isValidBIC } from 'ibantools';
import { currency } from './currencies.ts';
import { type ErrorDetail, HubError, HUB_ERROR_CODES as C } from './envelope.ts';
import { parseAmount } from './money.ts';

export type ChargeBearer = 'OUR' | 'SHA' | 'BEN';

export interface PaymentOrderFields {
  paymentOrderProductId: string;
  debitAccountId?: string;
  debitAccountIBAN?: string;
  paymentCurrencyId: string;
  /** decimal string */
  amount: string;
  beneficiaryIBAN?: string;
  /** a non-IBAN account (INTERNAL and DOMESTIC products) */
  beneficiaryAccountId?: string;
  beneficiaryBIC?: string;
  accountWithBankBIC?: string;
  beneficiaryName: string;
  orderingCustomerName?: string;
  endToEndReference?: string;
  /** YYYY-MM-DD; today when absent */
  executionDate: string;
  chargeBearer: ChargeBearer;
  narratives: string[];
}

/**
 * Products the hub knows. SEPA ones take EUR to a SEPA-country IBAN with shared charges (SCT Inst
 * capped at 100,000 EUR); SWIFT needs the beneficiary bank's BIC.
 */
export const PAYMENT_PRODUCTS = ['SEPA', 'SEPAINST', 'SWIFT', 'DOMESTIC', 'INTERNAL'] as const;
export type PaymentProduct = (typeof PAYMENT_PRODUCTS)[number];

const CHARGE_BEARERS = new Set<string>(['OUR', 'SHA', 'BEN']);
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const SCT_INST_MAX_CENTS = 100_000_00n;

export const isDate = (s: string) =>
  DATE.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);
export const todayUtc = (now: number) => new Date(now).toISOString().slice(0, 10);

/** Collects field problems; `fail()` throws them all as one 400 BUSINESS error. */
export class FieldErrors {
  readonly list: ErrorDetail[] = [];
  add(fieldName: string, code: string, message: string): void {
    this.list.push({ fieldName, code, message });
  }
  has(fieldName: string): boolean {
    return this.list.some((e) => e.fieldName === fieldName);
  }
  throwIfAny(): void {
    if (this.list.length > 0) throw new HubError(400, 'BUSINESS', this.list);
  }
}

export function optString(
  b: Record<string, unknown>,
  name: string,
  errs: FieldErrors,
  maxLen: number,
): string | undefined {
  const v = b[name];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') {
    errs.add(name, C.format, `${name} must be a string`);
    return undefined;
  }
  if (v.length > maxLen) errs.add(name, C.format, `${name} must be at most ${maxLen} characters`);
  return v;
}

export function reqString(b: Record<string, unknown>, name: string, errs: FieldErrors, maxLen: number): string {
  const v = optString(b, name, errs, maxLen);
  if (v === undefined && !errs.has(name)) errs.add(name, C.mandatory, `${name} is mandatory`);
  return v ?? '';
}

function iban(b: Record<string, unknown>, name: string, errs: FieldErrors): string | undefined {
  const raw = optString(b, name, errs, 42);
  if (raw === undefined) return undefined;
  const v = electronicFormatIBAN(raw) ?? raw;
  if (!extractIBAN(v).valid) errs.add(name, C.invalidIban, `${name} '${raw}' is not a valid IBAN`);
  return v;
}

function bic(b: Record<string, unknown>, name: string, errs: FieldErrors): string | undefined {
  const v = optString(b, name, errs, 11)?.toUpperCase();
  if (v !== undefined && !isValidBIC(v)) errs.add(name, C.invalidBic, `${name} '${v}' is not a valid BIC`);
  return v;
}

export interface CheckOptions {
  /** false for standing orders, whose account is in the path */
  debitAccountRequired: boolean;
  /** Date.now() of the request */
  now: number;
}

export function checkPaymentOrder(
  b: Record<string, unknown>,
  o: CheckOptions,
  errs = new FieldErrors(),
): PaymentOrderFields {
  const product = reqString(b, 'paymentOrderProductId', errs, 35);
  if (product && !(PAYMENT_PRODUCTS as readonly string[]).includes(product)) {
    errs.add(
      'paymentOrderProductId',
      C.unknownProduct,
      `unknown product '${product}' (known: ${PAYMENT_PRODUCTS.join(', ')})`,
    );
  }
  const debitAccountId = optString(b, 'debitAccountId', errs, 35);
  const debitAccountIBAN = iban(b, 'debitAccountIBAN', errs);
  if (
    o.debitAccountRequired &&
    debitAccountId === undefined &&
    debitAccountIBAN === undefined &&
    !errs.has('debitAccountId') &&
    !errs.has('debitAccountIBAN')
  ) {
    errs.add('debitAccountId', C.mandatory, 'debitAccountId or debitAccountIBAN is mandatory');
  }

  const ccy = reqString(b, 'paymentCurrencyId', errs, 3);
  const ccyInfo = ccy ? currency(ccy) : undefined;
  if (ccy && !ccyInfo) errs.add('paymentCurrencyId', C.unsupportedCurrency, `currency '${ccy}' is not supported`);

  let amount = '';
  let amountMinor: bigint | undefined;
  if (b.amount === undefined || b.amount === null || b.amount === '')
    errs.add('amount', C.mandatory, 'amount is mandatory');
  else if (typeof b.amount !== 'string') errs.add('amount', C.format, 'amount must be a decimal string');
  else {
    amount = b.amount;
    amountMinor = parseAmount(amount, ccyInfo?.minorUnits ?? 6);
    if (amountMinor === undefined || amountMinor === 0n) {
      errs.add(
        'amount',
        C.format,
        `amount '${amount}' must be a positive decimal with at most ${ccyInfo?.minorUnits ?? 6} decimals`,
      );
    }
  }

  const beneficiaryIBAN = iban(b, 'beneficiaryIBAN', errs);
  const beneficiaryAccountId = optString(b, 'beneficiaryAccountId', errs, 35);
  if (
    beneficiaryIBAN === undefined &&
    beneficiaryAccountId === undefined &&
    !errs.has('beneficiaryIBAN') &&
    !errs.has('beneficiaryAccountId')
  ) {
    errs.add('beneficiaryIBAN', C.mandatory, 'beneficiaryIBAN or beneficiaryAccountId is mandatory');
  }
  const beneficiaryBIC = bic(b, 'beneficiaryBIC', errs);
  const accountWithBankBIC = bic(b, 'accountWithBankBIC', errs);
  const beneficiaryName = reqString(b, 'beneficiaryName', errs, 140);
  const orderingCustomerName = optString(b, 'orderingCustomerName', errs, 140);
  const endToEndReference = optString(b, 'endToEndReference', errs, 35);

  const today = todayUtc(o.now);
  const executionDate = optString(b, 'executionDate', errs, 10) ?? today;
  if (!errs.has('executionDate')) {
    if (!isDate(executionDate)) errs.add('executionDate', C.format, 'executionDate must be a date YYYY-MM-DD');
    else if (executionDate < today)
      errs.add('executionDate', C.pastDate, `executionDate ${executionDate} is in the past`);
  }

  const bearer = optString(b, 'chargeBearer', errs, 10) ?? 'SHA';
  if (!CHARGE_BEARERS.has(bearer)) errs.add('chargeBearer', C.format, 'chargeBearer must be OUR, SHA or BEN');

  let narratives: string[] = [];
  if (b.narratives !== undefined && b.narratives !== null) {
    if (!Array.isArray(b.narratives) || !b.narratives.every((n) => typeof n === 'string' && n.length <= 140)) {
      errs.add('narratives', C.format, 'narratives must be an array of strings of at most 140 characters');
    } else narratives = b.narratives as string[];
  }

  // product rules
  if (product === 'SEPA' || product === 'SEPAINST') {
    if (ccy && ccy !== 'EUR') errs.add('paymentCurrencyId', C.sepaRule, `${product} payments must be in EUR`);
    if (beneficiaryIBAN === undefined)
      errs.add('beneficiaryIBAN', C.sepaRule, `${product} payments need a beneficiaryIBAN`);
    else if (!isSEPACountry(beneficiaryIBAN.slice(0, 2)))
      errs.add('beneficiaryIBAN', C.sepaRule, `${beneficiaryIBAN.slice(0, 2)} is not a SEPA country`);
    if (bearer !== 'SHA') errs.add('chargeBearer', C.sepaRule, `${product} payments share charges (SHA)`);
    if (product === 'SEPAINST' && amountMinor !== undefined && ccy === 'EUR' && amountMinor > SCT_INST_MAX_CENTS) {
      errs.add('amount', C.sepaRule, 'SEPAINST amount exceeds 100000.00 EUR');
    }
  }
  if (
    product === 'SWIFT' &&
    beneficiaryBIC === undefined &&
    accountWithBankBIC === undefined &&
    !errs.has('beneficiaryBIC')
  ) {
    errs.add('beneficiaryBIC', C.mandatory, 'SWIFT payments need beneficiaryBIC or accountWithBankBIC');
  }

  errs.throwIfAny();
  return {
    paymentOrderProductId: product,
    ...(debitAccountId !== undefined && { debitAccountId }),
    ...(debitAccountIBAN !== undefined && { debitAccountIBAN }),
    paymentCurrencyId: ccy,
    amount,
    ...(beneficiaryIBAN !== undefined && { beneficiaryIBAN }),
    ...(beneficiaryAccountId !== undefined && { beneficiaryAccountId }),
    ...(beneficiaryBIC !== undefined && { beneficiaryBIC }),
    ...(accountWithBankBIC !== undefined && { accountWithBankBIC }),
    beneficiaryName,
    ...(orderingCustomerName !== undefined && { orderingCustomerName }),
    ...(endToEndReference !== undefined && { endToEndReference }),
    executionDate,
    chargeBearer: bearer as ChargeBearer,
    narratives,
  };
}
