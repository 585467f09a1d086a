// Extension paths of the front door (addRaw, as the gateway's /mcp): a handler may answer at once
// or through a promise; a handler that throws or rejects is a 500 problem (logged), and an
// exchange counts as in flight until its promise settles, so close() waits for it.
import { it, expect } from 'vitest';
import { HttpServer } from '../../engine/http/server.ts';
import { Metrics } from '../../engine/observability/metrics.ts';
import { createLogger } from '../../engine/observability/logger.ts';

it('sync and async answers, sync throws and rejections, and close() waiting for a pending answer', async () => {
  const logged: string[] = [];
  const logger = createLogger('silent');
  logger.error = ((o: { err?: Error }) => {
    logged.push(o.err?.message ?? '');
  }) as typeof logger.error;
  const http = new HttpServer({
    logger,
    metrics: new Metrics(false),
    ready: () => ({ ready: true, checks: {} }),
    openapi: () => ({}),
  });
  let release!: () => void;
  const slow = new Promise<void>((r) => {
    release = r;
  });
  http.addRaw('POST', '/sync', (_req, res, body) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`sync:${body}`);
  });
  http.addRaw('POST', '/async', async (_req, res, body) => {
    await null;
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`async:${body}`);
  });
  http.addRaw('POST', '/throws', () => {
    throw new Error('thrown at once');
  });
  http.addRaw('POST', '/rejects', async () => {
    await null;
    throw new Error('rejected later');
  });
  http.addRaw('POST', '/slow', async (_req, res) => {
    await slow;
    res.writeHead(200).end('slow');
  });
  const url = await http.listen(0, '127.0.0.1');
  const post = (path: string) => fetch(url + path, { method: 'POST', body: 'x' });

  const sync = await post('/sync');
  expect([sync.status, await sync.text()]).toEqual([200, 'sync:x']);
  const later = await post('/async');
  expect([later.status, await later.text()]).toEqual([200, 'async:x']);
  for (const [path, message] of [
    ['/throws', 'thrown at once'],
    ['/rejects', 'rejected later'],
  ]) {
    const r = await post(path);
    expect(r.status).toBe(500);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect((await r.json()).status).toBe(500);
    expect(logged).toContain(message);
  }

  // in flight until its promise settles: close() waits for it and reports a clean close
  const pending = post('/slow');
  await new Promise((r) => setTimeout(r, 100));
  let closed: boolean | undefined;
  const closing = http.close(5000).then((clean) => {
    closed = clean;
  });
  await new Promise((r) => setTimeout(r, 200));
  expect(closed).toBeUndefined();
  release();
  await closing;
  expect(closed).toBe(true);
  expect(await (await pending).text()).toBe('slow');
});
