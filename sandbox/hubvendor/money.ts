// Decimal-string amounts as integers of minor units (bigint), so fees and totals are exact.

const AMOUNT = /^(0|[1-9]\d{0,14})(?:\.(\d{1,6}))?$/;

/** Minor units of a positive decimal string, or undefined when malformed or too precise for the currency. */
export function parseAmount(s: string, minorUnits: number): bigint | undefined {
  const m = AMOUNT.exec(s);
  if (!m) return undefined;
  const frac = m[2] ?? '';
  if (frac.length > minorUnits) return undefined;
  return BigInt(m[1]!) * 10n ** BigInt(minorUnits) + BigInt(frac.padEnd(minorUnits, '0') || '0');
}

export function isAmountSyntax(s: string): boolean {
  return AMOUNT.test(s);
}

export function formatAmount(minor: bigint, minorUnits: number): string {
  if (minorUnits === 0) return minor.toString();
  const scale = 10n ** BigInt(minorUnits);
  const sign = minor < 0n ? '-' : '';
  const abs = minor < 0n ? -minor : minor;
  return `${sign}${abs / scale}.${(abs % scale).toString().padStart(minorUnits, '0')}`;
}

/** A value in major units (e.g. a fee converted at a rate) rounded half-up to minor units. */
export function toMinor(major: number, minorUnits: number): bigint {
  return BigInt(Math.round(major * 10 ** minorUnits));
}
