// Payment order status over time. A new order is ACCEPTED; after `processingDelayMs` it becomes
// REJECTED when its amount's cents pick a rejection reason (test hooks below), otherwise PROCESSED,
// unless its executionDate is in the future (it stays ACCEPTED, warehoused, and can still be
// modified or cancelled). Every change is reported through `onPaymentStatus`, the message the
// vendor would publish on AMQP 1.0.

import type { SimLog } from '../lib/sim-server.ts';
import type { HubState, PaymentOrder, PaymentStatus } from './state.ts';
import { todayUtc } from './payment-validation.ts';

export interface PaymentStatusMessage {
  paymentOrderId: string;
  endToEndReference: string | null;
  status: PaymentStatus;
  /** ISO 20022 status reason code, e.g. AC04 */
  statusReasonCode: string | null;
  statusDateTime: string;
}

/** Amount endings that make the hub reject a payment, with their ISO 20022 reason code. */
const REJECTION_REASONS: Readonly<Record<string, string>> = {
  '.99': 'AC04', // closed account number
  '.98': 'AM04', // insufficient funds
  '.97': 'AC01', // incorrect account number
};

function rejectionReason(amount: string): string | undefined {
  const dot = amount.indexOf('.');
  return dot === -1 ? undefined : REJECTION_REASONS[amount.slice(dot).padEnd(3, '0').slice(0, 3)];
}

export interface LifecycleOptions {
  state: HubState;
  /** null: orders stay ACCEPTED until a test moves them */
  processingDelayMs: number | null;
  /** `trace`: the trace context of the request that created the order (its status messages continue it) */
  onPaymentStatus?: (msg: PaymentStatusMessage, trace?: { traceparent: string }) => void;
  log: SimLog;
}

export class PaymentLifecycle {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly o: LifecycleOptions) {}

  /** Records a status change on the order and reports it. */
  setStatus(order: PaymentOrder, status: PaymentStatus, statusReasonCode: string | null = null): void {
    const statusDateTime = new Date().toISOString();
    order.status = status;
    order.statusReasonCode = statusReasonCode;
    order.statusHistory.push({ status, statusReasonCode, statusDateTime });
    if (status !== 'ACCEPTED') this.unschedule(order.paymentOrderId);
    try {
      this.o.onPaymentStatus?.(
        {
          paymentOrderId: order.paymentOrderId,
          endToEndReference: order.endToEndReference ?? null,
          status,
          statusReasonCode,
          statusDateTime,
        },
        order.traceparent ? { traceparent: order.traceparent } : undefined,
      );
    } catch (e) {
      this.o.log('hubvendor: onPaymentStatus threw', { err: e instanceof Error ? e.message : String(e) });
    }
  }

  /** A new order: ACCEPTED now, processed later. */
  accept(order: PaymentOrder): void {
    this.setStatus(order, 'ACCEPTED');
    const delay = this.o.processingDelayMs;
    if (delay === null) return;
    const id = order.paymentOrderId;
    const timer = setTimeout(() => {
      this.timers.delete(id);
      this.process(id);
    }, delay);
    timer.unref(); // never keep a test process alive
    this.timers.set(id, timer);
  }

  private process(id: string): void {
    const order = this.o.state.paymentOrders.get(id);
    if (!order || order.status !== 'ACCEPTED') return;
    const reason = rejectionReason(order.amount);
    if (reason) this.setStatus(order, 'REJECTED', reason);
    else if (order.executionDate <= todayUtc(Date.now())) this.setStatus(order, 'PROCESSED');
  }

  unschedule(id: string): void {
    const t = this.timers.get(id);
    if (t) {
      clearTimeout(t);
      this.timers.delete(id);
    }
  }

  close(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
