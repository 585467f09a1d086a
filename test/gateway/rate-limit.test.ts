// Rate limits exact at the boundary: per user id with a token, per client IP without one, the
// per-subscription quotas; trusted X-Forwarded-For; one budget shared by two engine processes
// through a real Redis (127.0.0.1:6379; the test fails when it is down).

import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { bearer, FX_ONLY_KEY, KEY, startGateway, type GatewayTestEngine } from './helpers.ts';
import { ClientIp } from '../../engine/gateway/client-ip.ts';
import { MemoryLimiter } from '../../engine/gateway/rate-limit.ts';
import { signSandboxToken } from '../../sandbox/idp/index.ts';

const FX = { name: 'getExchangeRate', arguments: { buyCurrency: 'EUR', sellCurrency: 'USD' } };

function expect429(r: { status: number; headers: Headers; body: any }, limit: number) {
  expect(r.status).toBe(429);
  const retry = Number(r.headers.get('retry-after'));
  expect(retry).toBeGreaterThanOrEqual(1);
  expect(retry).toBeLessThanOrEqual(60);
  expect(r.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(r.headers.get('ratelimit-remaining')).toBe('0');
  expect(r.body).toMatchObject({ status: 429, error: 'rate_limited' });
}

describe('in memory', () => {
  let e: GatewayTestEngine;
  beforeAll(async () => {
    e = await startGateway({
      'gateway.rateLimits.anonymous': '5', 'gateway.rateLimits.user': '7',
      'gateway.rateLimits.subscriptionPublic': '3', 'gateway.rateLimits.subscriptionUser': '2',
      'gateway.trustedProxies': '127.0.0.1',
    });
  });
  afterAll(async () => { await e?.close(); });
  const from = (ip: string) => ({ 'x-forwarded-for': ip });

  it('anonymous: exactly 5 per client IP, then 429 with Retry-After; another IP has its own budget', async () => {
    for (let i = 1; i <= 5; i++) {
      const r = await e.rpc('ping', undefined, from('198.51.100.1'));
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit-limit')).toBe('5');
      expect(r.headers.get('ratelimit-remaining')).toBe(String(5 - i));
    }
    expect429(await e.rpc('ping', undefined, from('198.51.100.1')), 5);
    expect429(await e.rpc('ping', undefined, from('198.51.100.1')), 5);
    expect((await e.rpc('ping', undefined, from('198.51.100.2'))).status).toBe(200);
    // a client cannot pick its IP: the right-most untrusted hop counts
    expect429(await e.rpc('ping', undefined, from('203.0.113.9, 198.51.100.1')), 5);
  });

  it('with a token: exactly 7 per user id, whatever the IP', async () => {
    const t = await e.token('limit-user');
    for (let i = 1; i <= 7; i++) expect((await e.rpc('ping', undefined, { ...bearer(t), ...from(`192.0.2.${i}`) })).status).toBe(200);
    expect429(await e.rpc('ping', undefined, { ...bearer(t), ...from('192.0.2.99') }), 7);
    expect((await e.rpc('ping', undefined, bearer(await e.token('other-user')))).status).toBe(200);
  });

  it('subscription quota for public tools: exactly 3 calls, other methods and subscriptions unaffected', async () => {
    for (let i = 0; i < 3; i++) expect((await e.rpc('tools/call', FX, from('198.51.100.10'))).body.result.isError).toBe(false);
    expect429(await e.rpc('tools/call', FX, from('198.51.100.11')), 3);
    expect((await e.rpc('ping', undefined, from('198.51.100.10'))).status).toBe(200);
    expect((await e.rpc('tools/call', FX, { ...from('198.51.100.12'), 'ocp-gateway-subscription-key': FX_ONLY_KEY })).status).toBe(200);
  });

  it('subscription quota for user-scoped tools: exactly 2 per user', async () => {
    const alice = await e.token('alice');
    const call = (t: string) => e.rpc('tools/call', { name: 'getMyAccountBalance', arguments: {} }, bearer(t));
    expect((await call(alice)).status).toBe(200);
    expect((await call(alice)).status).toBe(200);
    expect429(await call(alice), 2);
    expect((await call(await e.token('bob'))).status).toBe(200);
  });

  it('a refused request moves no counter', () => {
    const l = new MemoryLimiter();
    const checks = [{ key: 'a', limit: 2 }, { key: 'b', limit: 1 }];
    expect(l.hit(checks, 60_000).allowed).toBe(true);
    expect(l.hit(checks, 60_000).allowed).toBe(false); // b is full
    expect(l.hit([{ key: 'a', limit: 2 }], 60_000)).toMatchObject({ allowed: true, remaining: 0 });
    void l.close();
  });
});

describe('client IP', () => {
  it('trusts X-Forwarded-For only from configured proxies', () => {
    const ip = new ClientIp(['10.0.0.0/8', '::1']);
    expect(ip.of('203.0.113.5', '1.2.3.4')).toBe('203.0.113.5');
    expect(ip.of('10.1.1.1', '1.2.3.4, 10.2.2.2')).toBe('1.2.3.4');
    expect(ip.of('::ffff:10.1.1.1', '5.6.7.8')).toBe('5.6.7.8');
    expect(ip.of('::1', 'garbage')).toBe('::1');
    expect(new ClientIp([]).of('10.1.1.1', '1.2.3.4')).toBe('10.1.1.1');
  });
});

describe('shared through Redis by two engine processes', () => {
  const prefix = `gateway-test:${randomUUID()}:`;
  const set = {
    'gateway.redis.url': 'redis://127.0.0.1:6379', 'gateway.redis.prefix': prefix,
    'gateway.rateLimits.anonymous': '6', 'gateway.rateLimits.user': '4', 'gateway.rateLimits.subscriptionPublic': '1000',
  };
  let a: GatewayTestEngine;
  let child: ChildProcess;
  let bUrl: string;
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });

  beforeAll(async () => {
    await redis.connect();
    a = await startGateway(set);
    const args = ['bin/engine.js', 'run', 'routes/gateway', 'routes/platform-backend', 'routes/hubvendor-foreign-exchange', '--env', 'sandbox', '--port', '0',
      ...Object.entries(set).flatMap(([k, v]) => ['--set', `${k}=${v}`])];
    child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'info' } });
    bUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`second engine did not start: ${out}`)), 30_000);
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /"msg":"engine started"/.test(out) && /"url":"(http:\/\/[^"]+)"/.exec(out.split('\n').find((l) => l.includes('engine started')) ?? '');
        if (m) { clearTimeout(timer); resolve(m[1]); }
      });
      child.stderr!.on('data', (d) => { out += d; });
      child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`second engine exited ${code}: ${out}`)); });
    });
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
    await a?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  const post = async (base: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', 'ocp-gateway-subscription-key': KEY, ...headers }, body: JSON.stringify(body) });
    return { status: res.status, headers: res.headers, body: await res.json().catch(() => undefined) };
  };

  it('anonymous: 6 requests in total across both processes, then both refuse', async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    for (let i = 0; i < 3; i++) {
      expect((await post(a.url, ping)).status).toBe(200);
      expect((await post(bUrl, ping)).status).toBe(200);
    }
    expect429(await post(bUrl, ping), 6);
    expect429(await post(a.url, ping), 6);
    const keys = await redis.keys(`${prefix}ip:*`);
    expect(keys).toHaveLength(1);
    expect(await redis.get(keys[0])).toBe('6');
    const ttl = await redis.pttl(keys[0]);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('per user: 4 tool calls in total across both processes', async () => {
    const t = await signSandboxToken({ sub: 'shared-user' });
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: FX };
    expect((await post(a.url, call, bearer(t))).body.result.isError).toBe(false);
    expect((await post(bUrl, call, bearer(t))).body.result.isError).toBe(false);
    expect((await post(bUrl, call, bearer(t))).status).toBe(200);
    expect((await post(a.url, call, bearer(t))).status).toBe(200);
    expect429(await post(a.url, call, bearer(t)), 4);
    expect429(await post(bUrl, call, bearer(t)), 4);
  });
});
