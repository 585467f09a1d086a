// IBAN validation (ISO 13616 mod-97, BBAN format per country, via ibantools). Always 200: the
// answer to "is this IBAN valid" is `isValid`, with `validationErrors` naming why not; the bank
// fields come from the directory when the bank is known, null otherwise.

import { electronicFormatIBAN, extractIBAN, isSEPACountry, validateIBAN, ValidationErrorsIBAN } from 'ibantools';
import type { SimHandler } from '../lib/sim-server.ts';
import { banksForIban } from './bank-directory.ts';
import { hubRoute, success } from './envelope.ts';

export const ibanValidationHandler: SimHandler = hubRoute((req) => {
  const iban = electronicFormatIBAN(req.params.IBAN ?? '') ?? '';
  const x = extractIBAN(iban);
  const countryCode = /^[A-Z]{2}/.test(iban) ? iban.slice(0, 2) : null;
  const checkDigits = /^[A-Z]{2}\d{2}/.test(iban) ? iban.slice(2, 4) : null;
  if (!x.valid) {
    return success(req, {
      iban,
      isValid: false,
      countryCode,
      checkDigits,
      nationalBankCode: null,
      branchCode: null,
      accountNumber: null,
      bic: null,
      institutionName: null,
      sepaMember: countryCode === null ? null : isSEPACountry(countryCode),
      validationErrors: validateIBAN(iban).errorCodes.map((c) => ValidationErrorsIBAN[c]),
    });
  }
  const bban = x.bban ?? '';
  // ibantools leaves accountNumber out for some countries (GB): it is what follows bank and branch
  const accountNumber =
    x.accountNumber ?? bban.slice((x.bankIdentifier ?? '').length + (x.branchIdentifier ?? '').length);
  const bank = banksForIban(iban)[0];
  return success(req, {
    iban,
    isValid: true,
    countryCode,
    checkDigits,
    nationalBankCode: x.bankIdentifier ?? null,
    branchCode: x.branchIdentifier ?? null,
    accountNumber,
    bic: bank?.bic ?? null,
    institutionName: bank?.institutionName ?? null,
    sepaMember: isSEPACountry(x.countryCode!),
    validationErrors: [],
  });
});
