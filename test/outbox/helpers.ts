// Helpers of the outbox tests: an event hub stand-in (a local HTTP server whose answer a test sets)
// and a small webhook project (dedupe, then to-eventhub through a client profile) pointed at it.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { PG_URL } from '../store/helpers.ts';

export interface Hub {
  url: string;
  /** the status it answers every POST with; 0: it never answers (a hub that hangs) */
  status: number;
  /** ms it takes to answer each POST (0: at once) */
  delayMs: number;
  /** the events it accepted (2xx), in order of arrival */
  events: { id: string; subject?: string; data: any }[];
  /** every POST it got, whatever it answered */
  posts: number;
  close(): Promise<void>;
}

export async function startHub(status = 200): Promise<Hub> {
  const hub: Hub = { url: '', status, delayMs: 0, events: [], posts: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      hub.posts++;
      const s = hub.status;
      if (s === 0) return;
      if (s >= 200 && s < 300) hub.events.push(JSON.parse(text));
      const answer = () => res.writeHead(s, { 'content-type': 'application/json' }).end('{}');
      if (hub.delayMs) setTimeout(answer, hub.delayMs);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  hub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  hub.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return hub;
}

const ROUTE = `id: hook
from:
  http:
    method: POST
    path: /hook/{tenant}
    raw-body: true
steps:
  - dedupe:
      key: "headers.'webhook-id'"
  - to-eventhub:
      client: hub
      type: com.example.hooked
      id: "headers.'webhook-id'"
      subject: body.key
      into: vars.event
  - set:
      values:
        body: "{ 'status': 'accepted', 'eventId': vars.event.id }"
`;

// one webhook, one event per item: each its own row under the webhook's one dedupe key
const SPLIT_ROUTE = `id: hook-split
from:
  http:
    method: POST
    path: /split
    raw-body: true
steps:
  - dedupe:
      key: "headers.'webhook-id'"
  - split:
      items: body.items
      steps:
        - to-eventhub:
            client: hub
            type: com.example.item
            id: "'item-' & $string(body)"
            subject: "'items'"
  - set:
      values:
        body: "{ 'status': 'accepted' }"
`;

/** The project's files: `outbox` as the connector's event hub profile says it (absent: the default). */
export function webhookProject(
  hubUrl: string,
  outbox?: boolean,
  store: 'embedded' | { schema: string } = 'embedded',
  /** more settings of the hub's client profile, a YAML line each (a circuit breaker) */
  hubSettings: string[] = [],
) {
  const env =
    store === 'embedded'
      ? 'simulated: false\n'
      : `simulated: false\nengine:\n  store:\n    postgres:\n      url: ${PG_URL}\n      schema: ${store.schema}\n`;
  return tmpProject({
    'values/environments/test.yaml': env,
    'routes/hooks/connector.yaml': `clients:
  hub:
    base-url: ${hubUrl}
    event:
      source: com.example
${outbox === undefined ? '' : `      outbox: ${outbox}\n`}    retry: { enabled: true, max-retries: 1, delay: 10, statuses: "503" }
${hubSettings.map((l) => `    ${l}\n`).join('')}`,
    'routes/hooks/hook.yaml': ROUTE,
    'routes/hooks/split.yaml': SPLIT_ROUTE,
  });
}

export function startWebhookEngine(root: string): Promise<RunningEngine> {
  return startEngine({
    routes: ['routes'],
    root,
    env: 'test',
    port: 0,
    host: '127.0.0.1',
    logger: createLogger((process.env.LOG_LEVEL as any) ?? 'silent'),
    processEnv: {},
    shutdownTimeoutMs: 1000,
  });
}

export async function deliver(
  engine: RunningEngine,
  id: string,
  key: string,
  data: unknown = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${engine.url}/hook/acme?x=1`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      authorization: 'Bearer secret-token-123',
      // a vendor's credential header the masking policy drops from stored inputs (isCredentialHeader)
      'x-vendor-session': 'sess-secret-999',
    },
    body: JSON.stringify({ key, data }),
  });
  return { status: res.status, body: await res.json() };
}

export async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
