// Orders initiated for a platform user (the gateway's user-scoped tools send X-User-Id): such a
// request only ever sees that user's orders. Another user's order, or one the bank's own channel
// placed, answers exactly like an unknown one, so nobody learns which references exist; and such an
// order is debited only from one of that user's accounts (the sandbox platform backend's data).

import type { SimRequest } from '../lib/sim-server.ts';
import { ibansOfUser } from '../platform-backend/index.ts';
import { businessError, HUB_ERROR_CODES as C } from './envelope.ts';

const USER_ID_HEADER = 'x-user-id';

/** The platform's user ids (the gateway refuses tokens whose `sub` is anything else); `anonymous` is no user. */
const USER_ID = /^[A-Za-z0-9._@|:+/=-]{1,256}$/;

export function userOf(req: SimRequest): string | undefined {
  const v = req.headers[USER_ID_HEADER];
  const id = Array.isArray(v) ? v[0] : v;
  if (id === undefined || id === '') return undefined;
  if (!USER_ID.test(id) || id === 'anonymous') {
    throw businessError(403, [
      { fieldName: 'X-User-Id', code: C.userNotAllowed, message: 'not a user id this hub serves' },
    ]);
  }
  return id;
}

/** True when the request may see an order owned by `owner` (requests without a user: the bank's channel). */
export function visibleTo(req: SimRequest, owner: string | undefined): boolean {
  const user = userOf(req);
  return user === undefined || user === owner;
}

/** A user may only pay from their own accounts, identified by IBAN. */
export function assertOwnDebitAccount(req: SimRequest, fields: { debitAccountIBAN?: string }): void {
  const user = userOf(req);
  if (user === undefined) return;
  const iban = fields.debitAccountIBAN?.replace(/\s+/g, '').toUpperCase();
  if (iban !== undefined && ibansOfUser(user).includes(iban)) return;
  throw businessError(422, [
    {
      fieldName: 'debitAccountIBAN',
      code: C.debitAccountNotOwned,
      message:
        iban === undefined
          ? 'a payment for a user needs the IBAN of one of their accounts'
          : "the debit account is not one of the user's accounts",
    },
  ]);
}
