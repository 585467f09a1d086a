// The sandbox's page in the engine console (engine/console/panel.ts): each simulator's recorded
// requests (credential headers masked), the event hub sink's events filtered by type and topic,
// fault injection on any simulator, the webhook triggers (a screening list update, an ACH batch
// status step) and sandbox access tokens for the gateway's try-it form. It drives the simulators
// through the same objects their control APIs (lib/control-api.ts) use.

import type { ConsolePanel, PanelAnswer } from '../engine/console/panel.ts';
import { isSecretHeader, maskSecret } from '../engine/observability/mask.ts';
import { isSecretKey } from '../engine/config/env-keys.ts';
import type { Sandbox } from './index.ts';
import type { SimServer } from './lib/sim-server.ts';
import { FaultRuleError, parseFaultRule } from './lib/faults.ts';
import type { Screenvendor } from './screenvendor/index.ts';
import type { Achvendor } from './achvendor/index.ts';
import type { Idp } from './idp/index.ts';

const bad = (error: string): PanelAnswer => ({ status: 400, body: { error } });
const LIMIT = 200;

/** The simulators with an HTTP server (the AMQP endpoint has none). */
function simulators(sb: Sandbox): Map<string, SimServer> {
  const out = new Map<string, SimServer>();
  for (const [name, s] of Object.entries(sb.services)) {
    const server = (s as { server?: SimServer }).server;
    if (server && typeof server.requests === 'function') out.set(name, server);
  }
  return out;
}

export function sandboxPanel(sb: Sandbox): ConsolePanel {
  const sims = simulators(sb);
  const sim = (name: unknown): SimServer | string => {
    if (typeof name !== 'string' || !sims.has(name)) return `'sim' must be one of ${[...sims.keys()].join(', ')}`;
    return sims.get(name)!;
  };
  const screen = sb.services.screenvendor as Screenvendor | undefined;
  const ach = sb.services.achvendor as Achvendor | undefined;
  const idp = sb.services.idp as Idp | undefined;

  return {
    id: 'sandbox',
    title: 'Sandbox',
    describe() {
      const events = sb.eventhub.events();
      return {
        simulators: [...sims].map(([name, s]) => ({
          name,
          url: s.url,
          requests: s.requests().length,
          faults: s.faults(),
        })),
        events: {
          count: events.length,
          types: [...new Set(events.map((e) => e.type))].sort(),
          topics: [...new Set(events.map((e) => e.topic).filter(Boolean))].sort(),
        },
        screening: screen
          ? {
              customers: [...screen.customers.values()]
                .filter((c) => c.monitoring.enabled)
                .map((c) => c.identifier)
                .slice(-50),
            }
          : undefined,
        ach: ach
          ? {
              batches: [...ach.batches.values()]
                .slice(-50)
                .map((b) => ({ batchId: b.batch_id, reference: b.batch_reference, status: b.status })),
            }
          : undefined,
        tokens: idp !== undefined,
      };
    },
    async handle(method, action, query, body) {
      const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
      if (action === 'requests' && method === 'GET') {
        const s = sim(query.sim);
        if (typeof s === 'string') return bad(s);
        return {
          status: 200,
          body: {
            requests: s
              .requests()
              .slice(-LIMIT)
              .reverse()
              .map((r) => ({ ...r, headers: maskedHeaders(r.headers) })),
          },
        };
      }
      if (action === 'requests' && method === 'DELETE') {
        const s = sim(query.sim);
        if (typeof s === 'string') return bad(s);
        s.clearRequests();
        return { status: 204 };
      }
      if (action === 'events' && method === 'GET') {
        const events = sb.eventhub.events({ type: query.type || undefined, topic: query.topic || undefined });
        return { status: 200, body: { events: events.slice(-LIMIT).reverse() } };
      }
      if (action === 'faults' && method === 'POST') {
        const s = sim(b.sim);
        if (typeof s === 'string') return bad(s);
        try {
          return { status: 201, body: { fault: s.addFault(parseFaultRule(b.rule)) } };
        } catch (e) {
          if (e instanceof FaultRuleError) return bad(`rule: ${e.message}`);
          throw e;
        }
      }
      if (action === 'faults' && method === 'DELETE') {
        const s = sim(query.sim);
        if (typeof s === 'string') return bad(s);
        if (!query.id) {
          s.clearFaults();
          return { status: 204 };
        }
        return s.removeFault(query.id)
          ? { status: 204 }
          : { status: 404, body: { error: `no fault '${query.id}' on ${query.sim}` } };
      }
      if (action === 'triggers/screening-list-update' && method === 'POST') {
        if (!screen) return { status: 404, body: { error: 'the screening simulator is not running' } };
        if (typeof b.customer !== 'string' || !b.customer)
          return bad("'customer' is required: a monitored customer identifier");
        if (!screen.customers.has(b.customer))
          return { status: 404, body: { error: `customer '${b.customer}' does not exist` } };
        try {
          return { status: 200, body: await screen.triggerListUpdate(b.customer) };
        } catch (e) {
          return {
            status: (e as { status?: number }).status ?? 500,
            body: { error: (e as Error & { detail?: string }).detail ?? (e as Error).message },
          };
        }
      }
      if (action === 'triggers/ach-status' && method === 'POST') {
        if (!ach) return { status: 404, body: { error: 'the ACH simulator is not running' } };
        if (typeof b.batchId !== 'string' || !b.batchId) return bad("'batchId' is required: a submitted batch id");
        if (!ach.batches.has(b.batchId)) return { status: 404, body: { error: `batch '${b.batchId}' does not exist` } };
        return { status: 200, body: { batchId: b.batchId, status: ach.advance(b.batchId) } };
      }
      if (action === 'token' && method === 'POST') {
        if (!idp) return { status: 404, body: { error: 'the identity provider simulator is not running' } };
        const sub = b.sub ?? 'alice';
        if (typeof sub !== 'string' || !/^[A-Za-z0-9._@-]{1,128}$/.test(sub))
          return bad("'sub' must be 1-128 characters [A-Za-z0-9._@-]");
        return { status: 200, body: { sub, token: await idp.sign({ sub, ttl: 3600 }) } };
      }
      return { status: 404, body: { error: `no sandbox action ${method} ${action}` } };
    },
  };
}

function maskedHeaders(h: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(h))
    out[k] = isSecretHeader(k) || isSecretKey(k) || k === 'webhook-signature' ? maskSecret(v) : v;
  return out;
}
