// The screenvendor simulator: a v2 screening API (problem-JSON errors) on a real HTTP port, with
// stateful customers, cases, alerts, paged risks, decisions, mutes and the monitoring flag.
// Results depend on the screened name (./profiles.ts). Monitoring list updates are triggered over
// `/__screenvendor/*` and sent to the engine as signed webhooks (./triggers.ts). Fault injection
// and request recording come from the sim server (`/__sandbox/faults`, `/__sandbox/requests`).
// The shapes it answers with are the ones the connector maps (routes/screenvendor-screening/*.jsonata); the
// connector's page: docs/connectors/screening.md.
// One file per area: ./screening.ts, ./risks.ts, ./decisions.ts, ./mutes.ts, ./customers.ts,
// ./triggers.ts (webhooks), ./control.ts; records: ./state.ts; paths and shapes: ./model.ts.

import { createSimServer, type SimLog, type SimServer } from '../lib/sim-server.ts';
import { routeControls } from './control.ts';
import { getCustomerHandler, monitorHandler } from './customers.ts';
import { decideHandler } from './decisions.ts';
import {
  ALERT_MUTES_PATH,
  ALERT_RISKS_PATH,
  type Alert,
  type Case,
  CREATE_AND_SCREEN_PATH,
  type Customer,
  CUSTOMER_MONITOR_PATH,
  CUSTOMER_PATH,
  type Mute,
  RISK_DECISION_PATH,
  SANDBOX_API_KEY,
} from './model.ts';
import { muteHandler } from './mutes.ts';
import { guarded } from './problem.ts';
import { listRisksHandler } from './risks.ts';
import { createAndScreenHandler } from './screening.ts';
import { createScreenState } from './state.ts';
import { screenTriggers, type TriggerOptions, type TriggerResult } from './triggers.ts';
import { SANDBOX_WEBHOOK_SECRET } from './webhooks.ts';

export * from './model.ts';
export { SANDBOX_WEBHOOK_SECRET } from './webhooks.ts';
export type { TriggerOptions, TriggerResult } from './triggers.ts';

export interface ScreenvendorOptions {
  port?: number;
  host?: string;
  log?: SimLog;
  record?: boolean;
  /** the API key expected in `x-api-key` (default the sandbox key) */
  apiKey?: string;
  /** the webhook signing secret (default the sandbox secret, as in values/environments/sandbox.yaml) */
  webhookSecret?: string;
  /** where webhooks go unless a trigger names a URL (default http://127.0.0.1:8080/webhooks/screening) */
  webhookUrl?: string;
}

export interface Screenvendor {
  url: string;
  server: SimServer;
  customers: Map<string, Customer>;
  cases: Map<string, Case>;
  alerts: Map<string, Alert>;
  mutes: Map<string, Mute>;
  webhookUrl: string;
  webhookSecret: string;
  setWebhookUrl(url: string): void;
  /** adds a newly listed profile to a monitored customer and sends CASE_ALERT_LIST_UPDATED */
  triggerListUpdate(customerIdentifier: string, o?: TriggerOptions): Promise<TriggerResult>;
  /** sends CASE_CREATED for the customer's latest case */
  triggerCaseCreated(customerIdentifier: string, o?: TriggerOptions): Promise<TriggerResult>;
  /** sends a webhook again: same id and body, fresh timestamp and signature */
  redeliver(webhookId: string, o?: TriggerOptions): Promise<TriggerResult>;
  close(): Promise<void>;
}

export async function startScreenvendor(opts: ScreenvendorOptions = {}): Promise<Screenvendor> {
  const apiKey = opts.apiKey ?? SANDBOX_API_KEY;
  const secret = opts.webhookSecret ?? SANDBOX_WEBHOOK_SECRET;
  const server = createSimServer({
    name: 'screenvendor',
    port: opts.port,
    host: opts.host,
    log: opts.log,
    record: opts.record,
  });
  const state = createScreenState(opts.webhookUrl ?? 'http://127.0.0.1:8080/webhooks/screening');

  server
    .route('POST', CREATE_AND_SCREEN_PATH, guarded(apiKey, createAndScreenHandler(state)))
    .route('GET', ALERT_RISKS_PATH, guarded(apiKey, listRisksHandler(state)))
    .route('POST', RISK_DECISION_PATH, guarded(apiKey, decideHandler(state)))
    .route('POST', ALERT_MUTES_PATH, guarded(apiKey, muteHandler(state)))
    .route('PATCH', CUSTOMER_MONITOR_PATH, guarded(apiKey, monitorHandler(state)))
    .route('GET', CUSTOMER_PATH, guarded(apiKey, getCustomerHandler(state)));

  const triggers = screenTriggers(state, { secret, log: opts.log });
  routeControls(server, state, triggers);

  const url = await server.start();
  // the key order and the read-only webhookUrl getter are the ones the simulator always had
  const sim = {} as Screenvendor;
  sim.triggerListUpdate = triggers.triggerListUpdate;
  sim.triggerCaseCreated = triggers.triggerCaseCreated;
  sim.redeliver = triggers.redeliver;
  Object.assign(sim, {
    url,
    server,
    customers: state.customers,
    cases: state.cases,
    alerts: state.alerts,
    mutes: state.mutes,
    webhookSecret: secret,
    setWebhookUrl: (u: string) => {
      state.webhookUrl = u;
    },
    close: () => {
      triggers.sender.close();
      return server.close();
    },
  });
  Object.defineProperty(sim, 'webhookUrl', { get: () => state.webhookUrl, enumerable: true });
  return sim;
}
