// The R25-style response envelope: `{header: {id, status: "success", transactionStatus?, audit}, body}`
// and `{header: {id, status: "failed", audit}, error: {type, errorDetails: [...]}}`. Handlers throw
// HubError; `hubRoute` turns it into the error envelope so each handler reads as the happy path.

import { randomUUID } from 'node:crypto';
import type { SimHandler, SimRequest, SimResponse } from '../lib/sim-server.ts';

export type HubErrorType = 'BUSINESS' | 'TECHNICAL';

export interface ErrorDetail {
  fieldName: string;
  code: string;
  message: string;
}

/** Error codes the simulator answers with (vendor codes the connector maps to platform codes). */
export const HUB_ERROR_CODES = {
  badEnvelope: 'HUB-REQ-400',
  mandatory: 'HUB-VAL-MANDATORY',
  format: 'HUB-VAL-FORMAT',
  fxBadRequest: 'HUB-FX-400',
  fxUnknownCurrency: 'HUB-FX-404',
  unsupportedCurrency: 'HUB-PO-CCY',
  unknownProduct: 'HUB-PO-PRODUCT',
  invalidIban: 'HUB-PO-IBAN',
  invalidBic: 'HUB-PO-BIC',
  sepaRule: 'HUB-PO-SEPA',
  pastDate: 'HUB-PO-DATE',
  notModifiable: 'HUB-PO-NOCHANGE',
  debitAccountNotOwned: 'HUB-PO-ACCOUNT',
  userNotAllowed: 'HUB-AUTH-403',
  orderNotFound: 'HUB-PO-404',
  orderStateConflict: 'HUB-PO-409',
  duplicateReference: 'HUB-PO-DUP',
  standingOrderNotFound: 'HUB-SO-404',
  standingOrderStateConflict: 'HUB-SO-409',
  directoryBadRequest: 'HUB-BD-400',
  directoryNotFound: 'HUB-BD-404',
  internal: 'HUB-TEC-500',
} as const;

export class HubError extends Error {
  constructor(
    readonly status: number,
    readonly type: HubErrorType,
    readonly details: ErrorDetail[],
    readonly id?: string,
  ) {
    super(details.map((d) => `${d.fieldName}: ${d.message}`).join('; '));
  }
}

export const businessError = (status: number, details: ErrorDetail[], id?: string) =>
  new HubError(status, 'BUSINESS', details, id);

function audit(receivedAt: number) {
  return { T24_time: Date.now() - receivedAt, versionNumber: 'R25', requestParse_time: 0, responseParse_time: 0 };
}

export interface SuccessOptions {
  status?: number;
  /** record id; a request id when absent */
  id?: string;
  /** on transactions: Live, Validated, Reversed */
  transactionStatus?: string;
  /** extra header fields (pagination) */
  header?: Record<string, unknown>;
  headers?: SimResponse['headers'];
}

export function success(req: SimRequest, body: unknown, o: SuccessOptions = {}): SimResponse {
  const header: Record<string, unknown> = { id: o.id ?? randomUUID(), status: 'success' };
  if (o.transactionStatus !== undefined) header.transactionStatus = o.transactionStatus;
  if (o.header) Object.assign(header, o.header);
  header.audit = audit(req.receivedAt);
  return { status: o.status ?? 200, body: { header, body }, headers: o.headers };
}

function failure(req: SimRequest, e: HubError): SimResponse {
  return {
    status: e.status,
    body: {
      header: { id: e.id ?? randomUUID(), status: 'failed', audit: audit(req.receivedAt) },
      error: { type: e.type, errorDetails: e.details },
    },
  };
}

/** Wraps a handler: HubError -> its envelope, anything else -> 500 TECHNICAL. */
export function hubRoute(handler: SimHandler): SimHandler {
  return async (req) => {
    try {
      return await handler(req);
    } catch (e) {
      if (e instanceof HubError) return failure(req, e);
      return failure(
        req,
        new HubError(500, 'TECHNICAL', [
          { fieldName: '', code: HUB_ERROR_CODES.internal, message: e instanceof Error ? e.message : String(e) },
        ]),
      );
    }
  };
}

/** The request's `body` object of the `{header, body}` envelope, or a TECHNICAL 400. */
export function requestBody(req: SimRequest, required = true): Record<string, unknown> {
  const env = req.body;
  if (env === undefined && !required) return {};
  if (typeof env !== 'object' || env === null || Array.isArray(env)) {
    throw new HubError(400, 'TECHNICAL', [
      { fieldName: '', code: HUB_ERROR_CODES.badEnvelope, message: 'request must be a JSON object {header, body}' },
    ]);
  }
  const body = (env as Record<string, unknown>).body;
  if (body === undefined && !required) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HubError(400, 'TECHNICAL', [
      { fieldName: 'body', code: HUB_ERROR_CODES.badEnvelope, message: 'request must carry a body object' },
    ]);
  }
  return body as Record<string, unknown>;
}
