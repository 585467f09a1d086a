// In-memory records of one hubvendor instance (never module-level, so tests can run several).
// Bounded: a benchmark creating orders at full speed evicts the oldest instead of growing forever.

import { BoundedMap } from '../lib/bounded-map.ts';
import type { PaymentOrderFields } from './payment-validation.ts';

export type PaymentStatus = 'ACCEPTED' | 'PROCESSED' | 'REJECTED' | 'CANCELLED';
export type StandingOrderStatus = 'ACTIVE' | 'CANCELLED';

export interface StatusChange {
  status: PaymentStatus;
  statusReasonCode: string | null;
  statusDateTime: string;
}

export interface PaymentOrder extends PaymentOrderFields {
  paymentOrderId: string;
  /** endToEndReference, or NOTPROVIDED (the ISO 20022 convention) */
  instructionReference: string;
  status: PaymentStatus;
  statusReasonCode: string | null;
  statusHistory: StatusChange[];
  createdAt: string;
  modifiedAt?: string;
  /** the platform user the order was initiated for (X-User-Id), never shown in answers */
  ownerUserId?: string;
  /** the W3C trace context of the request that created it, passed on with its status messages */
  traceparent?: string;
}

export interface StandingOrderFields extends PaymentOrderFields {
  frequency: string;
  startDate: string;
  endDate?: string;
  suppressFT: string;
}

export interface StandingOrder extends StandingOrderFields {
  standingOrderId: string;
  /** the account (arrangement) id from the creation path */
  accountId: string;
  instructionReference: string;
  status: StandingOrderStatus;
  createdAt: string;
  cancelledAt?: string;
  /** the platform user the order was initiated for (X-User-Id), never shown in answers */
  ownerUserId?: string;
  /** the W3C trace context of the request that created it, passed on with its status messages */
  traceparent?: string;
}

interface IdempotencyEntry {
  id: string;
  /** the request body, to refuse a reused key with a different payment */
  fingerprint: string;
}

export class HubState {
  readonly paymentOrders: BoundedMap<string, PaymentOrder>;
  readonly standingOrders: BoundedMap<string, StandingOrder>;
  private readonly idempotency: BoundedMap<string, IdempotencyEntry>;
  private readonly standingOrderSeq: BoundedMap<string, number>;
  private paymentOrderSeq = 0;
  /** distinct orders ever created (eviction does not lower it) */
  paymentOrdersCreated = 0;
  standingOrdersCreated = 0;

  constructor(maxRecords: number) {
    this.paymentOrders = new BoundedMap(maxRecords);
    this.standingOrders = new BoundedMap(maxRecords);
    this.idempotency = new BoundedMap(maxRecords * 2);
    this.standingOrderSeq = new BoundedMap(maxRecords);
  }

  /** `PO` + YYYYMMDD + a 6-digit counter, e.g. PO20250614000001 */
  newPaymentOrderId(now: number): string {
    this.paymentOrderSeq++;
    return `PO${new Date(now).toISOString().slice(0, 10).replaceAll('-', '')}${String(this.paymentOrderSeq).padStart(6, '0')}`;
  }

  /** `<accountId>.<n>`, the T24 standing order key */
  newStandingOrderId(accountId: string): string {
    let n = this.standingOrderSeq.get(accountId) ?? 0;
    let id: string;
    do id = `${accountId}.${++n}`;
    while (this.standingOrders.has(id));
    this.standingOrderSeq.set(accountId, n);
    return id;
  }

  findIdempotent(scope: string, key: string): IdempotencyEntry | undefined {
    return this.idempotency.get(`${scope}:${key}`);
  }

  rememberIdempotent(scope: string, key: string, id: string, fingerprint: string): void {
    this.idempotency.set(`${scope}:${key}`, { id, fingerprint });
  }
}
