// The screenvendor demo watchlist: fictional profiles. Screening a person whose last name is on
// this list gives hits (one risk per matching profile), anyone else gets NO_PROFILES. The match
// type depends on the first name: equal -> name_exact, the same first three letters ->
// name_variation, otherwise name_fuzzy. "Viktor Petrov" hits six profiles (two alerts, one with
// five risks: enough for paging), "Maria Moreau" one, "John Smith" none.

export interface DemoProfile {
  identifier: string;
  firstName: string;
  lastName: string;
  yearOfBirth?: number;
  nationality: string[];
  gender?: 'male' | 'female';
  amlTypes: string[];
  sanctions?: { list_name: string; listed_at: string }[];
  peps?: { position: string; country: string; class: string }[];
  lists?: { list_name: string }[];
  media?: { title: string; url: string; date: string }[];
}

const DEMO_PROFILES: DemoProfile[] = [
  {
    identifier: 'PRF-VPETROV-01',
    firstName: 'Viktor',
    lastName: 'Petrov',
    yearOfBirth: 1962,
    nationality: ['RU'],
    gender: 'male',
    amlTypes: ['sanction', 'pep-class-1'],
    sanctions: [{ list_name: 'Demo Consolidated Sanctions List', listed_at: '2022-03-01' }],
    peps: [{ position: 'Deputy Minister of Demo Affairs', country: 'RU', class: 'pep-class-1' }],
  },
  {
    identifier: 'PRF-VPETROV-02',
    firstName: 'Vitaly',
    lastName: 'Petrov',
    yearOfBirth: 1975,
    nationality: ['BY'],
    gender: 'male',
    amlTypes: ['pep-class-2'],
    peps: [{ position: 'Regional Council Member', country: 'BY', class: 'pep-class-2' }],
  },
  {
    identifier: 'PRF-APETROV-03',
    firstName: 'Anna',
    lastName: 'Petrov',
    yearOfBirth: 1980,
    nationality: ['BG'],
    gender: 'female',
    amlTypes: ['adverse-media', 'adverse-media-financial-crime'],
    media: [
      {
        title: 'Demo Times: shell companies under investigation',
        url: 'https://news.example/demo/1',
        date: '2023-05-14',
      },
    ],
  },
  {
    identifier: 'PRF-PPETROV-04',
    firstName: 'Pavel',
    lastName: 'Petrov',
    yearOfBirth: 1958,
    nationality: ['RU'],
    gender: 'male',
    amlTypes: ['warning'],
    lists: [{ list_name: 'Demo Financial Regulator Warnings' }],
  },
  {
    identifier: 'PRF-OPETROV-05',
    firstName: 'Olga',
    lastName: 'Petrov',
    yearOfBirth: 1969,
    nationality: ['UA'],
    gender: 'female',
    amlTypes: ['fitness-probity'],
    lists: [{ list_name: 'Demo Disqualified Directors Register' }],
  },
  {
    identifier: 'PRF-SPETROV-06',
    firstName: 'Sergei',
    lastName: 'Petrov',
    yearOfBirth: 1971,
    nationality: ['KZ'],
    gender: 'male',
    amlTypes: ['watchlist'],
    lists: [{ list_name: 'Demo Law Enforcement Watchlist' }],
  },
  {
    identifier: 'PRF-MMOREAU-07',
    firstName: 'Maria',
    lastName: 'Moreau',
    yearOfBirth: 1985,
    nationality: ['FR'],
    gender: 'female',
    amlTypes: ['adverse-media'],
    media: [{ title: 'Demo Gazette: fraud trial opens', url: 'https://news.example/demo/2', date: '2024-01-09' }],
  },
  {
    identifier: 'PRF-AKARIMOV-08',
    firstName: 'Ahmed',
    lastName: 'Karimov',
    yearOfBirth: 1966,
    nationality: ['UZ'],
    gender: 'male',
    amlTypes: ['sanction', 'watchlist'],
    sanctions: [{ list_name: 'Demo Consolidated Sanctions List', listed_at: '2021-11-20' }],
    lists: [{ list_name: 'Demo Law Enforcement Watchlist' }],
  },
];

export type MatchType = 'name_exact' | 'name_variation' | 'name_fuzzy';

const norm = (s: string | undefined) =>
  (s ?? '')
    .trim()
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '');

/** Splits a person's name into first and last name (full_name: last word is the last name). */
function nameOf(person: { first_name?: string; last_name?: string; full_name?: string }): {
  first: string;
  last: string;
} {
  if (person.last_name) return { first: norm(person.first_name), last: norm(person.last_name) };
  const parts = norm(person.full_name).split(/\s+/).filter(Boolean);
  return { first: parts.slice(0, -1).join(' '), last: parts[parts.length - 1] ?? '' };
}

export function matchProfiles(person: {
  first_name?: string;
  last_name?: string;
  full_name?: string;
}): { profile: DemoProfile; matchType: MatchType }[] {
  const { first, last } = nameOf(person);
  if (!last) return [];
  const out: { profile: DemoProfile; matchType: MatchType }[] = [];
  for (const p of DEMO_PROFILES) {
    if (norm(p.lastName) !== last) continue;
    const pf = norm(p.firstName);
    const matchType: MatchType =
      pf === first
        ? 'name_exact'
        : first.length >= 3 && pf.slice(0, 3) === first.slice(0, 3)
          ? 'name_variation'
          : 'name_fuzzy';
    out.push({ profile: p, matchType });
  }
  return out;
}
