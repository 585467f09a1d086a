// The outbound HTTP call on undici's dispatch API, against a real local server: bodies, headers,
// deadlines, oversize answers and connection failures.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HttpClients,
  httpCall,
  splitUrl,
  MAX_RESPONSE_BYTES,
  type Timeouts,
} from '../../engine/outbound/http-client.ts';
import { PlatformError } from '../../engine/core/errors.ts';

let server: Server;
let base: string;
let connections = 0;
const clients = new HttpClients();
const dispatcher = clients.get({ connections: 4, connectTimeout: 1000, proxy: false });
const T: Timeouts = { connect: 1000, request: 1000, response: 1000, socket: 1000 };

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = (req.url ?? '/').split('?')[0];
      if (url === '/echo-url' || url === '/' || url.startsWith('/z')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: req.url }));
      } else if (url === '/odd-headers') {
        res.writeHead(
          200,
          [
            ['Constructor', 'c1'],
            ['__proto__', 'p1'],
            ['Content-Type', 'application/json'],
            ['Content-Type', 'charset=utf-8'],
          ].flat() as never,
        );
        res.end('{"ok":true}');
      } else if (url === '/slow') {
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"slow":true}'), 300);
      } else if (url === '/json') {
        res.writeHead(201, {
          'content-type': 'application/json',
          'set-cookie': ['a=1', 'b=2'],
          'x-echo': req.headers['x-test'] ?? '',
        });
        res.end(
          JSON.stringify({ got: Buffer.concat(chunks).toString(), method: req.method, query: req.url?.split('?')[1] }),
        );
      } else if (url === '/text') {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      } else if (url === '/empty') {
        res.writeHead(204).end();
      } else if (url === '/silent') {
        // never answers
      } else if (url === '/slow-body') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"a":');
      } else if (url === '/huge') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(1024 * 1024, 97);
        let sent = 0;
        const pump = () => {
          while (sent <= MAX_RESPONSE_BYTES) {
            sent += chunk.length;
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        pump();
      }
    });
  });
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await clients.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const fails = async (p: Promise<unknown>): Promise<PlatformError & { notSent?: boolean }> => {
  try {
    await p;
  } catch (e) {
    return e as PlatformError & { notSent?: boolean };
  }
  throw new Error('expected the call to fail');
};

describe('httpCall', () => {
  it('sends method, headers and body; parses a JSON answer; keeps repeated headers as arrays', async () => {
    const r = await httpCall({
      method: 'POST',
      url: `${base}/json?x=1`,
      headers: { 'x-test': 'yes', 'content-type': 'application/json' },
      body: '{"k":1}',
      timeouts: T,
      dispatcher,
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ got: '{"k":1}', method: 'POST', query: 'x=1' });
    expect(r.headers['x-echo']).toBe('yes');
    expect(r.headers['set-cookie']).toEqual(['a=1', 'b=2']);
  });

  it('answers of any status are returned; text stays text, an empty body is undefined', async () => {
    const t = await httpCall({ method: 'GET', url: `${base}/text`, headers: {}, timeouts: T, dispatcher });
    expect(t).toMatchObject({ status: 503, body: 'busy' });
    const e = await httpCall({ method: 'GET', url: `${base}/empty`, headers: {}, timeouts: T, dispatcher });
    expect(e.status).toBe(204);
    expect(e.body).toBeUndefined();
  });

  it('no response headers within the response timeout: a timeout error, on time', async () => {
    const started = Date.now();
    const e = await fails(
      httpCall({ method: 'GET', url: `${base}/silent`, headers: {}, timeouts: { ...T, response: 150 }, dispatcher }),
    );
    expect(e.kind).toBe('timeout');
    expect(e.detail).toContain('response timeout');
    expect(e.notSent).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a body that never ends: the whole call is bounded by request + response', async () => {
    const started = Date.now();
    const e = await fails(
      httpCall({
        method: 'GET',
        url: `${base}/slow-body`,
        headers: {},
        timeouts: { ...T, request: 100, response: 150 },
        dispatcher,
      }),
    );
    expect(e.kind).toBe('timeout');
    expect(e.detail).toContain('request timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it(`an answer over ${MAX_RESPONSE_BYTES} bytes is refused, not held in memory`, async () => {
    const e = await fails(
      httpCall({
        method: 'GET',
        url: `${base}/huge`,
        headers: {},
        timeouts: { ...T, request: 20_000, response: 20_000, socket: 20_000 },
        dispatcher,
      }),
    );
    expect(e.kind).toBe('connection');
    expect(e.detail).toContain(`more than ${MAX_RESPONSE_BYTES} bytes`);
  });

  it('a refused connection: the vendor cannot have seen the request (notSent)', async () => {
    const e = await fails(
      httpCall({ method: 'POST', url: 'http://127.0.0.1:1/x', headers: {}, body: '{}', timeouts: T, dispatcher }),
    );
    expect(e.kind).toBe('connection');
    expect(e.notSent).toBe(true);
  });

  it('an aborted exchange ends the call', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const e = await fails(
      httpCall({ method: 'GET', url: `${base}/silent`, headers: {}, timeouts: T, dispatcher, signal: ac.signal }),
    );
    expect(e.kind).toBe('connection');
    expect(e.detail).toContain('aborted');
  });

  it('URLs: a query without a path, characters that need encoding, one pool key per vendor spelling', async () => {
    const port = new URL(base).port;
    expect(
      (await httpCall({ method: 'GET', url: `http://127.0.0.1:${port}?x=1`, headers: {}, timeouts: T, dispatcher }))
        .body,
    ).toEqual({ url: '/?x=1' });
    expect(
      (await httpCall({ method: 'GET', url: `${base}/zürich a`, headers: {}, timeouts: T, dispatcher })).body,
    ).toEqual({ url: '/z%C3%BCrich%20a' });
    expect(splitUrl('HTTPS://Vendor.EXAMPLE:443/a?b=c#frag')).toEqual({
      origin: 'https://vendor.example',
      path: '/a?b=c',
    });
    expect(splitUrl('http://vendor.example:8080')).toEqual({ origin: 'http://vendor.example:8080', path: '/' });
    expect(splitUrl('https://user:pw@vendor.example/x')).toEqual({ origin: 'https://vendor.example', path: '/x' });
    expect(splitUrl('http://[::1]:9/p')).toEqual({ origin: 'http://[::1]:9', path: '/p' });
    expect(splitUrl('ftp://vendor.example/x')).toBeUndefined();
    expect(splitUrl('not a url')).toBeUndefined();
  });

  it('response headers named like Object.prototype members stay plain headers', async () => {
    const r = await httpCall({ method: 'GET', url: `${base}/odd-headers`, headers: {}, timeouts: T, dispatcher });
    expect(Object.getPrototypeOf(r.headers)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(r.headers, 'constructor')?.value).toBe('c1');
    expect(Object.getOwnPropertyDescriptor(r.headers, '__proto__')?.value).toBe('p1');
    // a repeated content type is an array, and still recognised as JSON
    expect(r.headers['content-type']).toEqual(['application/json', 'charset=utf-8']);
    expect(r.body).toEqual({ ok: true });
  });

  it('a call whose deadline passed while queued for a connection leaves the pooled connection alone', async () => {
    const one = new HttpClients();
    const single = one.get({ connections: 1, connectTimeout: 1000, proxy: false });
    const before = connections;
    const slow = httpCall({ method: 'GET', url: `${base}/slow`, headers: {}, timeouts: T, dispatcher: single });
    const queued = [1, 2, 3].map(() =>
      fails(
        httpCall({
          method: 'GET',
          url: `${base}/slow`,
          headers: {},
          timeouts: { ...T, response: 100 },
          dispatcher: single,
        }),
      ),
    );
    for (const q of queued) expect((await q).kind).toBe('timeout');
    expect((await slow).body).toEqual({ slow: true });
    expect(
      (await httpCall({ method: 'GET', url: `${base}/json`, headers: {}, timeouts: T, dispatcher: single })).status,
    ).toBe(201);
    expect(connections - before).toBe(1);
    await one.close();
  });
});
