// A few real institutions, enough to exercise every lookup. nationalIds types are ISO 20022
// clearing-system codes (DEBLZ German Bankleitzahl, GBDSC UK sort code, USABA ABA routing number)
// and FRCIB for the French code interbancaire (no ISO code exists). Dutch banks have no national
// clearing code: IBANs there name the bank by the first four letters of its BIC.

export interface NationalId {
  type: string;
  id: string;
}

export interface BankRecord {
  bic: string;
  bic8: string;
  /** national clearing code of the branch, null where the country has none */
  branchCode: string | null;
  institutionName: string;
  branchName: string;
  city: string;
  countryCode: string;
  nationalIds: NationalId[];
}

function bank(
  bic: string,
  branchCode: string | null,
  idType: string,
  institutionName: string,
  branchName: string,
  city: string,
): BankRecord {
  return {
    bic,
    bic8: bic.slice(0, 8),
    branchCode,
    institutionName,
    branchName,
    city,
    countryCode: bic.slice(4, 6),
    nationalIds: branchCode === null ? [] : [{ type: idType, id: branchCode }],
  };
}

export const BANKS: readonly BankRecord[] = [
  bank('DEUTDEFFXXX', '50070010', 'DEBLZ', 'Deutsche Bank AG', 'Frankfurt am Main', 'Frankfurt am Main'),
  bank('COBADEFFXXX', '50040000', 'DEBLZ', 'Commerzbank AG', 'Frankfurt am Main', 'Frankfurt am Main'),
  bank('COBADEFFXXX', '37040044', 'DEBLZ', 'Commerzbank AG', 'Köln', 'Köln'),
  bank('BNPAFRPPXXX', '30004', 'FRCIB', 'BNP Paribas', 'Paris Head Office', 'Paris'),
  bank('PSSTFRPPPAR', '20041', 'FRCIB', 'La Banque Postale', 'Centre financier de Paris', 'Paris'),
  bank('NWBKGB2LXXX', '601613', 'GBDSC', 'National Westminster Bank plc', 'London City Branch', 'London'),
  bank('BARCGB22XXX', '200000', 'GBDSC', 'Barclays Bank UK plc', 'London Head Office', 'London'),
  bank('CHASUS33XXX', '021000021', 'USABA', 'JPMorgan Chase Bank, N.A.', 'New York Head Office', 'New York'),
  bank('CITIUS33XXX', '021000089', 'USABA', 'Citibank, N.A.', 'New York Head Office', 'New York'),
  bank('INGBNL2AXXX', null, '', 'ING Bank N.V.', 'Amsterdam Head Office', 'Amsterdam'),
  bank('ABNANL2AXXX', null, '', 'ABN AMRO Bank N.V.', 'Amsterdam Head Office', 'Amsterdam'),
];
