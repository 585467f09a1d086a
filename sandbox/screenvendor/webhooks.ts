// Outbound webhooks of the screenvendor simulator, signed the Standard Webhooks way:
// `webhook-id`, `webhook-timestamp` (unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256
// (secret, id.timestamp.body)>`. Delivery is at-least-once: a non-2xx answer or a network error is
// retried (same id and body, fresh timestamp and signature), as a real vendor redelivers.

import { createHmac } from 'node:crypto';

/** The sandbox signing secret; equals `screenvendor-webhook-secret` in values/environments/sandbox.yaml. */
export const SANDBOX_WEBHOOK_SECRET = 'whsec_c2FuZGJveC1zY3JlZW52ZW5kb3Itd2ViaG9vay1zZWNyZXQ=';

export function signWebhook(secret: string, id: string, timestamp: number | string, body: string): string {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export interface WebhookPayload {
  api_version: 'v2';
  webhook_type: 'CASE_CREATED' | 'CASE_ALERT_LIST_UPDATED';
  case_identifier: string;
  customer: { identifier: string; external_identifier: string; version: number };
  alert_identifiers: string[];
  subjects: { type: 'person'; identifier: string; name: string }[];
}

export interface StoredWebhook {
  id: string;
  payload: WebhookPayload;
  body: string;
}

export interface Delivery {
  attempt: number;
  /** HTTP status of the engine's answer; 0 when it could not be reached */
  status: number;
  answer?: unknown;
  error?: string;
  at: string;
}

export interface DeliverOptions {
  url: string;
  secret: string;
  /** total attempts (default 1) */
  attempts?: number;
  /** pause between attempts, ms (default 500) */
  retryDelayMs?: number;
  /** per-attempt timeout, ms (default 15000) */
  timeoutMs?: number;
}

export async function deliver(w: StoredWebhook, o: DeliverOptions): Promise<Delivery[]> {
  const out: Delivery[] = [];
  const attempts = Math.max(1, o.attempts ?? 1);
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await new Promise((r) => setTimeout(r, o.retryDelayMs ?? 500));
    const ts = Math.floor(Date.now() / 1000);
    const d: Delivery = { attempt, status: 0, at: new Date().toISOString() };
    try {
      const res = await fetch(o.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': w.id,
          'webhook-timestamp': String(ts),
          'webhook-signature': signWebhook(o.secret, w.id, ts, w.body),
        },
        body: w.body,
        signal: AbortSignal.timeout(o.timeoutMs ?? 15_000),
      });
      d.status = res.status;
      const text = await res.text();
      try { d.answer = text ? JSON.parse(text) : undefined; } catch { d.answer = text; }
    } catch (e) {
      d.error = e instanceof Error ? e.message : String(e);
    }
    out.push(d);
    if (d.status >= 200 && d.status < 300) break;
  }
  return out;
}
