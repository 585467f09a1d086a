// HTTP client profiles (routes/<connector>/connector.yaml): what a step sends when it names a
// client, what lint says about references and unused profiles, and the redirect hook of
// HttpClients that route tests use to point a target at its stub. Real sockets throughout.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEngine, lintProject, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { formatDiagnostic } from '../../engine/core/diagnostics.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A vendor on 127.0.0.1 answering from a list of statuses (the last one repeats). */
async function vendor(statuses: number[]): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const status = statuses[Math.min(seen.length - 1, statuses.length - 1)];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: status < 300 }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const VALUES = `vendor:
  baseUrl: \${vendor-base-url}
  apiKey: \${vendor-api-key}
  ordersApiUri: /v1/orders/{id}
retryFlag: true
maximumRedeliveries: 2
`;

const CLIENTS = `values: demo-v1
clients:
  vendor:
    base-url: "{{vendor.baseUrl}}/api/"
    forward-headers: [authorization]
    headers:
      X-Channel: "'api'"
      X-Trace: "'profile'"
    static-headers:
      X-API-Key: "{{vendor.apiKey}}"
    timeouts: { connect: 1000, request: 2000, response: 2000 }
    retry:
      enabled: "{{retryFlag}}"
      max-retries: "{{maximumRedeliveries}}"
      delay: 1
      statuses: 503
  vendor-orders:
    extends: vendor
    headers:
      X-User-Id: "'u-1'"
`;

const ROUTE = `id: order
values: demo-v1
from:
  http:
    method: POST
    path: /orders/{id}
steps:
  - to-http:
      client: vendor-orders
      method: PUT
      path: "{{vendor.ordersApiUri}}"
      path-params: { id: params.id }
      query: { mode: "'fast'" }
      headers: { x-trace: "'step'" }
      retry: { max-retries: 1 }
`;

describe('a to-http step naming a client', () => {
  let engine: RunningEngine;
  let v: Awaited<ReturnType<typeof vendor>>;
  beforeAll(async () => {
    v = await vendor([503, 503, 503, 200]);
    const root = tmpProject({
      'values/demo-v1.values.yaml': VALUES,
      'routes/orders/connector.yaml': CLIENTS,
      'routes/orders/order.yaml': ROUTE,
    });
    engine = await startEngine({
      routes: ['routes'],
      root,
      port: 0,
      logger: createLogger('silent'),
      processEnv: {},
      set: { 'vendor-base-url': v.url, 'vendor-api-key': 'k-0123456789' },
    });
  });
  afterAll(async () => {
    await engine?.close();
    v?.server.close();
  });

  it('sends the profile with the step on top: base-url + path, headers merged, forwarded, retries overridden', async () => {
    const res = await fetch(`${engine.url}/orders/A%2F1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer abc' },
      body: '{"x":1}',
    });
    // the step's max-retries 1 replaces the profile's 2: two attempts, both 503
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(v.seen).toHaveLength(2);
    const r = v.seen[0];
    expect(r.method).toBe('PUT');
    expect(r.url).toBe('/api/v1/orders/A%2F1?mode=fast');
    expect(r.headers['x-api-key']).toBe('k-0123456789');
    expect(r.headers['x-channel']).toBe('api');
    expect(r.headers['x-trace']).toBe('step');
    expect(r.headers['x-user-id']).toBe('u-1');
    expect(r.headers.authorization).toBe('Bearer abc');
    expect(r.body).toBe('{"x":1}');
  });

  it('the target is named after the client, and HttpClients.redirect points it elsewhere (same path and query)', async () => {
    const stub = await vendor([200]);
    const asked: [string, string][] = [];
    engine.services.http.redirect = (target, origin) => {
      asked.push([target, origin]);
      return target === 'vendor-orders' ? stub.url : undefined;
    };
    try {
      const res = await fetch(`${engine.url}/orders/B1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(200);
      expect(asked).toEqual([['vendor-orders', v.url]]);
      expect(stub.seen.map((s) => s.url)).toEqual(['/api/v1/orders/B1?mode=fast']);
      expect(v.seen).toHaveLength(2);
    } finally {
      engine.services.http.redirect = undefined;
      stub.server.close();
    }
  });
});

async function lint(files: Record<string, string>): Promise<string[]> {
  const root = tmpProject({ 'values/demo-v1.values.yaml': VALUES, ...files });
  const diags = await lintProject({ routes: ['routes'], root, logger: createLogger('silent'), processEnv: {} });
  return diags.map((d) => formatDiagnostic({ ...d, file: d.file.replace(/^.*routes\//, 'routes/') }));
}

describe('engine lint of client profiles', () => {
  it('a correct project has no diagnostics', async () => {
    expect(await lint({ 'routes/o/connector.yaml': CLIENTS, 'routes/o/order.yaml': ROUTE })).toEqual([]);
  });

  it('an unknown client gets file:line:col and a did-you-mean', async () => {
    const out = await lint({
      'routes/o/connector.yaml': CLIENTS,
      'routes/o/order.yaml': ROUTE.replace('client: vendor-orders', 'client: vendor-order'),
    });
    expect(out).toContainEqual(
      expect.stringMatching(
        /^routes\/o\/order\.yaml:9:15 unknown client 'vendor-order'; did you mean 'vendor-orders'\?/,
      ),
    );
  });

  it('a client is visible only in its folder and below', async () => {
    const out = await lint({ 'routes/a/connector.yaml': CLIENTS, 'routes/b/order.yaml': ROUTE });
    expect(out).toContainEqual(
      expect.stringMatching(/^routes\/b\/order\.yaml:9:15 unknown client 'vendor-orders' \(no clients file/),
    );
  });

  it('an unused profile is reported where it is defined', async () => {
    const out = await lint({
      'routes/o/connector.yaml': CLIENTS.replace(
        'clients:\n',
        'clients:\n  spare:\n    base-url: http://127.0.0.1:9\n',
      ),
      'routes/o/order.yaml': ROUTE,
    });
    expect(out).toEqual([
      expect.stringMatching(/^routes\/o\/connector\.yaml:3:3 warning: client 'spare' is not used by any route/),
    ]);
  });

  it('url with a client, path without one and a bad profile key are named', async () => {
    const out = await lint({
      'routes/o/connector.yaml': CLIENTS.replace('forward-headers:', 'forward-header:'),
      'routes/o/order.yaml': ROUTE.replace(
        'path: "{{vendor.ordersApiUri}}"',
        'url: "http://127.0.0.1:9{{vendor.ordersApiUri}}"',
      ),
      'routes/o/plain.yaml': 'id: plain\nfrom: { direct: {} }\nsteps:\n  - to-http: { path: /x }\n',
    });
    expect(out).toContainEqual(
      expect.stringMatching(
        /connector\.yaml:\d+:\d+ unknown key 'forward-header' in clients file; did you mean 'forward-headers'\?/,
      ),
    );
    expect(out).toContainEqual(expect.stringMatching(/order\.yaml:\d+:\d+ a step with a client gives 'path'/));
    expect(out).toContainEqual(expect.stringMatching(/plain\.yaml:4:\d+ 'path' is relative to a client's base-url/));
  });

  it('a profile expression with a syntax error points into the clients file', async () => {
    const out = await lint({
      'routes/o/connector.yaml': CLIENTS.replace(`X-Channel: "'api'"`, 'X-Channel: "1 +"'),
      'routes/o/order.yaml': ROUTE,
    });
    expect(out).toContainEqual(expect.stringMatching(/^routes\/o\/connector\.yaml:7:18 JSONata: /));
  });

  it('an unknown parent client is named with a suggestion', async () => {
    const out = await lint({
      'routes/o/connector.yaml': CLIENTS.replace('extends: vendor', 'extends: vendro'),
      'routes/o/order.yaml': ROUTE,
    });
    expect(out).toContainEqual(
      expect.stringMatching(/connector\.yaml:\d+:\d+ unknown client 'vendro'; did you mean 'vendor'\?/),
    );
  });
});
