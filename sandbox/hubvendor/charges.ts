// Fees the hub would take for a payment, priced in the payment currency: a per-product transfer
// fee, plus a correspondent fee when the debtor pays all charges (OUR) on a SWIFT payment. With BEN
// the beneficiary bears the charges, so none are debited. Fee levels are set in USD and converted.

import { CURRENCIES } from './currencies.ts';
import { formatAmount, parseAmount, toMinor } from './money.ts';
import type { PaymentOrderFields, PaymentProduct } from './payment-validation.ts';

export interface Charge {
  chargeType: string;
  chargeCurrency: string;
  chargeAmount: string;
}

export interface Pricing {
  charges: Charge[];
  totalChargeAmount: string;
  totalDebitAmount: string;
}

const TRANSFER_FEE_USD: Record<PaymentProduct, number> = {
  SEPA: 0.5,
  SEPAINST: 1,
  SWIFT: 15,
  DOMESTIC: 1,
  INTERNAL: 0,
};
const CORRESPONDENT_FEE_USD = 20;

export function priceOrder(o: PaymentOrderFields): Pricing {
  const ccy = CURRENCIES[o.paymentCurrencyId]!;
  const fee = (usd: number) => toMinor(usd * ccy.perUsd, ccy.minorUnits);
  const lines: { chargeType: string; minor: bigint }[] = [];
  if (o.chargeBearer !== 'BEN') {
    const transfer = fee(TRANSFER_FEE_USD[o.paymentOrderProductId as PaymentProduct] ?? 0);
    if (transfer > 0n) lines.push({ chargeType: 'TRANSFER_FEE', minor: transfer });
    if (o.chargeBearer === 'OUR' && o.paymentOrderProductId === 'SWIFT')
      lines.push({ chargeType: 'CORRESPONDENT_FEE', minor: fee(CORRESPONDENT_FEE_USD) });
  }
  const total = lines.reduce((s, l) => s + l.minor, 0n);
  const amount = parseAmount(o.amount, ccy.minorUnits)!;
  return {
    charges: lines.map((l) => ({
      chargeType: l.chargeType,
      chargeCurrency: o.paymentCurrencyId,
      chargeAmount: formatAmount(l.minor, ccy.minorUnits),
    })),
    totalChargeAmount: formatAmount(total, ccy.minorUnits),
    totalDebitAmount: formatAmount(amount + total, ccy.minorUnits),
  };
}
