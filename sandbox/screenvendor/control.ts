// Simulator controls, not part of the vendor API (/__screenvendor/*): the webhook triggers and
// the webhook URL; no API key, problems answered as problem JSON.

import type { SimServer } from '../lib/sim-server.ts';
import { problems, SimProblem } from './problem.ts';
import type { ScreenState } from './state.ts';
import type { screenTriggers, TriggerOptions } from './triggers.ts';

const triggerOpts = (b: any): TriggerOptions => ({
  webhookUrl: typeof b?.webhookUrl === 'string' ? b.webhookUrl : undefined,
  attempts: Number.isInteger(b?.attempts) ? b.attempts : undefined,
  retryDelayMs: typeof b?.retryDelayMs === 'number' ? b.retryDelayMs : undefined,
});

const needCustomer = (b: any): string => {
  if (typeof b?.customer_identifier !== 'string')
    throw new SimProblem(400, 'Validation error', 'customer_identifier: is required');
  return b.customer_identifier;
};

export function routeControls(
  server: SimServer,
  state: ScreenState,
  triggers: ReturnType<typeof screenTriggers>,
): void {
  server
    .route(
      'POST',
      '/__screenvendor/trigger/list-update',
      problems(async (req) => ({
        status: 200,
        body: await triggers.triggerListUpdate(needCustomer(req.body), triggerOpts(req.body)),
      })),
    )
    .route(
      'POST',
      '/__screenvendor/trigger/case-created',
      problems(async (req) => ({
        status: 200,
        body: await triggers.triggerCaseCreated(needCustomer(req.body), triggerOpts(req.body)),
      })),
    )
    .route(
      'POST',
      '/__screenvendor/webhooks/{webhookId}/redeliver',
      problems(async (req) => ({
        status: 200,
        body: await triggers.redeliver(req.params.webhookId!, triggerOpts(req.body)),
      })),
    )
    .route('GET', '/__screenvendor/webhook-url', () => ({ status: 200, body: { url: state.webhookUrl } }))
    .route(
      'PUT',
      '/__screenvendor/webhook-url',
      problems((req) => {
        const u = (req.body as any)?.url;
        try {
          new URL(u);
        } catch {
          throw new SimProblem(400, 'Validation error', 'url: must be an absolute URL');
        }
        state.webhookUrl = u;
        return { status: 200, body: { url: state.webhookUrl } };
      }),
    );
}
