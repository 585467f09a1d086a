// Safe retries: a create repeated with the same `Idempotency-Key` header (or, without the header,
// the same endToEndReference) returns the order made the first time instead of a duplicate.
// Reusing a key for a different request body is a 409 BUSINESS error, as a real hub refuses a
// duplicate end-to-end reference.

import type { SimRequest } from '../lib/sim-server.ts';
import { businessError, HUB_ERROR_CODES } from './envelope.ts';
import { userOf } from './owner.ts';
import type { HubState } from './state.ts';

const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

export interface IdempotencyCheck {
  /** where the key is remembered: per platform user, so users neither see nor block each other */
  scope: string;
  key: string | undefined;
  fingerprint: string;
  /** the id made by an earlier identical request */
  replayOf: string | undefined;
}

export function checkIdempotency(
  req: SimRequest,
  state: HubState,
  scope: string,
  body: Record<string, unknown>,
  exists: (id: string) => boolean,
): IdempotencyCheck {
  const header = req.headers[IDEMPOTENCY_HEADER];
  const e2e = body.endToEndReference;
  const key =
    typeof header === 'string' && header !== ''
      ? header
      : typeof e2e === 'string' && e2e !== ''
        ? `e2e:${e2e}`
        : undefined;
  const fingerprint = JSON.stringify(body);
  const user = userOf(req);
  const scoped = user === undefined ? scope : `${scope}|user:${user}`;
  if (key === undefined) return { scope: scoped, key, fingerprint, replayOf: undefined };
  const seen = state.findIdempotent(scoped, key);
  if (!seen || !exists(seen.id)) return { scope: scoped, key, fingerprint, replayOf: undefined };
  if (seen.fingerprint !== fingerprint) {
    const field = key.startsWith('e2e:') ? 'endToEndReference' : IDEMPOTENCY_HEADER;
    throw businessError(409, [
      {
        fieldName: field,
        code: HUB_ERROR_CODES.duplicateReference,
        message: `${field} already used by ${seen.id} for a different request`,
      },
    ]);
  }
  return { scope: scoped, key, fingerprint, replayOf: seen.id };
}
