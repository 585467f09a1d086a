// Payment orders: create (or only validate and price with ?validate_only=true), read, modify, cancel.
// The id later calls use is `paymentInstruction.instructionId`; instructionReference echoes the
// request's endToEndReference.

import type { SimHandler } from '../lib/sim-server.ts';
import { priceOrder } from './charges.ts';
import { businessError, HUB_ERROR_CODES as C, hubRoute, requestBody, success } from './envelope.ts';
import { checkIdempotency, REPLAYED_HEADER } from './idempotency.ts';
import type { PaymentLifecycle } from './lifecycle.ts';
import { HUBVENDOR_QUERY } from './paths.ts';
import { checkPaymentOrder, FieldErrors, type PaymentOrderFields } from './payment-validation.ts';
import type { HubState, PaymentOrder } from './state.ts';
import { assertOwnDebitAccount, userOf, visibleTo } from './owner.ts';
import type { SimRequest } from '../lib/sim-server.ts';

/** Fields a modification may change; the others identify the payment and must stay as they are. */
const MODIFIABLE = new Set([
  'amount',
  'executionDate',
  'beneficiaryIBAN',
  'beneficiaryAccountId',
  'beneficiaryBIC',
  'accountWithBankBIC',
  'beneficiaryName',
  'orderingCustomerName',
  'chargeBearer',
  'narratives',
]);
const FIXED = [
  'paymentOrderProductId',
  'debitAccountId',
  'debitAccountIBAN',
  'paymentCurrencyId',
  'endToEndReference',
] as const;

function orderView(o: PaymentOrder) {
  const {
    paymentOrderId,
    instructionReference,
    status,
    statusReasonCode,
    statusHistory,
    createdAt,
    modifiedAt,
    ownerUserId,
    ...fields
  } = o;
  void ownerUserId;
  return {
    paymentInstruction: { instructionId: paymentOrderId, instructionReference },
    paymentStatus: status,
    statusReasonCode,
    ...fields,
    ...priceOrder(fields),
    statusHistory,
    createdAt,
    ...(modifiedAt !== undefined && { modifiedAt }),
  };
}

function fieldsOf(o: PaymentOrder): PaymentOrderFields {
  const {
    paymentOrderId,
    instructionReference,
    status,
    statusReasonCode,
    statusHistory,
    createdAt,
    modifiedAt,
    ownerUserId,
    ...fields
  } = o;
  void ownerUserId;
  return fields;
}

export function paymentOrderHandlers(state: HubState, lifecycle: PaymentLifecycle) {
  const find = (id: string, req: SimRequest): PaymentOrder => {
    const o = state.paymentOrders.get(id);
    if (!o || !visibleTo(req, o.ownerUserId))
      throw businessError(
        404,
        [{ fieldName: 'paymentOrderId', code: C.orderNotFound, message: `payment order ${id} not found` }],
        id,
      );
    return o;
  };

  /** Only an ACCEPTED order can still change. */
  const assertOpen = (o: PaymentOrder): void => {
    if (o.status === 'ACCEPTED') return;
    const why = {
      CANCELLED: 'order already cancelled',
      PROCESSED: 'order already processed',
      REJECTED: 'order was rejected',
    }[o.status];
    throw businessError(
      409,
      [{ fieldName: 'paymentOrderId', code: C.orderStateConflict, message: why }],
      o.paymentOrderId,
    );
  };

  const create: SimHandler = hubRoute((req) => {
    const b = requestBody(req);
    if (req.query[HUBVENDOR_QUERY.validateOnly] === 'true') {
      const fields = checkPaymentOrder(b, { debitAccountRequired: true, now: req.receivedAt });
      assertOwnDebitAccount(req, fields);
      // validation stores nothing
      return success(
        req,
        { validationStatus: 'VALID', ...fields, ...priceOrder(fields) },
        { transactionStatus: 'Validated' },
      );
    }

    const idem = checkIdempotency(req, state, 'po', b, (id) => state.paymentOrders.has(id));
    if (idem.replayOf !== undefined) {
      const o = find(idem.replayOf, req);
      return success(req, orderView(o), {
        id: o.paymentOrderId,
        transactionStatus: 'Live',
        headers: { [REPLAYED_HEADER]: 'true' },
      });
    }

    const fields = checkPaymentOrder(b, { debitAccountRequired: true, now: req.receivedAt });
    assertOwnDebitAccount(req, fields);
    const id = state.newPaymentOrderId(req.receivedAt);
    const order: PaymentOrder = {
      ...fields,
      paymentOrderId: id,
      instructionReference: fields.endToEndReference ?? 'NOTPROVIDED',
      status: 'ACCEPTED',
      statusReasonCode: null,
      statusHistory: [],
      createdAt: new Date(req.receivedAt).toISOString(),
      ...(userOf(req) !== undefined && { ownerUserId: userOf(req) }),
      ...(typeof req.headers.traceparent === 'string' && { traceparent: req.headers.traceparent }),
    };
    state.paymentOrders.set(id, order);
    state.paymentOrdersCreated++;
    if (idem.key !== undefined) state.rememberIdempotent(idem.scope, idem.key, id, idem.fingerprint);
    lifecycle.accept(order);
    return success(req, orderView(order), { status: 201, id, transactionStatus: 'Live' });
  });

  const get: SimHandler = hubRoute((req) => {
    const o = find(req.params.paymentOrderId!, req);
    return success(req, orderView(o), { id: o.paymentOrderId, transactionStatus: 'Live' });
  });

  const modify: SimHandler = hubRoute((req) => {
    const o = find(req.params.paymentOrderId!, req);
    const b = requestBody(req);
    assertOpen(o);
    const errs = new FieldErrors();
    for (const f of FIXED) {
      if (b[f] !== undefined && b[f] !== o[f]) errs.add(f, C.notModifiable, `${f} cannot be modified`);
    }
    const merged: Record<string, unknown> = { ...fieldsOf(o) };
    for (const [k, v] of Object.entries(b)) if (MODIFIABLE.has(k)) merged[k] = v;
    const fields = checkPaymentOrder(merged, { debitAccountRequired: true, now: req.receivedAt }, errs);
    const { paymentOrderId, instructionReference, status, statusReasonCode, statusHistory, createdAt, ownerUserId } = o;
    // replace rather than assign, so a field set to null is really removed
    const updated: PaymentOrder = {
      ...fields,
      paymentOrderId,
      instructionReference,
      status,
      statusReasonCode,
      statusHistory,
      createdAt,
      modifiedAt: new Date(req.receivedAt).toISOString(),
      ...(ownerUserId !== undefined && { ownerUserId }),
    };
    state.paymentOrders.set(paymentOrderId, updated);
    return success(req, orderView(updated), { id: paymentOrderId, transactionStatus: 'Live' });
  });

  const cancel: SimHandler = hubRoute((req) => {
    const o = find(req.params.paymentOrderId!, req);
    requestBody(req, false); // a body is optional, but must be an envelope when sent
    assertOpen(o);
    lifecycle.setStatus(o, 'CANCELLED');
    return success(req, orderView(o), { id: o.paymentOrderId, transactionStatus: 'Reversed' });
  });

  return { create, get, modify, cancel };
}
