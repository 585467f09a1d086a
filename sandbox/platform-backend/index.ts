// The platform backend simulator: per-user accounts, balances and transactions, and a product
// catalog. It trusts the `X-User-Id` header set by the engine (the gateway puts the verified token's
// subject there through the platform-backend routes) and never sees a token. A user only ever gets
// their own accounts; an account of somebody else answers 404, exactly like a missing one.
//
//   GET /v1/products?category=                      product catalog (public)
//   GET /v1/me/accounts                             the caller's accounts with balances
//   GET /v1/me/transactions?accountId=&fromDate=&toDate=&limit=   the caller's transactions, newest first

import { createHash } from 'node:crypto';
import { createSimServer, type SimLog, type SimServer, type SimRequest, type SimResponse } from '../lib/sim-server.ts';

export interface PlatformBackendOptions {
  port?: number;
  host?: string;
  log?: SimLog;
  record?: boolean;
}

export interface Account {
  accountId: string;
  iban: string;
  name: string;
  currency: string;
  balance: { booked: string; available: string };
}

export interface Transaction {
  transactionId: string;
  accountId: string;
  bookingDate: string;
  amount: string;
  currency: string;
  creditDebitIndicator: 'CRDT' | 'DBIT';
  description: string;
  counterpartyName: string;
}

export interface Product {
  productId: string;
  name: string;
  category: 'ACCOUNT' | 'CARD' | 'LOAN' | 'SAVINGS' | 'FX';
  currency: string;
  description: string;
  interestRate?: string;
  monthlyFee?: string;
}

export interface PlatformBackend {
  url: string;
  server: SimServer;
  accountsOf(userId: string): Account[];
  transactionsOf(userId: string): Transaction[];
  close(): Promise<void>;
}

const PRODUCTS: Product[] = [
  {
    productId: 'PRD-CUR-EUR',
    name: 'Everyday Current Account',
    category: 'ACCOUNT',
    currency: 'EUR',
    description: 'Current account with a debit card and instant SEPA transfers.',
    monthlyFee: '4.90',
  },
  {
    productId: 'PRD-CUR-USD',
    name: 'USD Current Account',
    category: 'ACCOUNT',
    currency: 'USD',
    description: 'Current account held in US dollars for international payments.',
    monthlyFee: '6.00',
  },
  {
    productId: 'PRD-SAV-EUR',
    name: 'Flexible Savings',
    category: 'SAVINGS',
    currency: 'EUR',
    description: 'Instant-access savings account.',
    interestRate: '2.10',
  },
  {
    productId: 'PRD-SAV-TERM12',
    name: '12-Month Term Deposit',
    category: 'SAVINGS',
    currency: 'EUR',
    description: 'Fixed rate for twelve months.',
    interestRate: '3.05',
  },
  {
    productId: 'PRD-CARD-GOLD',
    name: 'Gold Credit Card',
    category: 'CARD',
    currency: 'EUR',
    description: 'Credit card with travel insurance.',
    interestRate: '14.90',
    monthlyFee: '8.00',
  },
  {
    productId: 'PRD-LOAN-PERS',
    name: 'Personal Loan',
    category: 'LOAN',
    currency: 'EUR',
    description: 'Unsecured loan from 1,000 to 50,000 EUR over 12 to 84 months.',
    interestRate: '6.40',
  },
  {
    productId: 'PRD-FX-WALLET',
    name: 'Multi-Currency Wallet',
    category: 'FX',
    currency: 'EUR',
    description: 'Hold and exchange 30 currencies at the market rate.',
  },
];

const FIXED: Record<string, { name: string; currency: string; booked: number }[]> = {
  alice: [
    { name: 'Alice current account', currency: 'EUR', booked: 2543.17 },
    { name: 'Alice savings', currency: 'EUR', booked: 12000 },
  ],
  bob: [{ name: 'Bob current account', currency: 'USD', booked: 310.5 }],
  carol: [{ name: 'Carol current account', currency: 'GBP', booked: 9876.54 }],
};

const COUNTERPARTIES = [
  'Grocery Market',
  'City Utilities',
  'Employer Payroll',
  'Book Store',
  'Coffee House',
  'Rail Travel',
  'Insurance Co',
  'Landlord',
];

function seeded(userId: string): () => number {
  let h = createHash('sha256').update(userId).digest().readUInt32BE(0) || 1;
  return () => {
    h ^= h << 13;
    h >>>= 0;
    h ^= h >>> 17;
    h ^= h << 5;
    h >>>= 0;
    return h / 0x100000000;
  };
}

function ibanFor(userId: string, i: number): string {
  const digits = BigInt('0x' + createHash('sha256').update(`${userId}/${i}`).digest('hex').slice(0, 16))
    .toString()
    .padStart(18, '0')
    .slice(0, 18);
  const bban = '5000' + digits.slice(0, 14);
  // DE check digits (ISO 13616 mod 97)
  const num = BigInt(bban + '131400');
  const check = String(98n - (num % 97n)).padStart(2, '0');
  return `DE${check}${bban}`;
}

/**
 * The IBANs of a user's accounts. The data is derived from the user id alone, so the payment hub
 * simulator asks the same question (whose account is this?) and gets the same answer.
 */
export function ibansOfUser(userId: string): string[] {
  return build(userId).accounts.map((a) => a.iban);
}

function build(userId: string): { accounts: Account[]; transactions: Transaction[] } {
  const rnd = seeded(userId);
  const plan = FIXED[userId] ?? [
    { name: `${userId} current account`, currency: 'EUR', booked: Math.round(rnd() * 500000) / 100 },
  ];
  const accounts: Account[] = [];
  const transactions: Transaction[] = [];
  const today = Date.UTC(2025, 5, 30);
  plan.forEach((p, i) => {
    const accountId = `ACC-${createHash('sha256').update(`${userId}#${i}`).digest('hex').slice(0, 10).toUpperCase()}`;
    accounts.push({
      accountId,
      iban: ibanFor(userId, i),
      name: p.name,
      currency: p.currency,
      balance: { booked: p.booked.toFixed(2), available: (p.booked - (i === 0 ? 25 : 0)).toFixed(2) },
    });
    for (let t = 0; t < 12; t++) {
      const credit = rnd() < 0.3;
      const amount = (Math.round(rnd() * (credit ? 300000 : 15000)) / 100 + 1).toFixed(2);
      transactions.push({
        transactionId: `TX-${accountId.slice(4)}-${String(t + 1).padStart(3, '0')}`,
        accountId,
        bookingDate: new Date(today - t * 2.5 * 86_400_000).toISOString().slice(0, 10),
        amount,
        currency: p.currency,
        creditDebitIndicator: credit ? 'CRDT' : 'DBIT',
        description: credit ? 'Incoming transfer' : 'Card payment',
        counterpartyName: COUNTERPARTIES[Math.floor(rnd() * COUNTERPARTIES.length)],
      });
    }
  });
  transactions.sort((a, b) =>
    a.bookingDate < b.bookingDate
      ? 1
      : a.bookingDate > b.bookingDate
        ? -1
        : a.transactionId.localeCompare(b.transactionId),
  );
  return { accounts, transactions };
}

const USER_ID = /^[A-Za-z0-9._@|:-]{1,128}$/;

export async function startPlatformBackend(opts: PlatformBackendOptions = {}): Promise<PlatformBackend> {
  const users = new Map<string, { accounts: Account[]; transactions: Transaction[] }>();
  const of = (userId: string) => {
    let u = users.get(userId);
    if (!u) {
      u = build(userId);
      if (users.size >= 10_000) users.delete(users.keys().next().value!);
      users.set(userId, u);
    }
    return u;
  };
  const user = (req: SimRequest): string | SimResponse => {
    const h = req.headers['x-user-id'];
    const id = Array.isArray(h) ? h[0] : h;
    if (!id) return { status: 401, body: { error: 'unauthorized', message: 'X-User-Id header is required' } };
    if (!USER_ID.test(id) || id === 'anonymous')
      return { status: 403, body: { error: 'forbidden', message: 'this operation needs an identified user' } };
    return id;
  };

  const server = createSimServer({
    name: 'platform',
    port: opts.port,
    host: opts.host,
    log: opts.log,
    record: opts.record,
  });
  server
    .route('GET', '/v1/products', (req) => {
      const c = req.query.category?.toUpperCase();
      return { status: 200, body: { products: c ? PRODUCTS.filter((p) => p.category === c) : PRODUCTS } };
    })
    .route('GET', '/v1/me/accounts', (req) => {
      const id = user(req);
      if (typeof id !== 'string') return id;
      return { status: 200, body: { userId: id, accounts: of(id).accounts } };
    })
    .route('GET', '/v1/me/transactions', (req) => {
      const id = user(req);
      if (typeof id !== 'string') return id;
      const u = of(id);
      const { accountId, fromDate, toDate } = req.query;
      if (accountId && !u.accounts.some((a) => a.accountId === accountId)) {
        return { status: 404, body: { error: 'not_found', message: `no account '${accountId}'` } };
      }
      const limit = Math.min(Math.max(Number(req.query.limit ?? 50) || 50, 1), 100);
      const list = u.transactions.filter(
        (t) =>
          (!accountId || t.accountId === accountId) &&
          (!fromDate || t.bookingDate >= fromDate) &&
          (!toDate || t.bookingDate <= toDate),
      );
      return { status: 200, body: { userId: id, transactions: list.slice(0, limit), total: list.length } };
    });
  await server.start();
  return {
    get url() {
      return server.url;
    },
    server,
    accountsOf: (id) => of(id).accounts,
    transactionsOf: (id) => of(id).transactions,
    close: () => server.close(),
  };
}
