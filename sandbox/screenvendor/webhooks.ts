// Outbound webhooks of the screenvendor simulator: the payload shapes and the sandbox secret.
// Signing, delivery and redelivery are the shared sender's (../lib/webhook-sender.ts).

import type { WebhookAttempt } from '../lib/webhook-sender.ts';

/** The sandbox signing secret; equals `screenvendor-webhook-secret` in values/environments/sandbox.yaml. */
export const SANDBOX_WEBHOOK_SECRET = 'whsec_c2FuZGJveC1zY3JlZW52ZW5kb3Itd2ViaG9vay1zZWNyZXQ=';

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

/** One delivery attempt: `{attempt, status (0: no answer), answer?, error?, at}`. */
export type Delivery = WebhookAttempt;
