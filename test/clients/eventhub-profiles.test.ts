// Event hub profiles (a connector.yaml profile with `event:` named by to-eventhub steps): what the
// producer receives, what lint says about them, and lint's word on calls to a route that did not
// load. Real sockets throughout.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEngine, lintProject, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { formatDiagnostic } from '../../engine/core/diagnostics.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An event hub producer on 127.0.0.1 answering from a list of statuses (the last one repeats). */
async function eventHub(statuses: number[]): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ url: req.url!, headers: req.headers, body });
      res.writeHead(statuses[Math.min(seen.length - 1, statuses.length - 1)]).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const VALUES = `asb:
  producer:
    apiUri: \${eventhub-url}
  event:
    source: com.example.orders
    version: 2.1.0
    topic: orders
retryFlag: true
`;

const CLIENTS = `values: demo-v1
clients:
  vendor:
    base-url: http://127.0.0.1:9
    headers: { X-Channel: "'api'" }
  eventhub:
    base-url: "{{asb.producer.apiUri}}"
    event:
      source: "{{asb.event.source}}"
      version: "{{asb.event.version}}"
      topic: "{{asb.event.topic}}"
    timeouts: { connect: 1000, request: 2000, response: 2000 }
    retry:
      enabled: "{{retryFlag}}"
      max-retries: 2
      delay: 1
      statuses: 503
`;

const ROUTE = `id: order-event
values: demo-v1
from:
  http:
    method: POST
    path: /orders
steps:
  - to-eventhub:
      client: eventhub
      path: events
      type: com.example.OrderEvent
      topic: orders-priority
      id: "'evt-' & body.n"
      into: body
`;

describe('a to-eventhub step naming an event hub profile', () => {
  let engine: RunningEngine;
  let hub: Awaited<ReturnType<typeof eventHub>>;
  beforeAll(async () => {
    hub = await eventHub([503, 202]);
    const root = tmpProject({
      'values/demo-v1.values.yaml': VALUES,
      'routes/orders/connector.yaml': CLIENTS.replace(
        '  vendor:\n    base-url: http://127.0.0.1:9\n    headers: { X-Channel: "\'api\'" }\n',
        '',
      ),
      'routes/orders/order-event.yaml': ROUTE,
    });
    engine = await startEngine({
      routes: ['routes'],
      root,
      port: 0,
      logger: createLogger('silent'),
      processEnv: {},
      // the publication during the request is what this checks (the outbox: test/outbox/)
      outbox: false,
      set: { 'eventhub-url': `${hub.url}/hub/` },
    });
  });
  afterAll(async () => {
    await engine?.close();
    hub?.server.close();
  });

  it('publishes to base-url + path with the profile retry and event attributes, the step overriding the topic', async () => {
    const res = await fetch(`${engine.url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"n":7}',
    });
    expect(res.status).toBe(200);
    // the profile's retry: the 503 is retried once, the 202 accepts
    expect(hub.seen.map((s) => s.url)).toEqual(['/hub/events', '/hub/events']);
    expect(hub.seen[1].headers['content-type']).toBe('application/cloudevents+json');
    const event = JSON.parse(hub.seen[1].body);
    expect(event).toMatchObject({
      specversion: '1.0',
      id: 'evt-7',
      type: 'com.example.OrderEvent',
      source: 'com.example.orders',
      dataversion: '2.1.0',
      dataschema: 'urn:com.example.orders:com.example.OrderEvent:2.1.0',
      topic: 'orders-priority',
      data: { n: 7 },
    });
    expect(await res.json()).toMatchObject({ id: 'evt-7', source: 'com.example.orders' });
  });
});

async function lint(files: Record<string, string>): Promise<string[]> {
  const root = tmpProject({ 'values/demo-v1.values.yaml': VALUES, ...files });
  const diags = await lintProject({ routes: ['routes'], root, logger: createLogger('silent'), processEnv: {} });
  return diags.map((d) => formatDiagnostic({ ...d, file: d.file.replace(/^.*routes\//, 'routes/') }));
}

const HTTP_ROUTE = `id: call
values: demo-v1
from: { direct: {} }
steps:
  - to-http: { client: vendor, path: /x }
`;

describe('engine lint of event hub profiles', () => {
  it('a correct project has no diagnostics', async () => {
    expect(
      await lint({
        'routes/o/connector.yaml': CLIENTS,
        'routes/o/order-event.yaml': ROUTE,
        'routes/o/call.yaml': HTTP_ROUTE,
      }),
    ).toEqual([]);
  });

  it('an unknown client of a to-eventhub step gets file:line:col and a did-you-mean', async () => {
    const out = await lint({
      'routes/o/connector.yaml': CLIENTS,
      'routes/o/order-event.yaml': ROUTE.replace('client: eventhub', 'client: eventhb'),
      'routes/o/call.yaml': HTTP_ROUTE,
    });
    expect(out).toContainEqual(
      expect.stringMatching(/^routes\/o\/order-event\.yaml:9:15 unknown client 'eventhb'; did you mean 'eventhub'\?/),
    );
  });

  it('an event hub profile no step names is reported as unused', async () => {
    const out = await lint({ 'routes/o/connector.yaml': CLIENTS, 'routes/o/call.yaml': HTTP_ROUTE });
    expect(out).toEqual([
      expect.stringMatching(
        /^routes\/o\/connector\.yaml:6:3 warning: client 'eventhub' is not used by any route: remove it or name it in a to-http or to-eventhub step/,
      ),
    ]);
  });

  it('an HTTP client named from to-eventhub, and an event hub profile named from to-http, are refused', async () => {
    const out = await lint({
      'routes/o/connector.yaml': CLIENTS,
      'routes/o/order-event.yaml': ROUTE.replace('client: eventhub', 'client: vendor'),
      'routes/o/call.yaml': HTTP_ROUTE.replace('client: vendor', 'client: eventhub'),
    });
    expect(out).toContainEqual(
      expect.stringMatching(
        /order-event\.yaml:9:15 client 'vendor' is an HTTP client \(it sets headers\), which to-eventhub does not send/,
      ),
    );
    expect(out).toContainEqual(expect.stringMatching(/call\.yaml:5:\d+ client 'eventhub' is an event hub profile/));
  });

  it('a step with neither url nor client, or without a source anywhere, is named', async () => {
    const out = await lint({
      'routes/o/connector.yaml': CLIENTS.replace('      source: "{{asb.event.source}}"\n', ''),
      'routes/o/order-event.yaml': ROUTE,
      'routes/o/call.yaml': HTTP_ROUTE,
      'routes/o/bare.yaml': 'id: bare\nfrom: { direct: {} }\nsteps:\n  - to-eventhub: { type: t, source: s }\n',
    });
    expect(out).toContainEqual(
      expect.stringMatching(
        /order-event\.yaml:9:\d+ to-eventhub needs the event's 'source', here or in the 'event' of its client/,
      ),
    );
    expect(out).toContainEqual(
      expect.stringMatching(
        /bare\.yaml:4:\d+ to-eventhub needs 'client' \(an event hub profile of connector\.yaml\) or the producer 'url'/,
      ),
    );
  });
});

describe('engine lint of to-direct calls', () => {
  const target = 'id: target\nfrom: { direct: {} }\nsteps:\n  - set: { values: { body: "1" } }\n';
  const caller = (to: string) => `id: caller\nfrom: { direct: {} }\nsteps:\n  - to-direct: { route: ${to} }\n`;

  it('a call to a route that failed to load points at its problems, not at a typo', async () => {
    const out = await lint({
      'routes/d/target.yaml': target.replace('set:', 'sett:'),
      'routes/d/caller.yaml': caller('target'),
    });
    expect(out.some((l) => /target\.yaml:4:\d+ unknown step kind 'sett'/.test(l))).toBe(true);
    expect(out).toContainEqual(
      expect.stringMatching(
        /^routes\/d\/caller\.yaml:4:\d+ to-direct: route 'target' did not load \(see its problems above\)/,
      ),
    );
    expect(out.join('\n')).not.toMatch(/no route 'target'/);
  });

  it('a true typo keeps its did-you-mean', async () => {
    const out = await lint({ 'routes/d/target.yaml': target, 'routes/d/caller.yaml': caller('targte') });
    expect(out).toEqual([
      expect.stringMatching(/caller\.yaml:4:\d+ to-direct: no route 'targte' is loaded; did you mean 'target'\?/),
    ]);
  });
});
