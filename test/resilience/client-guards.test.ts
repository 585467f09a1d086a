// Circuit breaker, bulkhead, retry budget and deadline through a route, against a vendor on a real
// socket: what the caller gets (503 with Retry-After and the template's code, 504 saying the
// deadline was reached) and how many calls the vendor saw, counted by the vendor itself.
import { describe, it, expect, afterEach } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProject } from '../helpers/project-engine.ts';
import type { RunningEngine } from '../../engine/engine.ts';

interface Vendor {
  server: Server;
  url: string;
  hits: number;
  status: number;
  delayMs: number;
}

async function vendor(status = 503): Promise<Vendor> {
  const v = { hits: 0, status, delayMs: 0 } as Vendor;
  v.server = createServer((req, res) => {
    v.hits++;
    req.resume();
    setTimeout(() => {
      if (!res.destroyed)
        res.writeHead(v.status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: v.status < 300 }));
    }, v.delayMs);
  });
  await new Promise<void>((r) => v.server.listen(0, '127.0.0.1', r));
  v.url = `http://127.0.0.1:${(v.server.address() as AddressInfo).port}`;
  return v;
}

const TEMPLATE = JSON.stringify({
  rules: [
    { when: { kind: ['timeout'] }, status: 504, code: 'GC027', title: 'Generic Error', detail: "'timeout: ' & detail" },
    { when: { kind: ['connection'] }, status: 502, code: 'GC027', title: 'Generic Error', detail: "'down: ' & detail" },
  ],
  default: { status: 502, code: 'GC027', title: 'Generic Error' },
});

function project(url: string, client: string, route = '') {
  return {
    'values/demo-v1.values.yaml': `vendor:\n  baseUrl: ${url}\n`,
    'transforms/demo/errors.json': TEMPLATE,
    'routes/demo/connector.yaml': `values: demo-v1
on-exception:
  - when: { kind: [vendor, timeout, connection] }
    template: transforms/demo/errors.json
clients:
  vendor:
    base-url: "{{vendor.baseUrl}}"
    timeouts: { connect: 1000, request: 2000, response: 2000 }
${client}`,
    'routes/demo/rates.yaml': `id: rates
from:
  http:
    method: GET
    path: /rates
${route}steps:
  - to-http:
      client: vendor
      path: /rates
`,
  };
}

let engine: RunningEngine | undefined;
let v: Vendor | undefined;
afterEach(async () => {
  await engine?.close();
  v?.server.close();
  engine = undefined;
  v = undefined;
});

const get = async (path = '/rates', headers: Record<string, string> = {}) => {
  const started = performance.now();
  const res = await fetch(`${engine!.url}${path}`, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any, ms: performance.now() - started };
};

describe('circuit breaker through a route', () => {
  it('after the threshold the vendor is not called: 503, Retry-After and the template code, at once; a probe after the delay closes it', async () => {
    v = await vendor(503);
    engine = await startProject(
      project(
        v.url,
        `    retry: { enabled: true, max-retries: 2, delay: 1, statuses: 503 }
    circuit-breaker: { failures: 4, half-open-after: 4000 }
`,
      ),
    );
    // first call: 3 attempts (3 failures); second: its first attempt opens it, and no retry follows
    const first = await get();
    expect(first.status).toBe(502);
    expect(v.hits).toBe(3);
    const second = await get();
    expect(v.hits).toBe(4);
    expect(second.status).toBe(502);
    expect(second.body.detail).toBe('vendor answered 503'); // the template's default: a vendor error
    for (let i = 0; i < 20; i++) {
      const r = await get();
      expect(r.status).toBe(503);
      expect(r.body.code).toBe('GC027');
      expect(r.body.detail).toMatch(/^down: circuit breaker of client 'demo\/vendor' is open since/);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(v.hits).toBe(4); // not one more vendor call while open
    const metrics = await (await fetch(`${engine.url}/metrics`)).text();
    expect(metrics).toMatch(/engine_client_calls_refused_total\{client="demo\/vendor",by="circuit-breaker"\} 2[0-9]/);
    expect(metrics).toMatch(/engine_client_breaker_state\{client="demo\/vendor"\} 1/);
    v.status = 200;
    await new Promise((r) => setTimeout(r, 4100));
    const probe = await get();
    expect(probe.status).toBe(200);
    expect(v.hits).toBe(5);
    const after = await get();
    expect(after.status).toBe(200);
    expect(v.hits).toBe(6);
    const closed = await (await fetch(`${engine.url}/metrics`)).text();
    expect(closed).toMatch(/engine_client_breaker_state\{client="demo\/vendor"\} 0/);
    expect(closed).toMatch(/engine_client_breaker_transitions_total\{client="demo\/vendor",to="closed"\} 1/);
  });

  it('4xx answers of bad input never open it', async () => {
    v = await vendor(400);
    engine = await startProject(project(v.url, `    circuit-breaker: { failures: 2, half-open-after: 60000 }\n`));
    for (let i = 0; i < 6; i++) expect((await get()).status).toBe(502);
    expect(v.hits).toBe(6);
  });
});

describe('bulkhead through a route', () => {
  it('beyond max-concurrent and the queue, calls are refused at once without reaching the vendor', async () => {
    v = await vendor(200);
    v.delayMs = 400;
    engine = await startProject(
      project(v.url, `    bulkhead: { max-concurrent: 2, max-queue: 1, queue-timeout: 100 }\n`),
    );
    const all = await Promise.all(Array.from({ length: 8 }, () => get()));
    const ok = all.filter((r) => r.status === 200);
    const refused = all.filter((r) => r.status === 503);
    expect(ok).toHaveLength(2);
    expect(refused).toHaveLength(6); // five at once, the queued one after its 100 ms
    expect(v.hits).toBe(2);
    for (const r of refused) {
      expect(r.body.detail).toMatch(/bulkhead full/);
      expect(r.ms).toBeLessThan(350);
    }
  });
});

describe('retry budget through a route', () => {
  it('a spent budget drops the retries: the vendor sees each call once', async () => {
    v = await vendor(503);
    engine = await startProject(
      project(
        v.url,
        `    retry: { enabled: true, max-retries: 3, delay: 1, statuses: 503 }
    retry-budget: { ratio: 0, min-per-second: 0.2 }
`,
      ),
    );
    // the floor: 0.2 per second over the 10 s window = 2 retries, then none
    for (let i = 0; i < 5; i++) expect((await get()).status).toBe(502);
    expect(v.hits).toBe(5 + 2);
    const metrics = await (await fetch(`${engine.url}/metrics`)).text();
    expect(metrics).toMatch(/engine_client_retries_total\{client="demo\/vendor",outcome="spent"\} 2/);
    expect(metrics).toMatch(/engine_client_retries_total\{client="demo\/vendor",outcome="refused"\} 5/); // one per call whose retry was dropped
  });
});

describe('deadline', () => {
  const retrying = `    retry: { enabled: true, max-retries: 5, delay: 200, multiplier: 1, statuses: 503 }\n`;

  it("a retry that could not start before the route's deadline is not made; the answer says so", async () => {
    v = await vendor(503);
    engine = await startProject(project(v.url, retrying, `deadline: { total: 500 }\n`));
    const r = await get();
    expect(r.status).toBe(504);
    expect(r.body.detail).toMatch(/the route's deadline of 500 ms was reached: retry \d was not started/);
    // attempts at about 0, 200 and 400 ms; the next would start at 600
    expect(v.hits).toBe(3);
    expect(r.ms).toBeLessThan(1000);
  });

  it("the caller's deadline header lowers it, never raises it", async () => {
    v = await vendor(503);
    engine = await startProject(project(v.url, retrying, `deadline: { total: 500, header: X-Deadline-Ms }\n`));
    const low = await get('/rates', { 'x-deadline-ms': '100' });
    expect(low.status).toBe(504);
    expect(low.body.detail).toMatch(/the caller's deadline of 100 ms was reached/);
    expect(v.hits).toBe(1);
    const high = await get('/rates', { 'x-deadline-ms': '100000' });
    expect(high.body.detail).toMatch(/the route's deadline of 500 ms/);
  });

  it('a vendor slower than the deadline is cut at the deadline, not at its own timeout', async () => {
    v = await vendor(200);
    v.delayMs = 1500;
    engine = await startProject(project(v.url, '', `deadline: { total: 300 }\n`));
    const r = await get();
    expect(r.status).toBe(504);
    expect(r.ms).toBeLessThan(1000);
  });
});

describe('deadline of an event publication', () => {
  it('a slow event hub is cut at the deadline, and no publication starts past it', async () => {
    v = await vendor(200);
    v.delayMs = 1500;
    const files: Record<string, string> = project(
      v.url,
      `  hub:\n    base-url: "{{vendor.baseUrl}}"\n    event: { source: com.example.demo }\n`,
    );
    files['routes/demo/notify.yaml'] = `id: notify
from:
  http:
    method: POST
    path: /notify
deadline: { total: 300 }
steps:
  - to-eventhub: { client: hub, type: com.example.notified, outbox: false }
`;
    engine = await startProject(files);
    const started = performance.now();
    const res = await fetch(`${engine.url}/notify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"n":1}',
    });
    const body = (await res.json()) as any;
    // an event hub failure (no template rule of this connector maps it): 503, cut at 300 ms
    expect(res.status).toBe(503);
    expect(body.detail).toMatch(/event hub: response timeout/);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(v.hits).toBe(1);
  });
});
