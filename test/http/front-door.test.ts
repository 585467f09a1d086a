// The one HTTP front door (node:http + one router): what a caller sees for unknown paths, wrong
// methods, malformed URLs and malformed HTTP, HEAD on the operations endpoints, trailing slashes.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';

const FX = '/foreign-exchange/exchange-rates';
let e: TestEngine;
beforeAll(async () => {
  e = await startTestEngine({ routes: ['routes/hubvendor-foreign-exchange'] });
});
afterAll(async () => {
  await e?.close();
});

/** Sends raw bytes and reads until the server closes the connection. */
function raw(text: string): Promise<string> {
  const { port } = new URL(e.url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1', () => s.write(text));
    let out = '';
    s.on('data', (d) => {
      out += d;
    });
    s.on('end', () => resolve(out));
    s.on('error', reject);
    s.setTimeout(5000, () => {
      s.destroy();
      reject(new Error(`no close; got ${out}`));
    });
  });
}

/** A request whose path is sent exactly as given (fetch would normalise it). */
function exact(
  method: string,
  path: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(e.url + '/', { method, path }, (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the front door', () => {
  it('an unknown path is a 404 problem naming the method and the path, with length and correlation id', async () => {
    const res = await fetch(e.url + '/nowhere/at-all?x=1', {
      method: 'DELETE',
      headers: { 'x-correlation-id': 'corr-404' },
    });
    const text = await res.text();
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(res.headers.get('x-correlation-id')).toBe('corr-404');
    expect(JSON.parse(text)).toMatchObject({
      status: 404,
      title: 'Not found',
      detail: 'no route for DELETE /nowhere/at-all',
      instance: '/nowhere/at-all',
      correlationId: 'corr-404',
    });
  });

  it('a known path with another method is a 405 with Allow', async () => {
    const r = await e.request('GET', FX);
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(r.body).toMatchObject({
      status: 405,
      title: 'Method not allowed',
      detail: `GET is not allowed on ${FX}; allowed: POST`,
    });
    const ops = await e.request('POST', '/health/live', {});
    expect(ops.status).toBe(405);
    expect(ops.headers.get('allow')).toBe('GET, HEAD');
  });

  it('a trailing slash is ignored', async () => {
    const r = await e.request('POST', FX + '/', { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(r.status).toBe(200);
    expect(r.body.buyCurrency).toBe('EUR');
  });

  it('a malformed URL is a 400 problem', async () => {
    const r = await exact('POST', '/foreign-exchange/%zz');
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toBe('application/problem+json');
    expect(r.body).toMatchObject({ status: 400, code: 'GC025' });
    expect(r.body.detail).toContain('not a valid URL path');
  });

  it('malformed HTTP is answered 400 and the connection closed; the server keeps serving', async () => {
    const out = await raw('GET /health/live HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(out).toContain('content-type: application/problem+json');
    expect(out).toContain('connection: close');
    expect(JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4))).toMatchObject({
      status: 400,
      detail: 'the request is not well-formed HTTP',
    });
    expect((await e.request('GET', '/health/live')).status).toBe(200);
  });

  it('HEAD on the operations endpoints: the GET headers, no body', async () => {
    for (const path of ['/health/live', '/health/ready', '/metrics', '/openapi.json']) {
      const res = await fetch(e.url + path, { method: 'HEAD' });
      expect(res.status, path).toBe(200);
      expect(Number(res.headers.get('content-length')), path).toBeGreaterThan(0);
      expect(await res.text(), path).toBe('');
    }
    const get = await fetch(e.url + '/health/live');
    expect(get.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(get.headers.get('content-length')).toBe(String('{"status":"UP"}'.length));
  });
});
