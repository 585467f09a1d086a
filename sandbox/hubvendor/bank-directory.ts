// Bank directory lookups by BIC, by IBAN and by national clearing code, answering the paginated
// shape `{header: {page_size, page_start, total_size}, body: [...]}`. No match is a 404 BUSINESS
// error (HUB-BD-404), so connectors can exercise their not-found mapping.

import { extractIBAN, isValidBIC } from 'ibantools';
import type { SimHandler, SimRequest } from '../lib/sim-server.ts';
import { BANKS, type BankRecord } from './bank-directory-data.ts';
import { HubError, HUB_ERROR_CODES, hubRoute, success } from './envelope.ts';
import { HUBVENDOR_QUERY as Q } from './paths.ts';

const DEFAULT_PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 100;

const badRequest = (fieldName: string, message: string) =>
  new HubError(400, 'BUSINESS', [{ fieldName, code: HUB_ERROR_CODES.directoryBadRequest, message }]);

const compact = (s: string) => s.replace(/[\s-]/g, '').toUpperCase();

function required(req: SimRequest, name: string): string {
  const v = req.query[name];
  if (v === undefined || v.trim() === '') throw badRequest(name, `query parameter ${name} is mandatory`);
  return compact(v);
}

function intParam(req: SimRequest, name: string, dflt: number, max: number): number {
  const v = req.query[name];
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw badRequest(name, `${name} must be an integer between 1 and ${max}`);
  return n;
}

/** Page `page_start` (1-based) of `page_size` records; an empty match is a 404. */
function page(req: SimRequest, matches: BankRecord[], what: string) {
  if (matches.length === 0) {
    throw new HubError(404, 'BUSINESS', [
      { fieldName: what, code: HUB_ERROR_CODES.directoryNotFound, message: `no bank directory record for ${what}` },
    ]);
  }
  const pageSize = intParam(req, Q.pageSize, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const pageStart = intParam(req, Q.pageStart, 1, Number.MAX_SAFE_INTEGER);
  const from = (pageStart - 1) * pageSize;
  return success(req, matches.slice(from, from + pageSize), {
    header: { page_size: pageSize, page_start: pageStart, total_size: matches.length },
  });
}

export const byBicHandler: SimHandler = hubRoute((req) => {
  const bic = required(req, Q.bic);
  if (!isValidBIC(bic)) throw badRequest(Q.bic, `'${bic}' is not a valid BIC`);
  // a BIC8 names the institution in a country: every branch; a BIC11 names one office
  const matches = BANKS.filter((b) => (bic.length === 8 ? b.bic8 === bic : b.bic === bic));
  return page(req, matches, bic);
});

/** Directory records of the bank an IBAN belongs to ([] when unknown or invalid). */
export function banksForIban(iban: string): BankRecord[] {
  const x = extractIBAN(iban);
  if (!x.valid || !x.countryCode || !x.bankIdentifier) return [];
  const bankId = x.bankIdentifier;
  let found = BANKS.filter(
    (b) => b.countryCode === x.countryCode && (b.bic.startsWith(bankId) || b.nationalIds.some((n) => n.id === bankId)),
  );
  // where the IBAN also carries a branch (GB sort code), prefer that branch
  const branch = x.branchIdentifier;
  if (branch) {
    const atBranch = found.filter((b) => b.nationalIds.some((n) => n.id === branch));
    if (atBranch.length > 0) found = atBranch;
  }
  return found;
}

export const byIbanHandler: SimHandler = hubRoute((req) => {
  const iban = required(req, Q.iban);
  if (!extractIBAN(iban).valid) throw badRequest(Q.iban, `'${iban}' is not a valid IBAN`);
  return page(req, banksForIban(iban), iban);
});

export const byBranchCodeHandler: SimHandler = hubRoute((req) => {
  const code = required(req, Q.branchCode);
  const country = req.query[Q.countryCode]?.toUpperCase();
  if (country !== undefined && !/^[A-Z]{2}$/.test(country))
    throw badRequest(Q.countryCode, 'countryCode must be an ISO 3166 alpha-2 code');
  const matches = BANKS.filter(
    (b) => (country === undefined || b.countryCode === country) && b.nationalIds.some((n) => n.id === code),
  );
  return page(req, matches, code);
});
