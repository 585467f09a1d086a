// The achvendor simulator: a batch ACH vendor on a real HTTP port. Batches move through
// RECEIVED -> VALIDATING -> ACCEPTED | REJECTED -> SUBMITTED -> SETTLED | PARTIALLY_RETURNED
// (CANCELLED only before SUBMITTED), with per-entry outcomes and NACHA returns (R01-R04), and
// every change is sent to the engine as a signed webhook (Standard Webhooks HMAC). Every call's
// headers are checked (client_key, client_requestor_reference, product, payment_channel,
// requestor_type, timestamp; idempotent_request_key on submissions). Documented in
// docs/connectors/batch-payments.md.
// One file per area: ./state.ts, ./headers.ts, ./submit.ts, ./cancel.ts, ./read.ts, ./lifecycle.ts,
// ./webhooks.ts, ./control.ts; paths, error codes and body checks: ./model.ts.

import { createSimServer, type SimLog, type SimServer } from '../lib/sim-server.ts';
import { cancelHandler } from './cancel.ts';
import { controlHandlers, failAfterAcceptControl } from './control.ts';
import { achLifecycle } from './lifecycle.ts';
import {
  BATCH_CANCEL_PATH,
  BATCH_PATH,
  type Batch,
  type BatchStatus,
  CONTROL_ADVANCE_PATH,
  CONTROL_FAIL_AFTER_ACCEPT_PATH,
  CONTROL_WEBHOOKS_PATH,
  SANDBOX_CLIENT_KEY,
  SANDBOX_WEBHOOK_SECRET,
  SUBMIT_CREDIT_BATCH_PATH,
  SUBMIT_DEBIT_BATCH_PATH,
} from './model.ts';
import { readHandler } from './read.ts';
import { createAchState } from './state.ts';
import { submitHandler } from './submit.ts';
import { achWebhooks, type WebhookDelivery } from './webhooks.ts';

export * from './model.ts';
export type { WebhookDelivery } from './webhooks.ts';

export interface AchvendorOptions {
  port?: number;
  host?: string;
  log?: SimLog;
  record?: boolean;
  /** the organization's client key (default: the sandbox demo value) */
  clientKey?: string;
  /** the webhook signing secret (default: the sandbox demo value of achvendor-webhook-secret) */
  webhookSecret?: string;
  /** where the engine listens; webhooks go to <base>/webhooks/...; null sends none (default http://127.0.0.1:8080) */
  webhookBaseUrl?: string | null;
  /** each lifecycle step after this long (default 1000 ms); null: only advance() moves batches */
  stepDelayMs?: number | null;
  /** redeliveries of a webhook the engine did not answer 2xx (default 3; 200 ms first delay, doubling) */
  webhookRetries?: number;
  maxRecords?: number;
  /**
   * a cancel of a cancelled batch: 'answer' CANCELLED again (default), or 'refuse' with 409
   * RSK-30-3003, as some ACH vendors do
   */
  repeatedCancel?: 'answer' | 'refuse';
}

export interface Achvendor {
  url: string;
  server: SimServer;
  batches: Map<string, Batch>;
  /** where webhooks go (the engine's base URL), null to send none */
  setWebhookBaseUrl(url: string | null): void;
  /** automatic lifecycle step delay; null: manual (advance) */
  setStepDelay(ms: number | null): void;
  /** how a cancel of a cancelled batch is answered (AchvendorOptions.repeatedCancel) */
  setRepeatedCancel(mode: 'answer' | 'refuse'): void;
  /** moves a batch one lifecycle step and sends its webhooks; returns the new status */
  advance(batchId: string): BatchStatus;
  /**
   * the next `times` submissions run (the batch is stored) but are answered `status` (default 503,
   * the vendor's unavailable body): a sim-server fault rule with `after: true`; replaces the last one
   */
  failAfterAccept(times: number, status?: number): void;
  deliveries(): WebhookDelivery[];
  clearDeliveries(): void;
  /** resolves once every webhook queued so far was delivered or given up */
  idle(): Promise<void>;
  /** signs and sends one webhook now (tests of the engine's inbound routes) */
  sendWebhook(kind: WebhookDelivery['kind'], body: Record<string, unknown>): Promise<WebhookDelivery>;
  close(): Promise<void>;
}

export async function startAchvendor(opts: AchvendorOptions = {}): Promise<Achvendor> {
  const log = opts.log ?? (() => {});
  const state = createAchState(
    {
      clientKey: opts.clientKey ?? SANDBOX_CLIENT_KEY,
      webhookBase: opts.webhookBaseUrl === undefined ? 'http://127.0.0.1:8080' : opts.webhookBaseUrl,
      stepDelay: opts.stepDelayMs === undefined ? 1000 : opts.stepDelayMs,
      repeatedCancel: opts.repeatedCancel ?? 'answer',
    },
    opts.maxRecords ?? 100_000,
  );
  const server = createSimServer({ name: 'achvendor', port: opts.port, host: opts.host, log, record: opts.record });
  const webhooks = achWebhooks(state, {
    secret: opts.webhookSecret ?? SANDBOX_WEBHOOK_SECRET,
    retries: opts.webhookRetries ?? 3,
    log,
  });
  const lifecycle = achLifecycle(state, webhooks, log);
  const failAfterAccept = failAfterAcceptControl(server);
  const control = controlHandlers(state, lifecycle, failAfterAccept);

  server
    .route('POST', SUBMIT_CREDIT_BATCH_PATH, submitHandler('credit', state, webhooks, lifecycle))
    .route('POST', SUBMIT_DEBIT_BATCH_PATH, submitHandler('debit', state, webhooks, lifecycle))
    .route('POST', BATCH_CANCEL_PATH, cancelHandler(state, webhooks, lifecycle))
    .route('GET', BATCH_PATH, readHandler(state))
    .route('PUT', CONTROL_WEBHOOKS_PATH, control.webhooks)
    .route('POST', CONTROL_ADVANCE_PATH, control.advance)
    .route('POST', CONTROL_FAIL_AFTER_ACCEPT_PATH, control.failAfterAccept);

  const url = await server.start();
  return {
    url,
    server,
    batches: state.batches,
    setWebhookBaseUrl(u) {
      state.webhookBase = u;
    },
    setStepDelay(ms) {
      state.stepDelay = ms;
      for (const b of state.batches.values()) lifecycle.schedule(b);
    },
    setRepeatedCancel(mode) {
      state.repeatedCancel = mode;
    },
    advance: lifecycle.advance,
    failAfterAccept(times, status = 503) {
      failAfterAccept(times, status);
    },
    deliveries: () => [...state.deliveries],
    clearDeliveries: () => {
      state.deliveries.length = 0;
    },
    idle: () => webhooks.sender.idle(),
    sendWebhook: (kind, body) => webhooks.deliver(kind, body),
    async close() {
      state.closed = true;
      for (const t of state.timers.values()) clearTimeout(t);
      state.timers.clear();
      webhooks.sender.close();
      await server.close();
    },
  };
}
