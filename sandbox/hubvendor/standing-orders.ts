// Standing (recurring) orders: POST on the account id creates one, answering its new id
// `<accountId>.<n>` in paymentInstruction.instructionId; PUT .../{standingOrderId}/cancel ends it.
// Executions of the schedule are not simulated.

import { assertOwnDebitAccount, userOf, visibleTo } from './owner.ts';
import type { SimHandler } from '../lib/sim-server.ts';
import { businessError, HUB_ERROR_CODES as C, hubRoute, requestBody, success } from './envelope.ts';
import { checkIdempotency, REPLAYED_HEADER } from './idempotency.ts';
import { checkPaymentOrder, FieldErrors, isDate, optString, reqString, todayUtc } from './payment-validation.ts';
import type { HubState, StandingOrder, StandingOrderFields } from './state.ts';

/** Named frequencies, or a T24 frequency code such as `e0Y e1M e0W e0D e0F` (every month). */
const FREQUENCIES = ['DAILY', 'WEEKLY', 'FORTNIGHTLY', 'MONTHLY', 'QUARTERLY', 'HALF_YEARLY', 'YEARLY'] as const;
const T24_FREQUENCY = /^e\d+Y e\d+M e\d+W e\d+D e\d+F$/;

function checkStandingOrder(b: Record<string, unknown>, accountId: string, now: number): StandingOrderFields {
  const errs = new FieldErrors();
  const frequency = reqString(b, 'frequency', errs, 35);
  if (frequency && !(FREQUENCIES as readonly string[]).includes(frequency) && !T24_FREQUENCY.test(frequency)) {
    errs.add('frequency', C.format, `frequency must be one of ${FREQUENCIES.join(', ')} or a T24 frequency code`);
  }
  const today = todayUtc(now);
  const startDate = reqString(b, 'startDate', errs, 10);
  if (startDate && !isDate(startDate)) errs.add('startDate', C.format, 'startDate must be a date YYYY-MM-DD');
  else if (startDate && startDate < today) errs.add('startDate', C.pastDate, `startDate ${startDate} is in the past`);
  const endDate = optString(b, 'endDate', errs, 10);
  if (endDate !== undefined && !isDate(endDate)) errs.add('endDate', C.format, 'endDate must be a date YYYY-MM-DD');
  else if (endDate !== undefined && startDate && endDate < startDate)
    errs.add('endDate', C.format, 'endDate is before startDate');
  const suppressFT = optString(b, 'suppressFT', errs, 35) ?? 'PAYMENT';
  // the account in the path is the debit account unless the body names one
  // reported above otherwise
  const firstRun = startDate && isDate(startDate) && startDate >= today ? startDate : undefined;
  const fields = checkPaymentOrder(
    { debitAccountId: accountId, ...b, executionDate: firstRun },
    { debitAccountRequired: true, now },
    errs,
  );
  return { ...fields, frequency, startDate, ...(endDate !== undefined && { endDate }), suppressFT };
}

function standingOrderView(s: StandingOrder) {
  const { standingOrderId, instructionReference, status, executionDate, ownerUserId, ...rest } = s;
  void ownerUserId;
  return {
    paymentInstruction: { instructionId: standingOrderId, instructionReference },
    standingOrderStatus: status,
    nextPaymentDate: status === 'ACTIVE' ? s.startDate : null,
    ...rest,
  };
}

export function standingOrderHandlers(state: HubState) {
  const create: SimHandler = hubRoute((req) => {
    const accountId = req.params.standingOrderId!;
    const b = requestBody(req);
    const idem = checkIdempotency(req, state, `so:${accountId}`, b, (id) => state.standingOrders.has(id));
    if (idem.replayOf !== undefined) {
      const s = state.standingOrders.get(idem.replayOf)!;
      if (!visibleTo(req, s.ownerUserId))
        throw businessError(
          404,
          [
            {
              fieldName: 'standingOrderId',
              code: C.standingOrderNotFound,
              message: `standing order ${idem.replayOf} not found`,
            },
          ],
          idem.replayOf,
        );
      return success(req, standingOrderView(s), {
        id: s.standingOrderId,
        transactionStatus: 'Live',
        headers: { [REPLAYED_HEADER]: 'true' },
      });
    }
    const fields = checkStandingOrder(b, accountId, req.receivedAt);
    assertOwnDebitAccount(req, fields);
    const id = state.newStandingOrderId(accountId);
    const so: StandingOrder = {
      ...fields,
      standingOrderId: id,
      accountId,
      instructionReference: fields.endToEndReference ?? 'NOTPROVIDED',
      status: 'ACTIVE',
      createdAt: new Date(req.receivedAt).toISOString(),
      ...(userOf(req) !== undefined && { ownerUserId: userOf(req) }),
    };
    state.standingOrders.set(id, so);
    state.standingOrdersCreated++;
    if (idem.key !== undefined) state.rememberIdempotent(idem.scope, idem.key, id, idem.fingerprint);
    return success(req, standingOrderView(so), { status: 201, id, transactionStatus: 'Live' });
  });

  const cancel: SimHandler = hubRoute((req) => {
    const id = req.params.standingOrderId!;
    requestBody(req, false);
    const so = state.standingOrders.get(id);
    if (!so || !visibleTo(req, so.ownerUserId))
      throw businessError(
        404,
        [{ fieldName: 'standingOrderId', code: C.standingOrderNotFound, message: `standing order ${id} not found` }],
        id,
      );
    if (so.status === 'CANCELLED') {
      throw businessError(
        409,
        [
          {
            fieldName: 'standingOrderId',
            code: C.standingOrderStateConflict,
            message: 'standing order already cancelled',
          },
        ],
        id,
      );
    }
    so.status = 'CANCELLED';
    so.cancelledAt = new Date(req.receivedAt).toISOString();
    return success(req, standingOrderView(so), { id, transactionStatus: 'Reversed' });
  });

  return { create, cancel };
}
