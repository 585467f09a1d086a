// Outbound webhooks from a simulator to the engine, the way vendors send them: signed the Standard
// Webhooks way (`webhook-id`, `webhook-timestamp` in unix seconds, `webhook-signature: v1,<base64
// HMAC-SHA256(secret, id.timestamp.body)>`, signed by the engine's own `sign`), at least once (a
// non-2xx answer or a network error is redelivered with the same id and body and a fresh timestamp
// and signature, after a growing pause, a bounded number of times), in order per key (the webhooks
// of one batch never overtake each other), and stoppable: close() ends pauses early, aborts calls
// in flight and sends nothing more.

import { randomUUID } from 'node:crypto';
import { sign } from '../../engine/outbound/webhook-signature.ts';

export interface WebhookAttempt {
  /** 1-based */
  attempt: number;
  /** HTTP status of the answer; 0 when there was none (network error, timeout, closed) */
  status: number;
  /** the answer body: parsed JSON, else the text; absent when empty */
  answer?: unknown;
  error?: string;
  /** ISO time the attempt started */
  at: string;
}

export interface RedeliveryPolicy {
  /** total attempts, the first included (default 4: one delivery and three redeliveries) */
  attempts?: number;
  /** pause before the first redelivery, ms (default 200) */
  delayMs?: number;
  /** each further pause is the previous one times this (default 2; 1 keeps it constant) */
  multiplier?: number;
  /** longest pause, ms (default 30000) */
  maxDelayMs?: number;
  /** per-attempt timeout, ms (default 10000) */
  timeoutMs?: number;
}

export interface WebhookSenderOptions extends RedeliveryPolicy {
  /** the simulator's name, for log lines */
  name: string;
  /** signing secret: `whsec_<base64>` or plain text */
  secret: string;
  log?: (msg: string, obj?: object) => void;
}

export interface WebhookMessage {
  /** the webhook-id (the same on every redelivery) */
  id: string;
  /** the exact body text that is signed and sent */
  body: string;
}

export interface DeliverOptions extends RedeliveryPolicy {
  /** called after each attempt, e.g. to keep a live delivery record */
  onAttempt?: (a: WebhookAttempt) => void;
}

export interface WebhookSender {
  /** signs and posts `msg` to `url` now, redelivering per the policy; resolves with every attempt */
  deliver(url: string, msg: WebhookMessage, o?: DeliverOptions): Promise<WebhookAttempt[]>;
  /** like deliver, but only once every delivery enqueued earlier under the same key is over */
  enqueue(key: string, url: string, msg: WebhookMessage, o?: DeliverOptions): Promise<WebhookAttempt[]>;
  /** resolves once every enqueued delivery so far is delivered or given up */
  idle(): Promise<void>;
  /** stops: pauses end, calls in flight are aborted, nothing more is sent */
  close(): void;
}

/** A webhook-id: `msg_` and 32 hex digits. */
export const newWebhookId = (): string => `msg_${randomUUID().replace(/-/g, '')}`;

export const isDelivered = (attempts: WebhookAttempt[]): boolean =>
  attempts.some((a) => a.status >= 200 && a.status < 300);

/** The pause before attempt `attempt` (2, 3, ...) under a policy. */
export function redeliveryDelay(p: RedeliveryPolicy, attempt: number): number {
  const first = p.delayMs ?? 200;
  return Math.min(first * (p.multiplier ?? 2) ** (attempt - 2), p.maxDelayMs ?? 30_000);
}

export function createWebhookSender(opts: WebhookSenderOptions): WebhookSender {
  const log = opts.log ?? (() => {});
  const stop = new AbortController();
  const sleepers = new Set<() => void>();
  const chains = new Map<string, Promise<unknown>>();
  const pending = new Set<Promise<unknown>>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        sleepers.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      t.unref();
      sleepers.add(done);
    });

  async function attemptOnce(
    url: string,
    msg: WebhookMessage,
    attempt: number,
    timeoutMs: number,
  ): Promise<WebhookAttempt> {
    const ts = Math.floor(Date.now() / 1000);
    const a: WebhookAttempt = { attempt, status: 0, at: new Date().toISOString() };
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': msg.id,
          'webhook-timestamp': String(ts),
          'webhook-signature': sign(opts.secret, msg.id, ts, msg.body),
        },
        body: msg.body,
        signal: AbortSignal.any([stop.signal, AbortSignal.timeout(timeoutMs)]),
      });
      a.status = res.status;
      const text = await res.text();
      if (text) {
        try {
          a.answer = JSON.parse(text);
        } catch {
          a.answer = text;
        }
      }
    } catch (e) {
      a.status = 0;
      a.error = e instanceof Error ? e.message : String(e);
      log(`${opts.name}: webhook delivery failed`, { url, webhookId: msg.id, attempt, err: a.error });
    }
    return a;
  }

  async function deliver(url: string, msg: WebhookMessage, o: DeliverOptions = {}): Promise<WebhookAttempt[]> {
    const p: RedeliveryPolicy = { ...opts, ...stripUndefined(o) };
    const attempts = Math.max(1, p.attempts ?? 4);
    const out: WebhookAttempt[] = [];
    for (let n = 1; n <= attempts && !stop.signal.aborted; n++) {
      if (n > 1) {
        await sleep(redeliveryDelay(p, n));
        if (stop.signal.aborted) break;
      }
      const a = await attemptOnce(url, msg, n, p.timeoutMs ?? 10_000);
      out.push(a);
      o.onAttempt?.(a);
      if (a.status >= 200 && a.status < 300) break;
    }
    return out;
  }

  return {
    deliver,
    enqueue(key, url, msg, o) {
      const prev = chains.get(key) ?? Promise.resolve();
      const p = prev.then(() => deliver(url, msg, o));
      const settled = p.then(
        () => undefined,
        () => undefined,
      );
      chains.set(key, settled);
      pending.add(settled);
      void settled.then(() => {
        pending.delete(settled);
        if (chains.get(key) === settled) chains.delete(key);
      });
      return p;
    },
    async idle() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
    close() {
      stop.abort();
      for (const wake of [...sleepers]) wake();
    },
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
