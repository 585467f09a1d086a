// The URL a to-http step calls. A URL whose origin is literal is split once when the route loads
// and each call fills in only its path; the vendor must see the same request line as when the
// whole URL was parsed per call: any spelling of the origin, parameters encoded, the query added
// after a literal one, and paths with text that needs encoding. Real sockets.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const route = (id: string, url: string) => `id: ${id}
from:
  http:
    method: POST
    path: /${id}/{id}
steps:
  - to-http:
      url: "${url}"
      path-params: { id: params.id }
      query: { q: body.q }
`;

describe('the URL a to-http step calls', () => {
  let engine: RunningEngine;
  let vendor: Server;
  const seen: { url: string; host: string }[] = [];

  beforeAll(async () => {
    vendor = createServer((req, res) => {
      seen.push({ url: req.url!, host: req.headers.host! });
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
    });
    await new Promise<void>((r) => vendor.listen(0, '127.0.0.1', r));
    const port = (vendor.address() as AddressInfo).port;
    const root = tmpProject({
      'routes/u/upper.yaml': route('upper', `HTTP://127.0.0.1:${port}/v1/items/{id}?fixed=1`),
      'routes/u/plain.yaml': route('plain', `http://127.0.0.1:${port}/{id}`),
      'routes/u/unicode.yaml': route('unicode', `http://127.0.0.1:${port}/v1/zürich/{id}`),
    });
    engine = await startEngine({ routes: ['routes'], root, port: 0, logger: createLogger('silent'), processEnv: {} });
  });
  afterAll(async () => {
    await engine?.close();
    vendor?.close();
  });

  const call = async (path: string, q: string): Promise<{ url: string; host: string }> => {
    seen.length = 0;
    const res = await fetch(`${engine.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ q }),
    });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(1);
    return seen[0];
  };

  it('an upper-case origin, an encoded parameter and a query after a literal one', async () => {
    const r = await call('/upper/A%2F1%20%C3%A9', 'a b&c');
    expect(r.url).toBe('/v1/items/A%2F1%20%C3%A9?fixed=1&q=a+b%26c');
    expect(r.host).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('a template that is all parameter, with a plain query', async () => {
    expect((await call('/plain/x-1', 'v')).url).toBe('/x-1?q=v');
  });

  it('literal path text that needs encoding', async () => {
    expect((await call('/unicode/7', 'v')).url).toBe('/v1/z%C3%BCrich/7?q=v');
  });
});
