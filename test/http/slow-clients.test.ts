// Slow clients and too many connections (issue 24, finding 10): a request whose headers or body
// do not arrive within engine.server.headersTimeout / requestTimeout gets a 408 problem and its
// connection closed (Node's own limit held it 300 s); beyond engine.server.maxConnections open
// connections a new one is closed as it arrives. Raw sockets against an engine whose environment
// file sets small limits, and the shipped defaults pinned on an engine started as shipped.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { ENGINE_DEFAULTS } from '../../engine/config/engine-settings.ts';
import { createLogger } from '../../engine/observability/logger.ts';

const REQUEST_MS = 1500;
const HEADERS_MS = 1000;
const MAX_CONNECTIONS = 4;
const FX = '/foreign-exchange/exchange-rates';
const BODY = JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD' });

let e: TestEngine;
let envFile = '';
const logs: any[] = [];

beforeAll(async () => {
  const values = join(mkdtempSync(join(tmpdir(), 'engine-values-')), 'values');
  cpSync('values', values, { recursive: true });
  const env = (envFile = join(values, 'environments', 'sandbox.yaml'));
  const limits = `engine:\n  server:\n    requestTimeout: ${REQUEST_MS}\n    headersTimeout: ${HEADERS_MS}\n    maxConnections: ${MAX_CONNECTIONS}\n`;
  writeFileSync(env, readFileSync(env, 'utf8').replace(/^engine:\n  server:\n/m, limits));
  expect(readFileSync(env, 'utf8')).toContain(`maxConnections: ${MAX_CONNECTIONS}`);
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) logs.push(JSON.parse(l));
      cb();
    },
  });
  e = await startTestEngine({
    routes: ['routes/hubvendor-foreign-exchange'],
    valuesDir: values,
    logger: createLogger('info', sink),
    extensions: [],
  });
});
afterAll(async () => {
  await e?.close();
});

interface Conn {
  socket: Socket;
  text: () => string;
  closed: Promise<number>;
}

/** A raw connection: what it received so far, and when it was closed (ms after opening). */
function open(): Promise<Conn> {
  const { port } = new URL(e.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let text = '';
    const socket = connect(Number(port), '127.0.0.1');
    const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - started)));
    socket.on('data', (d) => {
      text += d;
    });
    socket.on('error', () => {
      /* a reset is a close too */
    });
    socket.once('connect', () => resolve({ socket, text: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Writes `text` a few bytes at a time, one piece every `everyMs`, until done or the socket closes. */
async function dribble(c: Conn, text: string, everyMs: number, bytes = 2): Promise<void> {
  for (let i = 0; i < text.length && !c.socket.destroyed && c.socket.writable; i += bytes) {
    c.socket.write(text.slice(i, i + bytes));
    await sleep(everyMs);
  }
}

const head = (contentLength: number) =>
  `POST ${FX} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n`;

/** Sends a keep-alive GET /health/live and waits for its answer; the connection stays open, idle. */
async function served(c: Conn): Promise<void> {
  c.socket.write('GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  for (let i = 0; i < 100 && !c.text().includes('"UP"'); i++) await sleep(20);
  expect(c.text()).toMatch(/^HTTP\/1\.1 200 /);
}

describe('request deadlines', () => {
  it('a body dribbled slower than engine.server.requestTimeout: 408 problem, connection closed', async () => {
    const c = await open();
    c.socket.write(head(BODY.length));
    // 2 bytes every 300 ms: the body would take about 6 s, four times the deadline
    void dribble(c, BODY, 300);
    const closedAfter = await Promise.race([c.closed, sleep(8000).then(() => -1)]);
    expect(closedAfter, 'the connection was held past 8 s').toBeGreaterThan(0);
    // the deadline is checked once a second
    expect(closedAfter).toBeGreaterThanOrEqual(REQUEST_MS - 100);
    expect(closedAfter).toBeLessThan(REQUEST_MS + 2500);
    const [status, body] = [c.text().split('\r\n')[0], c.text().slice(c.text().indexOf('\r\n\r\n') + 4)];
    expect(status).toBe('HTTP/1.1 408 Request Timeout');
    expect(c.text()).toMatch(/content-type: application\/problem\+json/i);
    expect(c.text()).toMatch(/connection: close/i);
    expect(JSON.parse(body)).toMatchObject({ status: 408, detail: 'the request was not received in time' });
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('headers dribbled slower than engine.server.headersTimeout: 408, connection closed', async () => {
    const c = await open();
    void dribble(c, head(BODY.length), 300);
    const closedAfter = await Promise.race([c.closed, sleep(8000).then(() => -1)]);
    expect(closedAfter).toBeGreaterThanOrEqual(HEADERS_MS - 100);
    expect(closedAfter).toBeLessThan(HEADERS_MS + 2500);
    expect(c.text()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a connection that sends nothing is closed after engine.server.headersTimeout', async () => {
    const c = await open();
    const closedAfter = await Promise.race([c.closed, sleep(8000).then(() => -1)]);
    expect(closedAfter).toBeGreaterThanOrEqual(HEADERS_MS - 100);
    expect(closedAfter).toBeLessThan(HEADERS_MS + 2500);
  });

  it('a body sent slowly but within the deadline is answered', async () => {
    const c = await open();
    c.socket.write(head(BODY.length));
    // about 0.6 s in all, under 1.5 s
    await dribble(c, BODY, 600 / (BODY.length / 8), 8);
    for (let i = 0; i < 200 && !c.text().includes('buyRate'); i++) await sleep(20);
    expect(c.text()).toMatch(/^HTTP\/1\.1 200 /);
    expect(c.text()).toContain('buyRate');
    c.socket.destroy();
  });
});

describe('connection cap', () => {
  it(`beyond engine.server.maxConnections (${MAX_CONNECTIONS}) open connections, a new one is closed unanswered; one closing makes room`, async () => {
    // let the connections of the earlier tests go
    await sleep(200);
    const held: Conn[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) {
      const c = await open();
      await served(c);
      held.push(c);
    }
    const extra = await open();
    extra.socket.write('GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const closedAfter = await Promise.race([extra.closed, sleep(3000).then(() => -1)]);
    expect(closedAfter, 'the connection over the cap stayed open').toBeGreaterThan(0);
    expect(extra.text()).toBe('');
    // the kept connections still serve
    await served(held[0]);
    expect(
      logs.some(
        (l) =>
          l.level === 'warn' && /engine\.server\.maxConnections/.test(l.msg) && l.maxConnections === MAX_CONNECTIONS,
      ),
    ).toBe(true);

    held.pop()!.socket.destroy();
    await sleep(100);
    const next = await open();
    await served(next);
    for (const c of [...held, next]) c.socket.destroy();
  });
});

describe('reload', () => {
  it('an edit of the deadlines and the cap applies at a reload', async () => {
    writeFileSync(
      envFile,
      readFileSync(envFile, 'utf8')
        .replace(`maxConnections: ${MAX_CONNECTIONS}`, 'maxConnections: 7')
        .replace(`requestTimeout: ${REQUEST_MS}`, 'requestTimeout: 2500'),
    );
    expect((await e.reload('limits edited')).ok).toBe(true);
    expect(e.http.server).toMatchObject({ requestTimeout: 2500, headersTimeout: HEADERS_MS, maxConnections: 7 });
  });
});

describe('shipped defaults', () => {
  it('requestTimeout 30 s, headersTimeout 10 s, maxConnections 1024: in the settings and on the listener', async () => {
    expect(ENGINE_DEFAULTS.server).toMatchObject({
      requestTimeout: 30_000,
      headersTimeout: 10_000,
      maxConnections: 1024,
    });
    const shipped = await startTestEngine({ routes: ['routes/hubvendor-foreign-exchange'], extensions: [] });
    try {
      expect(shipped.http.server).toMatchObject({
        requestTimeout: 30_000,
        headersTimeout: 10_000,
        maxConnections: 1024,
      });
    } finally {
      await shipped.close();
    }
  });
});
