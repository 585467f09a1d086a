// http.client.proxy.activate: vendor calls go through the proxy named by HTTP_PROXY only when
// activated. A real forward proxy (CONNECT tunnels and absolute-form requests) on node:http
// counts what passes through it.

import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { BEARER, ROUTES, sepaOrder } from './fixtures.ts';

interface Proxy {
  url: string;
  seen: string[];
  close(): Promise<void>;
}

/** A tiny HTTP proxy: CONNECT host:port tunnels, and absolute-form GET/POST forwarding. */
async function startProxy(): Promise<Proxy> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url!);
    const up = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: target.pathname + target.search,
        headers: req.headers,
      },
      (r) => {
        res.writeHead(r.statusCode!, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => {
      res.writeHead(502).end();
    });
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req, client, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = req.url!.split(':');
    const up = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    sockets.add(up);
    up.on('close', () => sockets.delete(up));
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

let proxy: Proxy;
let viaProxy: TestEngine;
let direct: TestEngine;
const saved: Record<string, string | undefined> = {};
const ENV = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];

beforeAll(async () => {
  proxy = await startProxy();
  for (const k of ENV) {
    saved[k] = process.env[k];
    delete process.env[k];
  }
  // undici's EnvHttpProxyAgent reads HTTP_PROXY when the engine builds its dispatchers (route
  // load); NO_PROXY is read on every request, so it stays unset for the whole file.
  process.env.HTTP_PROXY = proxy.url;
  viaProxy = await startTestEngine({ routes: ROUTES, set: { 'http.client.proxy.activate': 'true' } });
  direct = await startTestEngine({ routes: ROUTES, set: { 'http.client.proxy.activate': 'false' } });
});

afterAll(async () => {
  await Promise.all([viaProxy?.close(), direct?.close()]);
  await proxy?.close();
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

describe('http.client.proxy.activate', () => {
  it('true: vendor calls go through the proxy of HTTP_PROXY, Authorization still byte for byte', async () => {
    proxy.seen.length = 0;
    const r = await viaProxy.request('POST', '/payments/payment-orders', sepaOrder(), { authorization: BEARER });
    expect(r.status).toBe(201);
    const b = await viaProxy.request('POST', '/payments/bank-directory', {
      identificationType: 'BIC',
      identification: 'DEUTDEFFXXX',
    });
    expect(b.status).toBe(200);
    const hubHost = new URL(viaProxy.sandbox.hubvendor.url).host;
    expect(proxy.seen.length).toBeGreaterThan(0);
    for (const line of proxy.seen) expect(line).toMatch(new RegExp(`^(CONNECT ${hubHost}|[A-Z]+ http://${hubHost}/)`));
    const calls = viaProxy.sandbox.hubvendor.server.requests();
    expect(calls).toHaveLength(2);
    expect(calls[0].headers.authorization).toBe(BEARER);
  });

  it('false: the same environment, no call through the proxy', async () => {
    proxy.seen.length = 0;
    const r = await direct.request('POST', '/payments/payment-orders', sepaOrder());
    expect(r.status).toBe(201);
    const b = await direct.request('POST', '/payments/bank-directory', {
      identificationType: 'BIC',
      identification: 'DEUTDEFFXXX',
    });
    expect(b.status).toBe(200);
    expect(direct.sandbox.hubvendor.server.requests()).toHaveLength(2);
    expect(proxy.seen).toEqual([]);
  });

  it('true with the proxy down: the failure is a mapped 502, never a hang', async () => {
    const down = await startProxy();
    await down.close();
    process.env.HTTP_PROXY = down.url;
    const e = await startTestEngine({
      routes: ROUTES,
      set: { 'http.client.proxy.activate': 'true', retryFlag: 'false' },
    });
    process.env.HTTP_PROXY = proxy.url;
    try {
      const r = await e.request('POST', '/payments/bank-directory', {
        identificationType: 'BIC',
        identification: 'DEUTDEFFXXX',
      });
      expect(r.status).toBe(502);
      expect(r.body.code).toBe('GC027');
      expect(e.sandbox.hubvendor.server.requests()).toHaveLength(0);
    } finally {
      await e.close();
    }
  });
});
