// Graceful close of the front door: the in-flight exchange finishes (answered with
// `connection: close`), an exchange that starts while closing gets 503, idle keep-alive
// connections are closed at once.
import { it, expect } from 'vitest';
import { connect, type Socket } from 'node:net';
import { startTestEngine } from '../helpers/engine.ts';

const FX = '/foreign-exchange/exchange-rates';
const BODY = JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD' });
const post = (path: string) =>
  `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${BODY.length}\r\n\r\n${BODY}`;

function open(port: number): Promise<{ s: Socket; data: () => string; closed: Promise<void> }> {
  return new Promise((resolve) => {
    let buf = '';
    const s = connect(port, '127.0.0.1', () => resolve({ s, data: () => buf, closed }));
    const closed = new Promise<void>((r) => s.on('close', () => r()));
    s.on('data', (d) => {
      buf += d;
    });
    s.on('error', () => {});
  });
}
const until = async (fn: () => boolean, ms = 5000) => {
  for (const end = Date.now() + ms; !fn();) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

it('finishes in-flight exchanges, refuses new ones with 503, closes idle connections', async () => {
  const e = await startTestEngine({ routes: ['routes/hubvendor-foreign-exchange'] });
  const port = Number(new URL(e.url).port);
  // an idle keep-alive connection: one exchange done
  const idle = await open(port);
  idle.s.write('GET /health/live HTTP/1.1\r\nhost: x\r\n\r\n');
  await until(() => idle.data().includes('{"status":"UP"}'));
  // an exchange in flight: the vendor answers after 800 ms
  e.sandbox.hubvendor.server.addFault({ path: '^/v1/forex/', delayMs: 800 });
  const busy = await open(port);
  busy.s.write(post(FX));
  await until(() => e.sandbox.hubvendor.server.requests().some((r) => r.path.startsWith('/v1/forex/')));
  // a request under way (headers not complete) when closing starts
  const late = await open(port);
  late.s.write(`GET /health/live HTTP/1.1\r\nhost: x\r\n`);
  await new Promise((r) => setTimeout(r, 50));

  const closing = e.http.close(5000);
  await idle.closed; // closed at once, while the exchange is still in flight
  expect(busy.data()).toBe('');
  late.s.write('\r\n');
  await until(() => late.data().includes('\r\n\r\n{'));
  expect(late.data()).toMatch(/^HTTP\/1\.1 503 /);
  expect(late.data()).toContain('connection: close');
  expect(late.data()).toContain('the engine is shutting down');

  expect(await closing).toBe(true);
  await busy.closed;
  expect(busy.data()).toMatch(/^HTTP\/1\.1 200 /);
  expect(busy.data()).toContain('connection: close');
  expect(busy.data()).toContain('"buyCurrency":"EUR"');
  await e.close();
}, 15_000);
