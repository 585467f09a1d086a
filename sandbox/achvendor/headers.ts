// The vendor's header checks on every call (client_key first, then the mandatory headers).

import type { SimRequest, SimResponse } from '../lib/sim-server.ts';
import { ACH_ERROR_CODES as E, achError, PAYMENT_CHANNELS, PRODUCTS, REQUESTOR_TYPES } from './model.ts';

const REQUIRED_HEADERS = [
  'client_requestor_reference',
  'product',
  'payment_channel',
  'requestor_type',
  'timestamp',
] as const;

export function header(req: SimRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The vendor's header checks: the first problem as its error body. */
export function checkHeaders(
  req: SimRequest,
  clientKey: string,
  needsIdempotencyKey: boolean,
): SimResponse | undefined {
  const key = header(req, 'client_key');
  if (key === undefined || key === '')
    return achError(401, E.invalidClientKey, 'Invalid header client key', 'header.client_key');
  if (key !== clientKey) return achError(401, E.invalidClientKey, 'Invalid header client key', 'header.client_key');
  for (const h of REQUIRED_HEADERS) {
    if (!header(req, h)) return achError(400, E.missingHeader, `Missing mandatory header ${h}`, `header.${h}`);
  }
  if (!PRODUCTS.includes(header(req, 'product')!))
    return achError(400, E.invalidHeader, 'Invalid header product', 'header.product');
  if (!PAYMENT_CHANNELS.includes(header(req, 'payment_channel')!))
    return achError(400, E.invalidHeader, 'Invalid header payment_channel', 'header.payment_channel');
  if (!REQUESTOR_TYPES.includes(header(req, 'requestor_type')!))
    return achError(400, E.invalidHeader, 'Invalid header requestor_type', 'header.requestor_type');
  if (Number.isNaN(Date.parse(header(req, 'timestamp')!)))
    return achError(400, E.invalidHeader, 'Invalid header timestamp', 'header.timestamp');
  if (needsIdempotencyKey && !header(req, 'idempotent_request_key'))
    return achError(
      400,
      E.missingHeader,
      'Missing mandatory header idempotent_request_key',
      'header.idempotent_request_key',
    );
  return undefined;
}
