// FX rate lookup: one currency pair per call, quoted as units of sellCurrency per 1 buyCurrency
// (quotationCode "M": multiply the buy amount by the rate). buyRate/sellRate are the bank's
// rates around middleRate with a fixed spread; a pair of the same currency is quoted at 1.
// Rates are JSON numbers (7 significant digits); transactionAmount is echoed as the decimal string sent.

import type { SimHandler } from '../lib/sim-server.ts';
import { currency, midRate } from './currencies.ts';
import { type ErrorDetail, HubError, HUB_ERROR_CODES, hubRoute, success } from './envelope.ts';
import { isAmountSyntax, parseAmount } from './money.ts';

const SPREAD = 0.005;
const CCY = /^[A-Z]{3}$/;
const AMOUNT_TYPES = new Set(['BUY', 'SELL']);

const round = (x: number) => Number(x.toPrecision(7));

export const forexRatesHandler: SimHandler = hubRoute((req) => {
  const { buyCurrency = '', sellCurrency = '', transactionAmount = '', transactionAmountType = '' } = req.params;
  const bad: ErrorDetail[] = [];
  const code = HUB_ERROR_CODES.fxBadRequest;
  if (!CCY.test(buyCurrency))
    bad.push({ fieldName: 'buyCurrency', code, message: `'${buyCurrency}' is not an ISO 4217 currency code` });
  if (!CCY.test(sellCurrency))
    bad.push({ fieldName: 'sellCurrency', code, message: `'${sellCurrency}' is not an ISO 4217 currency code` });
  if (!isAmountSyntax(transactionAmount) || /^0(\.0*)?$/.test(transactionAmount)) {
    bad.push({
      fieldName: 'transactionAmount',
      code,
      message: `'${transactionAmount}' is not a positive decimal amount`,
    });
  }
  if (!AMOUNT_TYPES.has(transactionAmountType)) {
    bad.push({ fieldName: 'transactionAmountType', code, message: `'${transactionAmountType}' must be BUY or SELL` });
  }
  if (bad.length > 0) throw new HubError(400, 'BUSINESS', bad);

  const buy = currency(buyCurrency);
  const sell = currency(sellCurrency);
  const unknown: ErrorDetail[] = [];
  const nf = HUB_ERROR_CODES.fxUnknownCurrency;
  if (!buy) unknown.push({ fieldName: 'buyCurrency', code: nf, message: `no rate for currency ${buyCurrency}` });
  if (!sell) unknown.push({ fieldName: 'sellCurrency', code: nf, message: `no rate for currency ${sellCurrency}` });
  if (!buy || !sell) throw new HubError(404, 'BUSINESS', unknown);

  // the amount is in the buy currency for BUY, in the sell currency for SELL
  const amountCcy = transactionAmountType === 'BUY' ? buy : sell;
  if (parseAmount(transactionAmount, amountCcy.minorUnits) === undefined) {
    throw new HubError(400, 'BUSINESS', [
      {
        fieldName: 'transactionAmount',
        code,
        message: `too many decimals for ${transactionAmountType === 'BUY' ? buyCurrency : sellCurrency}`,
      },
    ]);
  }

  const mid = buyCurrency === sellCurrency ? 1 : midRate(buy, sell);
  const spread = buyCurrency === sellCurrency ? 0 : SPREAD;
  const currencyMarketId = req.query.currencyMarket ?? '1';
  return success(
    req,
    {
      buyCurrencyId: buyCurrency,
      sellCurrencyId: sellCurrency,
      currencyMarketId,
      buyRate: round(mid * (1 - spread)),
      sellRate: round(mid * (1 + spread)),
      middleRate: round(mid),
      quotationCode: 'M',
      rateDate: new Date(req.receivedAt).toISOString().slice(0, 10),
      transactionAmount,
      transactionAmountType,
    },
    { id: `${buyCurrency}${sellCurrency}` },
  );
});
