// Default vendor paths of the hubvendor simulator. Values files and tests import these so that the
// connector's `hubvendor.*.apiUri` defaults and the simulator never drift apart.

/** GET; answers the rate for one pair. Query `currencyMarket` (default "1"). */
export const FOREX_EXCHANGE_RATES_PATH =
  '/v1/forex/exchange-rates/{buyCurrency}/{sellCurrency}/{transactionAmount}/{transactionAmountType}';

/** POST creates a payment order; with `?validate_only=true` it only validates and prices it. */
export const PAYMENT_ORDERS_PATH = '/v1/order/paymentOrders';
/** PUT modifies, GET reads one payment order. */
export const PAYMENT_ORDER_UPDATE_PATH = '/v1/order/paymentOrders/{paymentOrderId}';
/** PUT cancels a payment order. */
export const PAYMENT_ORDER_CANCEL_PATH = '/v1/order/paymentOrders/{paymentOrderId}/cancel';

/** POST creates a standing order on the account (arrangement) named by `{standingOrderId}`. */
export const STANDING_ORDERS_PATH = '/v1/order/standingOrders/{standingOrderId}';
/** PUT cancels the standing order `{standingOrderId}` (the instructionId returned on creation). */
export const STANDING_ORDER_CANCEL_PATH = '/v1/order/standingOrders/{standingOrderId}/cancel';

/** GET ?bic=DEUTDEFFXXX (BIC8 or BIC11). */
export const BANK_DIRECTORY_BY_BIC_PATH = '/v1/reference/bankDirectory/bics';
/** GET ?iban=DE89370400440532013000 */
export const BANK_DIRECTORY_BY_IBAN_PATH = '/v1/reference/bankDirectory/ibans';
/** GET ?branchCode=50070010[&countryCode=DE] (national clearing code: BLZ, sort code, ABA, ...). */
export const BANK_DIRECTORY_BY_BRANCH_CODE_PATH = '/v1/reference/bankDirectory/nationalClearingCodes';

/** GET; always 200, `isValid` tells the result. */
export const IBAN_VALIDATION_PATH = '/v1/reference/ibans/{IBAN}/validate';

/** Query parameter names the simulator reads. */
export const HUBVENDOR_QUERY = {
  validateOnly: 'validate_only',
  currencyMarket: 'currencyMarket',
  bic: 'bic',
  iban: 'iban',
  branchCode: 'branchCode',
  countryCode: 'countryCode',
  pageSize: 'page_size',
  pageStart: 'page_start',
} as const;

/** The same paths keyed by the connector property that holds them (spec: payment-v2, foreign-exchange-v1). */
export const HUBVENDOR_PATH_DEFAULTS = {
  'hubvendor.forex.exchangeRates.apiUri': FOREX_EXCHANGE_RATES_PATH,
  'hubvendor.paymentOrders.apiUri': PAYMENT_ORDERS_PATH,
  'hubvendor.paymentOrders.update.apiUri': PAYMENT_ORDER_UPDATE_PATH,
  'hubvendor.paymentOrders.cancel.apiUri': PAYMENT_ORDER_CANCEL_PATH,
  'hubvendor.standingOrders.apiUri': STANDING_ORDERS_PATH,
  'hubvendor.standingOrders.cancel.apiUri': STANDING_ORDER_CANCEL_PATH,
  'hubvendor.searchBankDirectoryByBICApiUri': BANK_DIRECTORY_BY_BIC_PATH,
  'hubvendor.searchBankDirectoryByIBANApiUri': BANK_DIRECTORY_BY_IBAN_PATH,
  'hubvendor.searchBankDirectoryByBankBranchCodeApiUri': BANK_DIRECTORY_BY_BRANCH_CODE_PATH,
  'hubvendor.ibanValidationApiUri': IBAN_VALIDATION_PATH,
} as const;

/** Fills a path template with URL-encoded values, as the engine does. */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`no value for {${name}} in ${template}`);
    return encodeURIComponent(v);
  });
}
