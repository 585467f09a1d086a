// Outbound webhooks: batch and payment status changes, signed and sent in order per batch by the
// shared sender (../lib/webhook-sender.ts); every delivery is kept for tests.

import type { SimLog } from '../lib/sim-server.ts';
import { createWebhookSender, newWebhookId, type WebhookAttempt } from '../lib/webhook-sender.ts';
import {
  type Batch,
  type BatchStatus,
  type Payment,
  WEBHOOK_BATCH_STATUS_PATH,
  WEBHOOK_PAYMENT_STATUS_PATH,
} from './model.ts';
import type { AchState } from './state.ts';

export interface WebhookDelivery {
  kind: 'batch-status' | 'payment-status';
  url: string;
  webhookId: string;
  body: Record<string, unknown>;
  /** HTTP status of each attempt (0: no answer) */
  attempts: number[];
  delivered: boolean;
}

export type AchWebhooks = ReturnType<typeof achWebhooks>;

export function achWebhooks(state: AchState, o: { secret: string; retries: number; log: SimLog }) {
  // 200 ms before the first redelivery, doubling
  const sender = createWebhookSender({
    name: 'achvendor',
    secret: o.secret,
    log: o.log,
    attempts: o.retries + 1,
    delayMs: 200,
    multiplier: 2,
    timeoutMs: 10_000,
  });

  /** A delivery record, kept live as attempts happen; the message when there is somewhere to send it. */
  function record(kind: WebhookDelivery['kind'], body: Record<string, unknown>) {
    const path = kind === 'batch-status' ? WEBHOOK_BATCH_STATUS_PATH : WEBHOOK_PAYMENT_STATUS_PATH;
    const base = state.webhookBase;
    const d: WebhookDelivery = {
      kind,
      url: base ? base.replace(/\/$/, '') + path : '',
      webhookId: newWebhookId(),
      body,
      attempts: [],
      delivered: false,
    };
    state.deliveries.push(d);
    if (state.deliveries.length > 10_000) state.deliveries.shift();
    const onAttempt = (a: WebhookAttempt) => {
      d.attempts.push(a.status);
      if (a.status >= 200 && a.status < 300) d.delivered = true;
    };
    return { d, msg: { id: d.webhookId, body: JSON.stringify(body) }, onAttempt };
  }

  async function deliver(kind: WebhookDelivery['kind'], body: Record<string, unknown>): Promise<WebhookDelivery> {
    const { d, msg, onAttempt } = record(kind, body);
    if (d.url) await sender.deliver(d.url, msg, { onAttempt });
    return d;
  }

  /** the webhooks of one batch go out in order */
  function queue(batchId: string, kind: WebhookDelivery['kind'], body: Record<string, unknown>): void {
    const { d, msg, onAttempt } = record(kind, body);
    if (d.url) void sender.enqueue(batchId, d.url, msg, { onAttempt });
  }

  return {
    sender,
    deliver,
    batch: (b: Batch, previous: BatchStatus | undefined) => queue(b.batch_id, 'batch-status', batchBody(b, previous)),
    payments(b: Batch, payments: Payment[]): void {
      if (payments.length) queue(b.batch_id, 'payment-status', paymentBody(b, payments));
    },
  };
}

function batchBody(b: Batch, previous: BatchStatus | undefined): Record<string, unknown> {
  return {
    event_type: 'BATCH_STATUS_UPDATE',
    batch_id: b.batch_id,
    batch_reference: b.batch_reference,
    status: b.status,
    ...(previous ? { previous_status: previous } : {}),
    ...(b.status_reason ? { status_reason: b.status_reason } : {}),
    entry_count: b.entry_count,
    total_credit_minor: b.total_credit_minor,
    total_debit_minor: b.total_debit_minor,
    rejected_entries: b.rejected_entries,
    updated_at: b.updated_at,
  };
}

function paymentBody(b: Batch, payments: Payment[]): Record<string, unknown> {
  return {
    event_type: 'PAYMENT_STATUS_UPDATE',
    batch_id: b.batch_id,
    batch_reference: b.batch_reference,
    payments: payments.map((p) => ({
      payment_id: p.payment_id,
      entry_reference: p.entry_reference,
      status: p.status,
      ...(p.return_code ? { return_code: p.return_code, return_reason: p.return_reason } : {}),
      amount_minor: p.amount_minor,
      transaction_code: p.transaction_code,
      updated_at: b.updated_at,
    })),
  };
}
