// Monitoring webhooks on demand: a list update (a new alert for a monitored customer), CASE_CREATED,
// and redelivery of a sent one; signed and sent by the shared sender (../lib/webhook-sender.ts).

import type { SimLog } from '../lib/sim-server.ts';
import { createWebhookSender, isDelivered, newWebhookId } from '../lib/webhook-sender.ts';
import type { Case, Customer } from './model.ts';
import { now, SimProblem } from './problem.ts';
import type { DemoProfile } from './profiles.ts';
import type { ScreenState } from './state.ts';
import type { Delivery, StoredWebhook, WebhookPayload } from './webhooks.ts';

export interface TriggerOptions {
  /** engine webhook URL for this delivery (default: the configured one) */
  webhookUrl?: string;
  /** delivery attempts, as a vendor redelivers on non-2xx (default 1) */
  attempts?: number;
  /** pause between attempts, ms (default 500) */
  retryDelayMs?: number;
}

export interface TriggerResult {
  webhookId: string;
  payload: WebhookPayload;
  deliveries: Delivery[];
  delivered: boolean;
}

const payloadFor = (type: WebhookPayload['webhook_type'], customer: Customer, kase: Case): WebhookPayload => ({
  api_version: 'v2',
  webhook_type: type,
  case_identifier: kase.identifier,
  customer: {
    identifier: customer.identifier,
    external_identifier: customer.external_identifier,
    version: customer.version,
  },
  alert_identifiers: [...kase.alert_identifiers],
  subjects: [
    {
      type: 'person',
      identifier: customer.identifier,
      name:
        [customer.person.first_name, customer.person.last_name].filter(Boolean).join(' ') || customer.person.full_name,
    },
  ],
});

/** a list update: the customer now appears on the demo sanctions list under their own name */
function listedProfile(customer: Customer, kase: Case): DemoProfile {
  const name = {
    first: customer.person.first_name ?? '',
    last: customer.person.last_name ?? customer.person.full_name ?? '',
  };
  return {
    identifier: `PRF-LISTED-${customer.identifier}-${kase.alert_identifiers.length + 1}`,
    firstName: name.first,
    lastName: name.last,
    nationality: customer.person.nationality ?? [],
    ...(customer.person.gender === 'female' || customer.person.gender === 'male'
      ? { gender: customer.person.gender }
      : {}),
    amlTypes: ['sanction'],
    sanctions: [{ list_name: 'Demo Consolidated Sanctions List', listed_at: now().slice(0, 10) }],
  };
}

export function screenTriggers(state: ScreenState, o: { secret: string; log?: SimLog }) {
  // a trigger delivers once unless told otherwise, pausing retryDelayMs between attempts
  const sender = createWebhookSender({
    name: 'screenvendor',
    secret: o.secret,
    log: o.log,
    attempts: 1,
    delayMs: 500,
    multiplier: 1,
    timeoutMs: 15_000,
  });
  const send = async (w: StoredWebhook, t: TriggerOptions = {}): Promise<TriggerResult> => {
    const deliveries = await sender.deliver(t.webhookUrl ?? state.webhookUrl, w, {
      attempts: t.attempts,
      delayMs: t.retryDelayMs,
    });
    return { webhookId: w.id, payload: w.payload, deliveries, delivered: isDelivered(deliveries) };
  };

  const store = (payload: WebhookPayload): StoredWebhook => {
    const w = { id: newWebhookId(), payload, body: JSON.stringify(payload) };
    state.webhooks.set(w.id, w);
    if (state.webhooks.size > 10_000) state.webhooks.delete(state.webhooks.keys().next().value!);
    return w;
  };

  const customerOrFail = (identifier: string): Customer => {
    const c = state.customers.get(identifier);
    if (!c) throw new SimProblem(404, 'Not found', `customer ${identifier} does not exist`);
    return c;
  };
  const latestCase = (customer: Customer): Case => state.cases.get(customer.cases[customer.cases.length - 1]!)!;

  return {
    sender,
    async triggerListUpdate(identifier: string, t?: TriggerOptions): Promise<TriggerResult> {
      const customer = customerOrFail(identifier);
      if (!customer.monitoring.enabled)
        throw new SimProblem(409, 'Conflict', `monitoring is off for customer ${identifier}: turn it on first`);
      const kase = latestCase(customer);
      state.newAlert(kase, [state.riskOf(listedProfile(customer, kase), 'name_exact')]);
      return send(store(payloadFor('CASE_ALERT_LIST_UPDATED', customer, kase)), t);
    },
    async triggerCaseCreated(identifier: string, t?: TriggerOptions): Promise<TriggerResult> {
      const customer = customerOrFail(identifier);
      const kase = latestCase(customer);
      return send(store(payloadFor('CASE_CREATED', customer, kase)), t);
    },
    async redeliver(webhookId: string, t?: TriggerOptions): Promise<TriggerResult> {
      const w = state.webhooks.get(webhookId);
      if (!w) throw new SimProblem(404, 'Not found', `webhook ${webhookId} is unknown`);
      return send(w, t);
    },
  };
}
