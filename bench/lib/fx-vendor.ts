// The FX route's two facts every hand-written FX program needs, said once: the vendor's path for a
// request (the route's to-http step with the values' defaults) and the unified answer mapped from
// the vendor's rate (exchange-rate-response.jsonata). Plain functions with no imports, so that the
// program written for start-up (bench/strict/lean-fx.ts) loads nothing more with them.

/** The hubvendor path for `b` (amount 1, type BUY and currency market 1 by default, as the values). */
export function fxVendorPath(b: Record<string, string | undefined>): string {
  return `/v1/forex/exchange-rates/${encodeURIComponent(b.buyCurrency!)}/${encodeURIComponent(b.sellCurrency!)}/${encodeURIComponent(b.transactionAmount ?? '1')}/${encodeURIComponent(b.transactionAmountType ?? 'BUY')}?currencyMarket=1`;
}

/** The unified exchange rate from the vendor's rate (the `body` of its envelope). */
export function fxAnswer(v: any) {
  return {
    buyCurrency: v.buyCurrencyId,
    sellCurrency: v.sellCurrencyId,
    currencyMarket: String(v.currencyMarketId),
    buyRate: v.buyRate,
    sellRate: v.sellRate,
    middleRate: v.middleRate,
    quotationCode: v.quotationCode,
    rateDate: v.rateDate,
    transactionAmount: String(v.transactionAmount),
    transactionAmountType: v.transactionAmountType,
  };
}
