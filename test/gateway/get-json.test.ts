// The identity provider fetch (discovery document, JWKS): a real server on 127.0.0.1 answering
// JSON, an error status, text that is not JSON, a document past the size bound, and no answer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson } from '../../engine/gateway/get-json.ts';

let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/jwks') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [{ kid: 'a', accept: req.headers.accept }] }));
    } else if (req.url === '/missing') {
      res.statusCode = 404;
      res.end('no');
    } else if (req.url === '/text') res.end('<html>');
    else if (req.url === '/huge') {
      res.write('[');
      const chunk = '1,'.repeat(64 * 1024);
      for (let i = 0; i < 20; i++) res.write(chunk);
      res.end('1]');
    } else if (req.url === '/slow') setTimeout(() => res.end('{}'), 2000);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('getJson', () => {
  it('reads a JSON document, asking for JSON', async () => {
    expect(await getJson(`${base}/jwks`, 5000)).toEqual({ keys: [{ kid: 'a', accept: 'application/json' }] });
  });
  it('refuses an error status, text that is not JSON, a document past 1 MiB and a non-HTTP URL, naming the URL', async () => {
    await expect(getJson(`${base}/missing`, 5000)).rejects.toThrow(`GET ${base}/missing: HTTP 404`);
    await expect(getJson(`${base}/text`, 5000)).rejects.toThrow('the answer is not JSON');
    await expect(getJson(`${base}/huge`, 5000)).rejects.toThrow('larger than 1048576 bytes');
    await expect(getJson('file:///etc/passwd', 5000)).rejects.toThrow('only http and https');
  });
  it('gives up after the timeout for the whole exchange', async () => {
    const t0 = Date.now();
    await expect(getJson(`${base}/slow`, 200)).rejects.toThrow('no answer within 200 ms');
    expect(Date.now() - t0).toBeLessThan(1500);
  });
});
