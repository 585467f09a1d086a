// The achvendor simulator: a batch ACH vendor on a real HTTP port. Batches move through
// RECEIVED -> VALIDATING -> ACCEPTED | REJECTED -> SUBMITTED -> SETTLED | PARTIALLY_RETURNED
// (CANCELLED only before SUBMITTED), with per-entry outcomes and NACHA returns (R01-R04), and
// every change is sent to the engine as a signed webhook (Standard Webhooks HMAC). Every call's
// headers are checked (client_key, client_requestor_reference, product, payment_channel,
// requestor_type, timestamp; idempotent_request_key on submissions). Documented in
// docs/connectors/batch-payments.md.

import { createSimServer, type SimLog, type SimRequest, type SimResponse, type SimServer } from '../lib/sim-server.ts';
import { BoundedMap } from '../lib/bounded-map.ts';
import { createWebhookSender, newWebhookId, type WebhookAttempt } from '../lib/webhook-sender.ts';
import {
  ACH_ERROR_CODES as E, achError, BATCH_CANCEL_PATH, BATCH_PATH, type Batch, type BatchStatus, CANCELLABLE, checkBatchBody,
  CONTROL_ADVANCE_PATH, CONTROL_FAIL_AFTER_ACCEPT_PATH, CONTROL_WEBHOOKS_PATH, type Entry, PAYMENT_CHANNELS, type Payment,
  plannedOutcome, PRODUCTS, REQUESTOR_TYPES, RETURN_REASONS, SANDBOX_CLIENT_KEY, SANDBOX_WEBHOOK_SECRET,
  SUBMIT_CREDIT_BATCH_PATH, SUBMIT_DEBIT_BATCH_PATH, TERMINAL, WEBHOOK_BATCH_STATUS_PATH, WEBHOOK_PAYMENT_STATUS_PATH,
} from './model.ts';

export * from './model.ts';

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

export interface WebhookDelivery {
  kind: 'batch-status' | 'payment-status';
  url: string;
  webhookId: string;
  body: Record<string, unknown>;
  /** HTTP status of each attempt (0: no answer) */
  attempts: number[];
  delivered: boolean;
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

const REQUIRED_HEADERS = ['client_requestor_reference', 'product', 'payment_channel', 'requestor_type', 'timestamp'] as const;

function header(req: SimRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The vendor's header checks: the first problem as its error body. */
function checkHeaders(req: SimRequest, clientKey: string, needsIdempotencyKey: boolean): SimResponse | undefined {
  const key = header(req, 'client_key');
  if (key === undefined || key === '') return achError(401, E.invalidClientKey, 'Invalid header client key', 'header.client_key');
  if (key !== clientKey) return achError(401, E.invalidClientKey, 'Invalid header client key', 'header.client_key');
  for (const h of REQUIRED_HEADERS) {
    if (!header(req, h)) return achError(400, E.missingHeader, `Missing mandatory header ${h}`, `header.${h}`);
  }
  if (!PRODUCTS.includes(header(req, 'product')!)) return achError(400, E.invalidHeader, 'Invalid header product', 'header.product');
  if (!PAYMENT_CHANNELS.includes(header(req, 'payment_channel')!)) return achError(400, E.invalidHeader, 'Invalid header payment_channel', 'header.payment_channel');
  if (!REQUESTOR_TYPES.includes(header(req, 'requestor_type')!)) return achError(400, E.invalidHeader, 'Invalid header requestor_type', 'header.requestor_type');
  if (Number.isNaN(Date.parse(header(req, 'timestamp')!))) return achError(400, E.invalidHeader, 'Invalid header timestamp', 'header.timestamp');
  if (needsIdempotencyKey && !header(req, 'idempotent_request_key')) return achError(400, E.missingHeader, 'Missing mandatory header idempotent_request_key', 'header.idempotent_request_key');
  return undefined;
}

const now = () => new Date().toISOString();

export async function startAchvendor(opts: AchvendorOptions = {}): Promise<Achvendor> {
  const log = opts.log ?? (() => {});
  const clientKey = opts.clientKey ?? SANDBOX_CLIENT_KEY;
  const secret = opts.webhookSecret ?? SANDBOX_WEBHOOK_SECRET;
  const retries = opts.webhookRetries ?? 3;
  let webhookBase: string | null = opts.webhookBaseUrl === undefined ? 'http://127.0.0.1:8080' : opts.webhookBaseUrl;
  let stepDelay: number | null = opts.stepDelayMs === undefined ? 1000 : opts.stepDelayMs;
  let repeatedCancel = opts.repeatedCancel ?? 'answer';
  const max = opts.maxRecords ?? 100_000;
  const batches = new BoundedMap<string, Batch>(max);
  const byReference = new BoundedMap<string, string>(max);
  const idempotency = new BoundedMap<string, { fingerprint: string; status: number; body: unknown }>(max);
  const timers = new Map<string, NodeJS.Timeout>();
  const deliveries: WebhookDelivery[] = [];
  let closed = false;
  let seq = 0;

  const server = createSimServer({ name: 'achvendor', port: opts.port, host: opts.host, log, record: opts.record });
  // 200 ms before the first redelivery, doubling
  const sender = createWebhookSender({ name: 'achvendor', secret, log, attempts: retries + 1, delayMs: 200, multiplier: 2, timeoutMs: 10_000 });

  /** A delivery record, kept live as attempts happen; the message when there is somewhere to send it. */
  function record(kind: WebhookDelivery['kind'], body: Record<string, unknown>) {
    const path = kind === 'batch-status' ? WEBHOOK_BATCH_STATUS_PATH : WEBHOOK_PAYMENT_STATUS_PATH;
    const d: WebhookDelivery = { kind, url: webhookBase ? webhookBase.replace(/\/$/, '') + path : '', webhookId: newWebhookId(), body, attempts: [], delivered: false };
    deliveries.push(d);
    if (deliveries.length > 10_000) deliveries.shift();
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

  /** "stored, then the answer was lost": a fault rule applied after the submit handler ran */
  const SUBMIT_PATHS_RE = `^(${SUBMIT_CREDIT_BATCH_PATH}|${SUBMIT_DEBIT_BATCH_PATH})$`;
  let failAfterId: string | undefined;
  function failAfterAccept(times: number, status = 503): { times: number; status: number } {
    if (failAfterId) server.removeFault(failAfterId);
    failAfterId = undefined;
    if (times > 0) {
      failAfterId = server.addFault({
        method: 'POST', path: SUBMIT_PATHS_RE, after: true, times, status,
        body: achError(status, E.unavailable, 'Service temporarily unavailable', 'gateway').body,
      }).id;
    }
    return { times, status };
  }

  function batchWebhook(b: Batch, previous: BatchStatus | undefined): void {
    queue(b.batch_id, 'batch-status', {
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
    });
  }

  function paymentWebhook(b: Batch, payments: Payment[]): void {
    if (!payments.length) return;
    queue(b.batch_id, 'payment-status', {
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
    });
  }

  function setStatus(b: Batch, status: BatchStatus, reason?: { code: string; message: string }): void {
    const previous = b.status;
    b.status = status;
    b.status_reason = reason;
    b.updated_at = now();
    b.history.push({ status, at: b.updated_at });
    log('achvendor: batch status', { batchId: b.batch_id, status });
    batchWebhook(b, previous);
  }

  function schedule(b: Batch): void {
    const t = timers.get(b.batch_id);
    if (t) clearTimeout(t);
    timers.delete(b.batch_id);
    if (stepDelay === null || TERMINAL.has(b.status) || closed) return;
    const timer = setTimeout(() => {
      timers.delete(b.batch_id);
      try { advance(b.batch_id); } catch (e) { log('achvendor: advance failed', { err: (e as Error).message }); }
    }, stepDelay);
    timer.unref();
    timers.set(b.batch_id, timer);
  }

  function advance(batchId: string): BatchStatus {
    const b = batches.get(batchId);
    if (!b) throw new Error(`achvendor: no batch ${batchId}`);
    switch (b.status) {
      case 'RECEIVED':
        setStatus(b, 'VALIDATING');
        break;
      case 'VALIDATING': {
        const rejected = b.payments.filter((p) => p.plannedReject);
        for (const p of rejected) {
          p.status = 'REJECTED';
          b.rejected_entries.push({ entry_reference: p.entry_reference, index: p.index, ...p.plannedReject! });
        }
        if (b.batch_reference.startsWith('REJECT') || rejected.length === b.payments.length) {
          for (const p of b.payments) p.status = 'REJECTED';
          setStatus(b, 'REJECTED', { code: E.batchRejected, message: rejected.length === b.payments.length ? 'Every entry of the batch was rejected' : 'The batch was rejected by the vendor risk checks' });
          paymentWebhook(b, b.payments);
        } else {
          setStatus(b, 'ACCEPTED');
          paymentWebhook(b, rejected);
        }
        break;
      }
      case 'ACCEPTED': {
        const live = b.payments.filter((p) => p.status === 'PENDING');
        for (const p of live) p.status = 'SUBMITTED';
        setStatus(b, 'SUBMITTED');
        paymentWebhook(b, live);
        break;
      }
      case 'SUBMITTED': {
        const live = b.payments.filter((p) => p.status === 'SUBMITTED');
        let returned = 0;
        for (const p of live) {
          if (p.plannedReturn) {
            p.status = 'RETURNED';
            p.return_code = p.plannedReturn;
            p.return_reason = RETURN_REASONS[p.plannedReturn];
            returned++;
          } else p.status = 'SETTLED';
        }
        setStatus(b, returned ? 'PARTIALLY_RETURNED' : 'SETTLED');
        paymentWebhook(b, live);
        break;
      }
      default:
        return b.status;
    }
    schedule(b);
    return b.status;
  }

  function submit(direction: 'credit' | 'debit') {
    return (req: SimRequest): SimResponse => {
      const bad = checkHeaders(req, clientKey, true);
      if (bad) return bad;
      const key = header(req, 'idempotent_request_key')!;
      const fingerprint = `${direction}:${JSON.stringify(req.body)}`;
      const seen = idempotency.get(key);
      if (seen) {
        if (seen.fingerprint !== fingerprint) return achError(409, E.idempotencyMismatch, 'idempotent_request_key was already used for a different request', 'header.idempotent_request_key');
        return { status: seen.status, body: seen.body, headers: { 'idempotent-replayed': 'true' } };
      }
      const invalid = checkBatchBody(req.body, direction);
      if (invalid) return invalid;
      const body = req.body as Record<string, any>;
      if (byReference.has(body.batch_reference)) {
        return achError(409, E.duplicateBatchReference, `Duplicate batch_reference ${body.batch_reference}`, 'body.batch_reference');
      }
      const entries = body.entries as Entry[];
      const at = now();
      const batchId = `ACHB-${Date.now().toString(36).toUpperCase()}-${(++seq).toString().padStart(5, '0')}`;
      const total = entries.reduce((s, e) => s + e.amount_minor, 0);
      const b: Batch = {
        batch_id: batchId,
        batch_reference: body.batch_reference,
        direction,
        sec_code: body.sec_code,
        originating_dfi: body.originating_dfi,
        status: 'RECEIVED',
        entry_count: entries.length,
        total_credit_minor: direction === 'credit' ? total : 0,
        total_debit_minor: direction === 'debit' ? total : 0,
        rejected_entries: [],
        payments: entries.map((e, i) => {
          const o = plannedOutcome(e);
          return {
            payment_id: `${batchId}-${String(i + 1).padStart(5, '0')}`,
            entry_reference: e.entry_reference,
            index: i,
            transaction_code: e.transaction_code,
            amount_minor: e.amount_minor,
            status: 'PENDING',
            ...(o.reject ? { plannedReject: o.reject } : {}),
            ...(o.returnCode ? { plannedReturn: o.returnCode } : {}),
          };
        }),
        history: [{ status: 'RECEIVED', at }],
        created_at: at,
        updated_at: at,
      };
      batches.set(batchId, b);
      byReference.set(b.batch_reference, batchId);
      const answer = {
        batch_id: batchId,
        batch_reference: b.batch_reference,
        status: b.status,
        entry_count: b.entry_count,
        total_credit_minor: b.total_credit_minor,
        total_debit_minor: b.total_debit_minor,
        rejected_entries: [],
      };
      idempotency.set(key, { fingerprint, status: 200, body: answer });
      batchWebhook(b, undefined);
      schedule(b);
      return { status: 200, body: answer };
    };
  }

  function cancel(req: SimRequest): SimResponse {
    const bad = checkHeaders(req, clientKey, false);
    if (bad) return bad;
    const id = (req.body as { batch_id?: unknown } | undefined)?.batch_id;
    if (typeof id !== 'string' || id === '') return achError(400, E.invalidBody, 'Missing field batch_id', 'body.batch_id');
    const b = batches.get(id);
    if (!b) return achError(404, E.batchNotFound, `Batch ${id} not found`, 'body.batch_id');
    if (b.status === 'CANCELLED') {
      if (repeatedCancel === 'refuse') return achError(409, E.alreadyCancelled, `Batch ${id} is already CANCELLED`, 'body.batch_id');
      return { status: 200, body: { batch_id: id, status: 'CANCELLED', previous_status: b.history.at(-2)?.status ?? 'CANCELLED' } };
    }
    if (!CANCELLABLE.has(b.status)) {
      return achError(409, E.notCancellable, `Batch ${id} is ${b.status} and can no longer be cancelled`, 'body.batch_id');
    }
    const previous = b.status;
    const live = b.payments.filter((p) => p.status === 'PENDING');
    for (const p of live) p.status = 'CANCELLED';
    setStatus(b, 'CANCELLED');
    paymentWebhook(b, live);
    schedule(b);
    return { status: 200, body: { batch_id: id, status: 'CANCELLED', previous_status: previous } };
  }

  server
    .route('POST', SUBMIT_CREDIT_BATCH_PATH, submit('credit'))
    .route('POST', SUBMIT_DEBIT_BATCH_PATH, submit('debit'))
    .route('POST', BATCH_CANCEL_PATH, cancel)
    .route('GET', BATCH_PATH, (req) => {
      const bad = checkHeaders(req, clientKey, false);
      if (bad) return bad;
      const b = batches.get(req.params.batchId!);
      return b ? { status: 200, body: b } : achError(404, E.batchNotFound, `Batch ${req.params.batchId} not found`, 'path.batchId');
    })
    .route('PUT', CONTROL_WEBHOOKS_PATH, (req) => {
      const u = (req.body as { base_url?: unknown } | undefined)?.base_url;
      if (u !== null && typeof u !== 'string') return { status: 400, body: { error: 'base_url must be a URL string or null' } };
      webhookBase = u;
      return { status: 200, body: { base_url: webhookBase } };
    })
    .route('POST', CONTROL_ADVANCE_PATH, (req) => {
      if (!batches.has(req.params.batchId!)) return { status: 404, body: { error: 'no such batch' } };
      return { status: 200, body: { batch_id: req.params.batchId, status: advance(req.params.batchId!) } };
    })
    .route('POST', CONTROL_FAIL_AFTER_ACCEPT_PATH, (req) => {
      const b = (req.body ?? {}) as { times?: unknown; status?: unknown };
      const times = b.times ?? 1;
      const status = b.status ?? 503;
      if (!Number.isInteger(times) || (times as number) < 0) return { status: 400, body: { error: 'times must be an integer >= 0' } };
      if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599) return { status: 400, body: { error: 'status must be an integer between 100 and 599' } };
      return { status: 200, body: failAfterAccept(times as number, status as number) };
    });

  const url = await server.start();
  return {
    url,
    server,
    batches,
    setWebhookBaseUrl(u) { webhookBase = u; },
    setStepDelay(ms) {
      stepDelay = ms;
      for (const b of batches.values()) schedule(b);
    },
    setRepeatedCancel(mode) { repeatedCancel = mode; },
    advance,
    failAfterAccept(times, status = 503) { failAfterAccept(times, status); },
    deliveries: () => [...deliveries],
    clearDeliveries: () => { deliveries.length = 0; },
    idle: () => sender.idle(),
    sendWebhook: (kind, body) => deliver(kind, body),
    async close() {
      closed = true;
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
      sender.close();
      await server.close();
    },
  };
}
