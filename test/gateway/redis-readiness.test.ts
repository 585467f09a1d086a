// Readiness says what the gateway can do (issue 24, finding 10): with its rate limits in Redis and
// gateway.redis.onError: deny, every /mcp call is a 503 while Redis is unreachable, so
// /health/ready is 503 naming the check (gateway.redis) and 200 again once Redis is back, with no
// traffic needed to notice either. With onError: allow the gateway serves (unlimited): ready stays
// 200. A real redis-server (on PATH) on a spare port, killed, stopped and restarted by the test.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayTestEngine } from './helpers.ts';

const FX = { name: 'getExchangeRate', arguments: { buyCurrency: 'EUR', sellCurrency: 'USD' } };

let port: number;
let redis: ChildProcess | undefined;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const p = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return p;
}

/** A redis-server on `port`, without persistence; resolves once it accepts connections. */
async function startRedis(): Promise<void> {
  // never two: a second would fail on the port and leave the first running unowned
  await stopRedis();
  const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  redis = p;
  let out = '';
  await new Promise<void>((resolve, reject) => {
    p.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('Ready to accept connections')) resolve();
    });
    p.on('exit', (c) => reject(new Error(`redis-server exited ${c}: ${out}`)));
    p.on('error', reject);
  });
}

async function stopRedis(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const p = redis;
  redis = undefined;
  if (!p || p.exitCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill(signal);
  await exited;
}

async function ready(e: GatewayTestEngine): Promise<{ status: number; body: any }> {
  const r = await e.request('GET', '/health/ready');
  return { status: r.status, body: r.body };
}

/** Polls readiness until it answers `status` (or the time is up); the last answer. */
async function readyBecomes(
  e: GatewayTestEngine,
  status: number,
  withinMs: number,
): Promise<{ status: number; body: any }> {
  const end = Date.now() + withinMs;
  let r = await ready(e);
  while (r.status !== status && Date.now() < end) {
    await sleep(100);
    r = await ready(e);
  }
  return r;
}

beforeAll(async () => {
  port = await freePort();
});
afterAll(async () => {
  await stopRedis();
});

describe('gateway.redis.onError: deny', () => {
  let e: GatewayTestEngine;
  beforeAll(async () => {
    await startRedis();
    e = await startGateway({
      'gateway.redis.url': `redis://127.0.0.1:${port}`,
      'gateway.redis.prefix': `ready-${process.pid}:`,
      'gateway.redis.onError': 'deny',
    });
  });
  afterAll(async () => {
    await e?.close();
    await stopRedis();
  });

  it('Redis up: ready 200 with the gateway.redis check, /mcp serves', async () => {
    expect(await ready(e)).toEqual({
      status: 200,
      body: { status: 'UP', checks: { started: true, 'gateway.redis': true } },
    });
    expect((await e.rpc('tools/call', FX)).status).toBe(200);
  });

  it('Redis killed: ready 503 naming gateway.redis while /mcp answers 503; back to 200 once Redis is back, without traffic', async () => {
    await stopRedis('SIGKILL');
    const down = await readyBecomes(e, 503, 5000);
    expect(down).toEqual({ status: 503, body: { status: 'DOWN', checks: { started: true, 'gateway.redis': false } } });
    expect((await e.rpc('tools/call', FX)).status).toBe(503);
    // liveness is not readiness: the process is fine
    expect((await e.request('GET', '/health/live')).status).toBe(200);

    await startRedis();
    const up = await readyBecomes(e, 200, 10_000);
    expect(up).toEqual({ status: 200, body: { status: 'UP', checks: { started: true, 'gateway.redis': true } } });
    expect((await e.rpc('tools/call', FX)).status).toBe(200);
  });

  it('Redis hanging (SIGSTOP): the first call that times out makes it not ready; a probe sees it back after SIGCONT', async () => {
    redis!.kill('SIGSTOP');
    try {
      // the connection stays open: only a command that times out (2 s) tells
      expect((await e.rpc('tools/call', FX)).status).toBe(503);
      expect((await ready(e)).body.checks['gateway.redis']).toBe(false);
    } finally {
      redis!.kill('SIGCONT');
    }
    const up = await readyBecomes(e, 200, 10_000);
    expect(up.status).toBe(200);
  });
});

describe('gateway.redis.onError: allow', () => {
  it('Redis killed: the gateway serves unlimited and readiness stays 200 (no gateway.redis check)', async () => {
    await startRedis();
    const e = await startGateway({
      'gateway.redis.url': `redis://127.0.0.1:${port}`,
      'gateway.redis.prefix': `ready-${process.pid}:`,
      'gateway.redis.onError': 'allow',
    });
    try {
      await stopRedis('SIGKILL');
      expect((await e.rpc('tools/call', FX)).status).toBe(200);
      for (let i = 0; i < 10; i++) {
        expect(await ready(e)).toEqual({ status: 200, body: { status: 'UP', checks: { started: true } } });
        await sleep(100);
      }
    } finally {
      await e.close();
    }
  });
});
