// The currencies the simulated hub trades: ISO 4217 code, minor units, and a mid-market rate as
// units per 1 USD (plausible 2025 magnitudes, fixed so tests are deterministic). Cross rates are
// derived through USD, as a hub without a direct quote does.

export interface CurrencyInfo {
  minorUnits: number;
  perUsd: number;
}

export const CURRENCIES: Readonly<Record<string, CurrencyInfo>> = {
  USD: { minorUnits: 2, perUsd: 1 },
  EUR: { minorUnits: 2, perUsd: 0.92 },
  GBP: { minorUnits: 2, perUsd: 0.79 },
  JPY: { minorUnits: 0, perUsd: 151.5 },
  CHF: { minorUnits: 2, perUsd: 0.88 },
  CAD: { minorUnits: 2, perUsd: 1.36 },
  AUD: { minorUnits: 2, perUsd: 1.52 },
  NZD: { minorUnits: 2, perUsd: 1.66 },
  SEK: { minorUnits: 2, perUsd: 10.45 },
  NOK: { minorUnits: 2, perUsd: 10.6 },
  DKK: { minorUnits: 2, perUsd: 6.87 },
  PLN: { minorUnits: 2, perUsd: 3.97 },
  CZK: { minorUnits: 2, perUsd: 23.1 },
  HUF: { minorUnits: 2, perUsd: 360.5 },
  CNY: { minorUnits: 2, perUsd: 7.24 },
  HKD: { minorUnits: 2, perUsd: 7.82 },
  SGD: { minorUnits: 2, perUsd: 1.35 },
  INR: { minorUnits: 2, perUsd: 83.3 },
  ZAR: { minorUnits: 2, perUsd: 18.6 },
  MXN: { minorUnits: 2, perUsd: 17.1 },
  BRL: { minorUnits: 2, perUsd: 5.05 },
  AED: { minorUnits: 2, perUsd: 3.6725 },
  SAR: { minorUnits: 2, perUsd: 3.75 },
  KWD: { minorUnits: 3, perUsd: 0.307 },
};

export const currency = (code: string): CurrencyInfo | undefined =>
  Object.hasOwn(CURRENCIES, code) ? CURRENCIES[code] : undefined;

/** Units of `sell` per 1 unit of `buy`, at mid-market. */
export function midRate(buy: CurrencyInfo, sell: CurrencyInfo): number {
  return sell.perUsd / buy.perUsd;
}
