// The screenvendor simulator: a v2 screening API (problem-JSON errors) on a real HTTP port, with
// stateful customers, cases, alerts, paged risks, decisions, mutes and the monitoring flag.
// Results depend on the screened name (./profiles.ts). Monitoring list updates are triggered over
// `/__screenvendor/*` and sent to the engine as signed webhooks (./webhooks.ts). Fault injection
// and request recording come from the sim server (`/__sandbox/faults`, `/__sandbox/requests`).
// The shapes it answers with are the ones the connector maps (transforms/screenvendor/); the
// connector's page: docs/connectors/screening.md.

import { randomUUID } from 'node:crypto';
import { createSimServer, type SimLog, type SimRequest, type SimResponse, type SimServer } from '../lib/sim-server.ts';
import { matchProfiles, type DemoProfile, type MatchType } from './profiles.ts';
import { createWebhookSender, isDelivered, newWebhookId } from '../lib/webhook-sender.ts';
import { SANDBOX_WEBHOOK_SECRET, type Delivery, type StoredWebhook, type WebhookPayload } from './webhooks.ts';

export { DEMO_PROFILES, matchProfiles } from './profiles.ts';
export { SANDBOX_WEBHOOK_SECRET } from './webhooks.ts';
export type { Delivery, WebhookPayload } from './webhooks.ts';

export const SANDBOX_API_KEY = 'sandbox-screenvendor-api-key';
export const API_KEY_HEADER = 'x-api-key';
export const CREATE_AND_SCREEN_PATH = '/v2/workflows/sync/create-and-screen';
export const ALERT_RISKS_PATH = '/v2/alerts/{alert_identifier}/risks';
export const RISK_DECISION_PATH = '/v2/alerts/{alert_identifier}/risks/{risk_identifier}/decision';
export const ALERT_MUTES_PATH = '/v2/alerts/mutes';
export const CUSTOMER_MONITOR_PATH = '/v2/customers/{customer_identifier}/monitor';
export const CUSTOMER_PATH = '/v2/customers/{customer_identifier}';
export const DECISIONS = ['NOT_REVIEWED', 'IN_REVIEW', 'FALSE_POSITIVE', 'TRUE_POSITIVE'] as const;
/** The fault rule that makes the next call answer like the vendor's rate limiter. */
export const rateLimitFault = (resetSeconds = 30, times = 1) => ({
  status: 429, body: { message: 'API rate limit exceeded' }, headers: { 'Ratelimit-Reset': String(resetSeconds) }, times,
});

export interface Risk {
  identifier: string;
  type: 'screening';
  decision: (typeof DECISIONS)[number];
  created_at: string;
  updated_at: string;
  detail: { profile: Record<string, unknown> };
}

export interface Customer {
  identifier: string;
  external_identifier: string;
  version: number;
  person: Record<string, any>;
  monitoring: { enabled: boolean; monitoring_profile_identifier?: string };
  cases: string[];
}

export interface Case { identifier: string; customer_identifier: string; alert_identifiers: string[]; created_at: string }
export interface Alert { identifier: string; case_identifier: string; customer_identifier: string; risks: Risk[]; created_at: string }
export interface Mute { identifier: string; profile_identifier: string; customer_identifier: string; risk_identifier: string; reason?: string; case_identifier?: string; custom_fields?: unknown; created_at: string }

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

export interface TriggerOptions {
  /** engine webhook URL for this delivery (default: the configured one) */
  webhookUrl?: string;
  /** delivery attempts, as a vendor redelivers on non-2xx (default 1) */
  attempts?: number;
  /** pause between attempts, ms (default 500) */
  retryDelayMs?: number;
}

export interface TriggerResult { webhookId: string; payload: WebhookPayload; deliveries: Delivery[]; delivered: boolean }

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

class SimProblem extends Error {
  constructor(readonly status: number, readonly title: string, readonly detail?: string) { super(title); }
}

function problem(status: number, title: string, detail?: string): SimResponse {
  return {
    status,
    headers: { 'content-type': 'application/problem+json' },
    body: { identifier: randomUUID(), status, timestamp: new Date().toISOString(), title, ...(detail ? { detail } : {}) },
  };
}

const now = () => new Date().toISOString();
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

export async function startScreenvendor(opts: ScreenvendorOptions = {}): Promise<Screenvendor> {
  const apiKey = opts.apiKey ?? SANDBOX_API_KEY;
  const secret = opts.webhookSecret ?? SANDBOX_WEBHOOK_SECRET;
  const server = createSimServer({ name: 'screenvendor', port: opts.port, host: opts.host, log: opts.log, record: opts.record });
  const customers = new Map<string, Customer>();
  const byExternal = new Map<string, string>();
  const cases = new Map<string, Case>();
  const alerts = new Map<string, Alert>();
  const mutes = new Map<string, Mute>();
  const webhooks = new Map<string, StoredWebhook>();
  const seqs = new Map<string, number>();
  const id = (prefix: string) => {
    const n = (seqs.get(prefix) ?? 0) + 1;
    seqs.set(prefix, n);
    return `${prefix}-${String(n).padStart(6, '0')}`;
  };

  const riskOf = (p: DemoProfile, matchType: MatchType): Risk => ({
    identifier: id('RSK'),
    type: 'screening',
    decision: 'NOT_REVIEWED',
    created_at: now(),
    updated_at: now(),
    detail: {
      profile: {
        identifier: p.identifier,
        match_types: [matchType],
        matching_name: `${p.firstName} ${p.lastName}`,
        person: {
          names: [{ name: `${p.firstName} ${p.lastName}`, type: 'primary' }],
          ...(p.yearOfBirth ? { date_of_birth: { year: p.yearOfBirth } } : {}),
          nationality: p.nationality,
          ...(p.gender ? { gender: p.gender } : {}),
        },
        risk_indicators: { aml_types: p.amlTypes, sanctions: p.sanctions ?? [], peps: p.peps ?? [], lists: p.lists ?? [], media: p.media ?? [] },
      },
    },
  });

  const newAlert = (c: Case, risks: Risk[]): Alert => {
    const a: Alert = { identifier: id('ALR'), case_identifier: c.identifier, customer_identifier: c.customer_identifier, risks, created_at: now() };
    alerts.set(a.identifier, a);
    c.alert_identifiers.push(a.identifier);
    return a;
  };

  const muted = (customer: string, profile: string) => mutes.has(`${customer}|${profile}`);

  const auth = (req: SimRequest) => {
    const k = req.headers[API_KEY_HEADER];
    if (k !== apiKey) throw new SimProblem(401, 'Unauthorized', 'missing or invalid API key');
  };

  const guarded = (h: (req: SimRequest) => SimResponse | Promise<SimResponse>) => async (req: SimRequest): Promise<SimResponse> => {
    try {
      auth(req);
      return await h(req);
    } catch (e) {
      if (e instanceof SimProblem) return problem(e.status, e.title, e.detail);
      throw e;
    }
  };

  const createAndScreen = (req: SimRequest): SimResponse => {
    const step = req.query.last_sync_step;
    if (step !== undefined && !['CUSTOMER_CREATION', 'SCREENING', 'ALERTING'].includes(step)) {
      throw new SimProblem(400, 'Validation error', `last_sync_step: unknown step '${step}'`);
    }
    const b = req.body;
    if (!isObj(b) || !isObj(b.customer)) throw new SimProblem(400, 'Validation error', 'customer: is required');
    const c = b.customer;
    if (isObj(c.company)) throw new SimProblem(400, 'Invalid workflow_type: create-and-screen is for person customers only', 'customer.company is not supported by this workflow');
    if (typeof c.external_identifier !== 'string' || !c.external_identifier) throw new SimProblem(400, 'Validation error', 'customer.external_identifier: is required');
    const p = c.person;
    if (!isObj(p) || !(p.last_name || p.full_name)) throw new SimProblem(400, 'Validation error', 'customer.person.last_name or customer.person.full_name: is required');
    const config = b.configuration?.screening_configuration_identifier;
    if (typeof config !== 'string' || !config) throw new SimProblem(400, 'Validation error', 'configuration.screening_configuration_identifier: is required');
    const enabled = b.monitoring?.entity_screening?.enabled;
    if (enabled !== undefined && typeof enabled !== 'boolean') throw new SimProblem(400, 'Validation error', 'monitoring.entity_screening.enabled: must be a boolean');

    let customer = customers.get(byExternal.get(c.external_identifier) ?? '');
    if (customer) {
      customer.version++;
      customer.person = p;
    } else {
      customer = { identifier: id('CUS'), external_identifier: c.external_identifier, version: 1, person: p, monitoring: { enabled: false }, cases: [] };
      customers.set(customer.identifier, customer);
      byExternal.set(customer.external_identifier, customer.identifier);
    }
    if (enabled !== undefined) customer.monitoring.enabled = enabled;

    const kase: Case = { identifier: id('CASE'), customer_identifier: customer.identifier, alert_identifiers: [], created_at: now() };
    cases.set(kase.identifier, kase);
    customer.cases.push(kase.identifier);
    const hits = matchProfiles(p).filter((m) => !muted(customer!.identifier, m.profile.identifier));
    // strong matches (exact, variation) and fuzzy ones go to separate alerts
    const strong = hits.filter((h) => h.matchType !== 'name_fuzzy');
    const fuzzy = hits.filter((h) => h.matchType === 'name_fuzzy');
    for (const group of [strong, fuzzy]) if (group.length) newAlert(kase, group.map((h) => riskOf(h.profile, h.matchType)));

    return {
      status: 200,
      body: {
        workflow_instance_identifier: randomUUID(),
        workflow_type: 'create-and-screen',
        status: 'COMPLETED',
        step_details: {
          'customer-creation': { customer_identifier: customer.identifier, version: customer.version },
          'customer-screening': { screening_result: hits.length ? 'HAS_PROFILES' : 'NO_PROFILES' },
          alerting: { alerts: kase.alert_identifiers.map((identifier) => ({ identifier })) },
          'case-creation': { case_identifier: kase.identifier },
        },
        monitoring: { entity_screening: { enabled: customer.monitoring.enabled } },
      },
    };
  };

  const listRisks = (req: SimRequest): SimResponse => {
    const a = alerts.get(req.params.alert_identifier!);
    if (!a) throw new SimProblem(404, 'Not found', `alert ${req.params.alert_identifier} does not exist`);
    const pageNumber = req.query.page_number === undefined ? 1 : Number(req.query.page_number);
    const pageSize = req.query.page_size === undefined ? 20 : Number(req.query.page_size);
    if (!Number.isInteger(pageNumber) || pageNumber < 1) throw new SimProblem(400, 'Validation error', 'page_number: must be an integer >= 1');
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) throw new SimProblem(400, 'Validation error', 'page_size: must be an integer from 1 to 100');
    const start = (pageNumber - 1) * pageSize;
    const risks = a.risks.slice(start, start + pageSize);
    const more = start + pageSize < a.risks.length;
    return {
      status: 200,
      body: {
        risks,
        page_number: pageNumber,
        page_size: pageSize,
        total_count: a.risks.length,
        next: more ? `${ALERT_RISKS_PATH.replace('{alert_identifier}', encodeURIComponent(a.identifier))}?page_number=${pageNumber + 1}&page_size=${pageSize}` : null,
      },
    };
  };

  const decide = (req: SimRequest): SimResponse => {
    const a = alerts.get(req.params.alert_identifier!);
    if (!a) throw new SimProblem(404, 'Not found', `alert ${req.params.alert_identifier} does not exist`);
    const r = a.risks.find((x) => x.identifier === req.params.risk_identifier);
    if (!r) throw new SimProblem(404, 'Not found', `risk ${req.params.risk_identifier} does not exist on alert ${a.identifier}`);
    const d = (req.body as any)?.decision;
    if (!DECISIONS.includes(d)) throw new SimProblem(400, 'Validation error', `decision: must be one of ${DECISIONS.join(', ')}`);
    r.decision = d;
    r.updated_at = now();
    return { status: 200, body: { identifier: r.identifier, alert_identifier: a.identifier, decision: r.decision, updated_at: r.updated_at } };
  };

  const mute = (req: SimRequest): SimResponse => {
    const b = req.body as Record<string, any> | undefined;
    for (const f of ['profile_identifier', 'customer_identifier', 'risk_identifier']) {
      if (!isObj(b) || typeof b[f] !== 'string' || !b[f]) throw new SimProblem(400, 'Validation error', `${f}: is required`);
    }
    const customer = customers.get(b!.customer_identifier);
    if (!customer) throw new SimProblem(404, 'Not found', `customer ${b!.customer_identifier} does not exist`);
    const risk = customer.cases.flatMap((c) => cases.get(c)!.alert_identifiers).flatMap((a) => alerts.get(a)!.risks).find((r) => r.identifier === b!.risk_identifier);
    if (!risk) throw new SimProblem(404, 'Not found', `risk ${b!.risk_identifier} does not exist for customer ${customer.identifier}`);
    if ((risk.detail.profile as any).identifier !== b!.profile_identifier) throw new SimProblem(400, 'Validation error', `profile_identifier: risk ${risk.identifier} is not about profile ${b!.profile_identifier}`);
    const key = `${customer.identifier}|${b!.profile_identifier}`;
    if (mutes.has(key)) throw new SimProblem(409, 'Conflict', `profile ${b!.profile_identifier} is already muted for customer ${customer.identifier}`);
    const m: Mute = {
      identifier: id('MUT'), profile_identifier: b!.profile_identifier, customer_identifier: customer.identifier, risk_identifier: risk.identifier,
      ...(typeof b!.reason === 'string' ? { reason: b!.reason } : {}),
      ...(typeof b!.case_identifier === 'string' ? { case_identifier: b!.case_identifier } : {}),
      ...(b!.custom_fields !== undefined ? { custom_fields: b!.custom_fields } : {}),
      created_at: now(),
    };
    mutes.set(key, m);
    return { status: 201, body: m };
  };

  const monitor = (req: SimRequest): SimResponse => {
    const customer = customers.get(req.params.customer_identifier!);
    if (!customer) throw new SimProblem(404, 'Not found', `customer ${req.params.customer_identifier} does not exist`);
    const b = req.body as Record<string, any> | undefined;
    const enabled = b?.entity_screening?.enabled;
    if (typeof enabled !== 'boolean') throw new SimProblem(400, 'Validation error', 'entity_screening.enabled: must be a boolean');
    const profile = b?.monitoring_profile_identifier;
    if (profile !== undefined && (typeof profile !== 'string' || !profile)) throw new SimProblem(400, 'Validation error', 'monitoring_profile_identifier: must be a non-empty string');
    customer.monitoring = { enabled, ...(profile ? { monitoring_profile_identifier: profile } : {}) };
    return {
      status: 200,
      body: { customer_identifier: customer.identifier, entity_screening: { enabled }, ...(profile ? { monitoring_profile_identifier: profile } : {}), updated_at: now() },
    };
  };

  const getCustomer = (req: SimRequest): SimResponse => {
    const c = customers.get(req.params.customer_identifier!);
    if (!c) throw new SimProblem(404, 'Not found', `customer ${req.params.customer_identifier} does not exist`);
    return { status: 200, body: { identifier: c.identifier, external_identifier: c.external_identifier, version: c.version, monitoring: c.monitoring, cases: c.cases } };
  };

  server
    .route('POST', CREATE_AND_SCREEN_PATH, guarded(createAndScreen))
    .route('GET', ALERT_RISKS_PATH, guarded(listRisks))
    .route('POST', RISK_DECISION_PATH, guarded(decide))
    .route('POST', ALERT_MUTES_PATH, guarded(mute))
    .route('PATCH', CUSTOMER_MONITOR_PATH, guarded(monitor))
    .route('GET', CUSTOMER_PATH, guarded(getCustomer));

  const sim = {} as Screenvendor;
  let webhookUrl = opts.webhookUrl ?? 'http://127.0.0.1:8080/webhooks/screening';

  const payloadFor = (type: WebhookPayload['webhook_type'], customer: Customer, kase: Case): WebhookPayload => ({
    api_version: 'v2',
    webhook_type: type,
    case_identifier: kase.identifier,
    customer: { identifier: customer.identifier, external_identifier: customer.external_identifier, version: customer.version },
    alert_identifiers: [...kase.alert_identifiers],
    subjects: [{ type: 'person', identifier: customer.identifier, name: [customer.person.first_name, customer.person.last_name].filter(Boolean).join(' ') || customer.person.full_name }],
  });

  // a trigger delivers once unless told otherwise, pausing retryDelayMs between attempts
  const sender = createWebhookSender({ name: 'screenvendor', secret, log: opts.log, attempts: 1, delayMs: 500, multiplier: 1, timeoutMs: 15_000 });
  const send = async (w: StoredWebhook, o: TriggerOptions = {}): Promise<TriggerResult> => {
    const deliveries = await sender.deliver(o.webhookUrl ?? webhookUrl, w, { attempts: o.attempts, delayMs: o.retryDelayMs });
    return { webhookId: w.id, payload: w.payload, deliveries, delivered: isDelivered(deliveries) };
  };

  const store = (payload: WebhookPayload): StoredWebhook => {
    const w = { id: newWebhookId(), payload, body: JSON.stringify(payload) };
    webhooks.set(w.id, w);
    if (webhooks.size > 10_000) webhooks.delete(webhooks.keys().next().value!);
    return w;
  };

  const customerOrFail = (identifier: string): Customer => {
    const c = customers.get(identifier);
    if (!c) throw new SimProblem(404, 'Not found', `customer ${identifier} does not exist`);
    return c;
  };

  sim.triggerListUpdate = async (identifier, o) => {
    const customer = customerOrFail(identifier);
    if (!customer.monitoring.enabled) throw new SimProblem(409, 'Conflict', `monitoring is off for customer ${identifier}: turn it on first`);
    const kase = cases.get(customer.cases[customer.cases.length - 1]!)!;
    // a list update: the customer now appears on the demo sanctions list under their own name
    const name = { first: customer.person.first_name ?? '', last: customer.person.last_name ?? customer.person.full_name ?? '' };
    const listed: DemoProfile = {
      identifier: `PRF-LISTED-${customer.identifier}-${kase.alert_identifiers.length + 1}`,
      firstName: name.first, lastName: name.last, nationality: customer.person.nationality ?? [],
      ...(customer.person.gender === 'female' || customer.person.gender === 'male' ? { gender: customer.person.gender } : {}),
      amlTypes: ['sanction'], sanctions: [{ list_name: 'Demo Consolidated Sanctions List', listed_at: now().slice(0, 10) }],
    };
    newAlert(kase, [riskOf(listed, 'name_exact')]);
    return send(store(payloadFor('CASE_ALERT_LIST_UPDATED', customer, kase)), o);
  };

  sim.triggerCaseCreated = async (identifier, o) => {
    const customer = customerOrFail(identifier);
    const kase = cases.get(customer.cases[customer.cases.length - 1]!)!;
    return send(store(payloadFor('CASE_CREATED', customer, kase)), o);
  };

  sim.redeliver = async (webhookId, o) => {
    const w = webhooks.get(webhookId);
    if (!w) throw new SimProblem(404, 'Not found', `webhook ${webhookId} is unknown`);
    return send(w, o);
  };

  // simulator controls (not part of the vendor API): /__screenvendor/...
  const control = (fn: (req: SimRequest) => Promise<SimResponse> | SimResponse) => async (req: SimRequest): Promise<SimResponse> => {
    try {
      return await fn(req);
    } catch (e) {
      if (e instanceof SimProblem) return problem(e.status, e.title, e.detail);
      throw e;
    }
  };
  const triggerOpts = (b: any): TriggerOptions => ({
    webhookUrl: typeof b?.webhookUrl === 'string' ? b.webhookUrl : undefined,
    attempts: Number.isInteger(b?.attempts) ? b.attempts : undefined,
    retryDelayMs: typeof b?.retryDelayMs === 'number' ? b.retryDelayMs : undefined,
  });
  const needCustomer = (b: any): string => {
    if (typeof b?.customer_identifier !== 'string') throw new SimProblem(400, 'Validation error', 'customer_identifier: is required');
    return b.customer_identifier;
  };
  server
    .route('POST', '/__screenvendor/trigger/list-update', control(async (req) => ({ status: 200, body: await sim.triggerListUpdate(needCustomer(req.body), triggerOpts(req.body)) })))
    .route('POST', '/__screenvendor/trigger/case-created', control(async (req) => ({ status: 200, body: await sim.triggerCaseCreated(needCustomer(req.body), triggerOpts(req.body)) })))
    .route('POST', '/__screenvendor/webhooks/{webhookId}/redeliver', control(async (req) => ({ status: 200, body: await sim.redeliver(req.params.webhookId!, triggerOpts(req.body)) })))
    .route('GET', '/__screenvendor/webhook-url', () => ({ status: 200, body: { url: webhookUrl } }))
    .route('PUT', '/__screenvendor/webhook-url', control((req) => {
      const u = (req.body as any)?.url;
      try { new URL(u); } catch { throw new SimProblem(400, 'Validation error', 'url: must be an absolute URL'); }
      webhookUrl = u;
      return { status: 200, body: { url: webhookUrl } };
    }));

  const url = await server.start();
  Object.assign(sim, {
    url,
    server,
    customers,
    cases,
    alerts,
    mutes,
    webhookSecret: secret,
    setWebhookUrl: (u: string) => { webhookUrl = u; },
    close: () => {
      sender.close();
      return server.close();
    },
  });
  Object.defineProperty(sim, 'webhookUrl', { get: () => webhookUrl, enumerable: true });
  return sim;
}
