// Rate limits exact at the boundary: per user id with a token, per client IP without one, the
// per-subscription quotas; trusted X-Forwarded-For; sliding windows (no double burst across a
// window boundary, in memory and in Redis); bad bearer tokens paid from the client IP's budget;
// one budget shared by two engine processes through a real Redis (127.0.0.1:6379; the test fails
// when it is down); gateway.redis.onError when Redis is unreachable.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { bearer, FX_ONLY_KEY, KEY, startGateway, type GatewayTestEngine } from './helpers.ts';
import { ClientIp } from '../../engine/gateway/client-ip.ts';
import { MemoryLimiter } from '../../engine/gateway/rate-limit.ts';
import { createLogger } from '../../engine/observability/logger.ts';
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

describe('per-subscription quotas from values', () => {
  let e: GatewayTestEngine;
  beforeAll(async () => {
    // the defaults are generous; each subscription's own quota values win over them
    e = await startGateway({
      'gateway.rateLimits.anonymous': '1000',
      'gateway.rateLimits.user': '1000',
      'gateway.rateLimits.subscriptionPublic': '50',
      'gateway.rateLimits.subscriptionUser': '50',
      // properties the values file does not have yet: scoped to it with 'file:property'
      'gateway:gateway.subscriptions.sandbox.fx-only.quota.public': '2',
      'gateway:gateway.subscriptions.sandbox.demo-agent.quota.user': '3',
    });
  });
  afterAll(async () => {
    await e?.close();
  });

  it('public tools: the fx-only subscription gets exactly its own 2, demo-agent the default 50', async () => {
    const fxOnly = { 'ocp-gateway-subscription-key': FX_ONLY_KEY };
    for (let i = 0; i < 2; i++) expect((await e.rpc('tools/call', FX, fxOnly)).body.result.isError).toBe(false);
    expect429(await e.rpc('tools/call', FX, fxOnly), 2);
    const r = await e.rpc('tools/call', FX);
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit-limit')).toBe('50');
  });

  it("user-scoped tools: the demo-agent subscription's own quota of 3 per user", async () => {
    const call = (t: string) => e.rpc('tools/call', { name: 'getMyAccountBalance', arguments: {} }, bearer(t));
    const carol = await e.token('carol');
    for (let i = 1; i <= 3; i++) {
      const r = await call(carol);
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit-remaining')).toBe(String(3 - i));
    }
    expect429(await call(carol), 3);
    expect((await call(await e.token('dave'))).status).toBe(200);
  });
});

describe('in memory', () => {
  let e: GatewayTestEngine;
  beforeAll(async () => {
    e = await startGateway({
      'gateway.rateLimits.anonymous': '5',
      'gateway.rateLimits.user': '7',
      'gateway.rateLimits.subscriptionPublic': '3',
      'gateway.rateLimits.subscriptionUser': '2',
      'gateway.trustedProxies': '127.0.0.1',
    });
  });
  afterAll(async () => {
    await e?.close();
  });
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
    for (let i = 1; i <= 7; i++)
      expect((await e.rpc('ping', undefined, { ...bearer(t), ...from(`192.0.2.${i}`) })).status).toBe(200);
    expect429(await e.rpc('ping', undefined, { ...bearer(t), ...from('192.0.2.99') }), 7);
    expect((await e.rpc('ping', undefined, bearer(await e.token('other-user')))).status).toBe(200);
  });

  it('subscription quota for public tools: exactly 3 calls, other methods and subscriptions unaffected', async () => {
    for (let i = 0; i < 3; i++)
      expect((await e.rpc('tools/call', FX, from('198.51.100.10'))).body.result.isError).toBe(false);
    expect429(await e.rpc('tools/call', FX, from('198.51.100.11')), 3);
    expect((await e.rpc('ping', undefined, from('198.51.100.10'))).status).toBe(200);
    expect(
      (await e.rpc('tools/call', FX, { ...from('198.51.100.12'), 'ocp-gateway-subscription-key': FX_ONLY_KEY })).status,
    ).toBe(200);
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
    const checks = [
      { key: 'a', limit: 2 },
      { key: 'b', limit: 1 },
    ];
    expect(l.hit(checks, 60_000).allowed).toBe(true);
    expect(l.hit(checks, 60_000).allowed).toBe(false); // b is full
    expect(l.hit([{ key: 'a', limit: 2 }], 60_000)).toMatchObject({ allowed: true, remaining: 0 });
    void l.close();
  });
});

describe('sliding window (memory, with a clock of the test)', () => {
  it('no double burst across a window boundary: 50 at 59.9 s and 50 more at 60.1 s is refused', () => {
    let t = 0;
    const l = new MemoryLimiter({ now: () => t });
    const ip = [{ key: 'ip:x', limit: 50 }];
    expect(l.hit(ip, 60_000)).toMatchObject({ allowed: true, remaining: 49, resetMs: 60_000 });
    t = 59_900;
    for (let i = 0; i < 49; i++) expect(l.hit(ip, 60_000).allowed).toBe(true);
    // full: room again when the call at 0 leaves the window, at 60 s
    expect(l.hit(ip, 60_000)).toMatchObject({ allowed: false, remaining: 0, resetMs: 100 });
    t = 60_000; // a call exactly one window ago no longer counts
    expect(l.hit(ip, 60_000)).toMatchObject({ allowed: true, remaining: 0 });
    t = 60_100;
    // a fixed window would allow 50 here; the sliding one has no room until the calls of 59.9 s leave
    expect(l.hit(ip, 60_000)).toMatchObject({ allowed: false, remaining: 0, resetMs: 59_800 });
    t = 119_900;
    for (let i = 0; i < 49; i++) expect(l.hit(ip, 60_000).allowed).toBe(true);
    expect(l.hit(ip, 60_000).allowed).toBe(false);
    void l.close();
  });

  it('at most N accepted calls in any window-long span, for random arrivals', () => {
    let t = 0;
    const l = new MemoryLimiter({ now: () => t });
    const accepted: number[] = [];
    const N = 10;
    const W = 1000;
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5000; i++) {
      t += Math.floor(rnd() ** 3 * 400); // bursts and gaps
      const r = l.hit([{ key: 'k', limit: N }], W);
      if (r.allowed) accepted.push(t);
      else expect(r.resetMs).toBeGreaterThan(0);
    }
    for (let k = 0; k + N < accepted.length; k++) expect(accepted[k + N] - accepted[k]).toBeGreaterThanOrEqual(W);
    // and it is not stricter than that: every refusal had N accepted calls in the window before it
    expect(accepted.length).toBeGreaterThan(500);
    void l.close();
  });

  it('release gives a unit back', () => {
    const l = new MemoryLimiter();
    const c = [{ key: 'r', limit: 1 }];
    const r = l.hit(c, 60_000);
    expect(l.hit(c, 60_000).allowed).toBe(false);
    l.release(['r'], r.ticket!);
    expect(l.hit(c, 60_000).allowed).toBe(true);
    void l.close();
  });
});

type Sent = { status: number; sent: number; recv: number; retryAfter: number };

/**
 * The fixed-window attack: one call, then N - 1 just before the window that call opened would end,
 * then N just after. A sliding window accepts only the one unit freed by the first call in the
 * second burst. Timing-robust: the assertions allow for any slowness of the machine (a slow run
 * can only make more units free, and those are accounted for), and every N + 1 accepted calls must
 * span a full window by the client's own clock.
 */
async function doubleBurst(
  send: () => Promise<{ status: number; headers: Headers }>,
  n: number,
  windowMs: number,
): Promise<void> {
  const accepted: Sent[] = [];
  const one = async (): Promise<Sent> => {
    const sent = performance.now();
    const r = await send();
    const out = {
      status: r.status,
      sent,
      recv: performance.now(),
      retryAfter: Number(r.headers.get('retry-after') ?? 0),
    };
    if (r.status === 200) accepted.push(out);
    else expect(r.status).toBe(429);
    return out;
  };
  const until = (at: number) => sleep(Math.max(0, at - performance.now()));
  const first = await one();
  expect(first.status).toBe(200);
  await until(first.recv + windowMs * 0.75);
  const a: Sent[] = [];
  for (let i = 0; i < n - 1; i++) a.push(await one());
  expect(a.map((x) => x.status)).toEqual(Array(n - 1).fill(200));
  await until(first.recv + windowMs * 1.05);
  const b: Sent[] = [];
  for (let i = 0; i < n; i++) b.push(await one());
  const okB = b.filter((x) => x.status === 200).length;
  const lastB = b[b.length - 1].recv;
  const mayHaveLeft = a.filter((x) => x.sent + windowMs <= lastB).length;
  expect(okB).toBeGreaterThanOrEqual(1); // the first call's unit is free again
  expect(okB).toBeLessThanOrEqual(1 + mayHaveLeft); // a fixed window would accept all n
  for (let k = 0; k + n < accepted.length; k++)
    expect(accepted[k + n].recv - accepted[k].sent).toBeGreaterThanOrEqual(windowMs);
  // Retry-After is honest: waiting that long is enough
  const refused = b.find((x) => x.status === 429)!;
  expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
  expect(refused.retryAfter).toBeLessThanOrEqual(windowMs / 1000);
  await until(refused.recv + refused.retryAfter * 1000);
  expect((await one()).status).toBe(200);
}

describe('sliding window through HTTP (2 s window)', () => {
  const prefix = `gateway-test:${randomUUID()}:`;
  const short = {
    'gateway.rateLimits.windowSeconds': '2',
    'gateway.rateLimits.anonymous': '5',
    'gateway.trustedProxies': '127.0.0.1',
  };
  let mem: GatewayTestEngine;
  let red: GatewayTestEngine;
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  beforeAll(async () => {
    await redis.connect();
    [mem, red] = await Promise.all([
      startGateway(short),
      startGateway({ ...short, 'gateway.redis.url': 'redis://127.0.0.1:6379', 'gateway.redis.prefix': prefix }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await mem?.close();
    await red?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('in memory: no double burst across a window boundary', async () => {
    await doubleBurst(() => mem.rpc('ping', undefined, { 'x-forwarded-for': '198.51.100.77' }), 5, 2000);
  });

  it('in Redis: no double burst across a window boundary', async () => {
    await doubleBurst(() => red.rpc('ping', undefined, { 'x-forwarded-for': '198.51.100.78' }), 5, 2000);
    // the log of that IP is a sorted set in Redis with at most 5 calls in it
    const [key] = await redis.keys(`${prefix}log:ip:198.51.100.78`);
    expect(await redis.type(key)).toBe('zset');
    expect(await redis.zcard(key)).toBeLessThanOrEqual(5);
  });
});

describe('bad bearer tokens pay from the client IP budget', () => {
  let e: GatewayTestEngine;
  let verifications = 0;
  beforeAll(async () => {
    e = await startGateway({ 'gateway.rateLimits.anonymous': '3', 'gateway.trustedProxies': '127.0.0.1' });
    const v = e.gateway.running!.verifier;
    const verify = v.verify.bind(v);
    v.verify = (t: string) => {
      verifications++;
      return verify(t);
    }; // counts signature checks
  });
  afterAll(async () => {
    await e?.close();
  });
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const forged = (i: number) => `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4${i}In0.${'A'.repeat(342)}`;

  it('unique bad tokens: 401 while the IP has budget, then 429 without any signature check', async () => {
    verifications = 0;
    for (let i = 0; i < 3; i++) {
      const r = await e.rpc('ping', undefined, { ...bearer(forged(i)), ...from('203.0.113.50') });
      expect(r.status).toBe(401);
      expect(r.headers.get('ratelimit-remaining')).toBe(String(2 - i));
    }
    expect(verifications).toBe(3);
    for (let i = 3; i < 10; i++)
      expect429(await e.rpc('ping', undefined, { ...bearer(forged(i)), ...from('203.0.113.50') }), 3);
    expect429(await e.rpc('ping', undefined, { authorization: 'Basic eDp5', ...from('203.0.113.50') }), 3);
    expect(verifications).toBe(3);
    // the same budget as anonymous calls from that IP; other IPs are unaffected
    expect429(await e.rpc('ping', undefined, from('203.0.113.50')), 3);
    expect((await e.rpc('ping', undefined, { ...bearer(forged(99)), ...from('203.0.113.51') })).status).toBe(401);
  });

  it('a valid token gets its unit back: new valid tokens do not use up the IP budget', async () => {
    for (let i = 0; i < 6; i++) {
      const r = await e.rpc('ping', undefined, { ...bearer(await e.token(`valid-${i}`)), ...from('203.0.113.60') });
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit-limit')).toBe('500'); // counted per user
    }
    const anon = await e.rpc('ping', undefined, from('203.0.113.60'));
    expect(anon.status).toBe(200);
    expect(anon.headers.get('ratelimit-remaining')).toBe('2');
  });

  it('a cached valid token is served even when its IP budget is spent', async () => {
    const t = await e.token('cached-user');
    expect((await e.rpc('ping', undefined, { ...bearer(t), ...from('203.0.113.70') })).status).toBe(200);
    for (let i = 0; i < 3; i++) await e.rpc('ping', undefined, from('203.0.113.70'));
    expect429(await e.rpc('ping', undefined, from('203.0.113.70')), 3);
    expect((await e.rpc('ping', undefined, { ...bearer(t), ...from('203.0.113.70') })).status).toBe(200);
  });
});

describe('Redis unreachable: gateway.redis.onError', () => {
  let port: number;
  beforeAll(async () => {
    // a port nobody listens on
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    port = (srv.address() as { port: number }).port;
    await new Promise((r) => srv.close(r));
  });

  const start = async (onError?: string) => {
    const lines: any[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
        cb();
      },
    });
    const e = await startGateway(
      { 'gateway.redis.url': `redis://127.0.0.1:${port}`, ...(onError ? { 'gateway.redis.onError': onError } : {}) },
      { logger: createLogger('info', sink) },
    );
    const outageWarnings = () => lines.filter((l) => l.level === 'warn' && /rate limit store unavailable/.test(l.msg));
    return { e, outageWarnings };
  };

  it('deny: the engine starts, requests are refused with 503 and Retry-After, one warning per outage', async () => {
    const { e, outageWarnings } = await start('deny');
    try {
      for (let i = 0; i < 3; i++) {
        const r = await e.rpc('tools/call', FX);
        expect(r.status).toBe(503);
        expect(r.body).toMatchObject({ status: 503, error: 'rate_limit_unavailable' });
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      expect(outageWarnings()).toHaveLength(1);
      expect(outageWarnings()[0].onError).toBe('deny');
    } finally {
      await e.close();
    }
  });

  it('allow (the default): requests are served unlimited, one warning per outage', async () => {
    const { e, outageWarnings } = await start();
    try {
      for (let i = 0; i < 3; i++) expect((await e.rpc('ping')).status).toBe(200);
      expect(outageWarnings()).toHaveLength(1);
      expect(outageWarnings()[0].onError).toBe('allow');
    } finally {
      await e.close();
    }
  });

  it('a value other than allow or deny is refused at start', async () => {
    await expect(
      startGateway({ 'gateway.redis.url': `redis://127.0.0.1:${port}`, 'gateway.redis.onError': 'maybe' }),
    ).rejects.toThrow(/redis.onError must be 'allow' or 'deny'/);
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
    'gateway.redis.url': 'redis://127.0.0.1:6379',
    'gateway.redis.prefix': prefix,
    'gateway.rateLimits.anonymous': '6',
    'gateway.rateLimits.user': '4',
    'gateway.rateLimits.subscriptionPublic': '1000',
    'gateway.trustedProxies': '127.0.0.1',
  };
  let a: GatewayTestEngine;
  let child: ChildProcess;
  let bUrl: string;
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });

  beforeAll(async () => {
    await redis.connect();
    a = await startGateway(set);
    const args = [
      'bin/engine.js',
      'run',
      'routes/gateway',
      'routes/platform-backend',
      'routes/hubvendor-foreign-exchange',
      '--env',
      'sandbox',
      '--port',
      '0',
      ...Object.entries(set).flatMap(([k, v]) => ['--set', `${k}=${v}`]),
    ];
    child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOG_LEVEL: 'info' },
    });
    bUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`second engine did not start: ${out}`)), 30_000);
      child.stdout!.on('data', (d) => {
        out += d;
        const m =
          /"msg":"engine started"/.test(out) &&
          /"url":"(http:\/\/[^"]+)"/.exec(out.split('\n').find((l) => l.includes('engine started')) ?? '');
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.stderr!.on('data', (d) => {
        out += d;
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`second engine exited ${code}: ${out}`));
      });
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
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'ocp-gateway-subscription-key': KEY, ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: await res.json().catch(() => undefined) };
  };

  it('anonymous: 6 requests in total across both processes, then both refuse', async () => {
    // from one client IP (that IP's budget is spent here; the next test's first token check would pay from it)
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const ip = { 'x-forwarded-for': '198.51.100.200' };
    for (let i = 0; i < 3; i++) {
      expect((await post(a.url, ping, ip)).status).toBe(200);
      expect((await post(bUrl, ping, ip)).status).toBe(200);
    }
    expect429(await post(bUrl, ping, ip), 6);
    expect429(await post(a.url, ping, ip), 6);
    const keys = await redis.keys(`${prefix}log:ip:*`);
    expect(keys).toHaveLength(1);
    expect(await redis.zcard(keys[0])).toBe(6);
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
