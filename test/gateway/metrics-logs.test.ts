// Gateway metrics and refusal logs over real sockets: every refusal reason (and which token check,
// which rate limit) moves exactly its own series of gateway_refusals_total on GET /metrics and
// writes exactly one log line with the subscription's name, the masked user, the client IP, the
// method, the tool and the correlation id; tool calls count by tool and outcome with their
// latency; unknown tool names share one label; no key and no token ever reaches the log.

import { Writable } from 'node:stream';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { bearer, FX_ONLY_KEY, KEY, KEY2, startGateway, type GatewayTestEngine } from './helpers.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { REFUSED_MESSAGE } from '../../engine/gateway/refusals.ts';
import { signSandboxToken } from '../../sandbox/idp/index.ts';

const FX = { name: 'getExchangeRate', arguments: { buyCurrency: 'EUR', sellCurrency: 'USD' } };
const BALANCE = { name: 'getMyAccountBalance', arguments: {} };
const BAD_KEY = 'not-a-subscription-key-of-this-environment';

/** Every secret a test sent: none may appear in any log line. */
const secrets: string[] = [KEY, KEY2, FX_ONLY_KEY, BAD_KEY];

function logSink() {
  const lines: any[] = [];
  let text = '';
  const sink = new Writable({
    write(chunk, _enc, cb) {
      text += String(chunk);
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { sink, lines, text: () => text };
}

/** The gateway_* samples of GET /metrics, by `name{label="value",...}` (labels sorted). */
async function scrape(e: GatewayTestEngine): Promise<Map<string, number>> {
  const res = await fetch(`${e.url}/metrics`);
  const out = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    if (!line.startsWith('gateway_')) continue;
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line)!;
    const labels = [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => `${l[1]}="${l[2]}"`).sort();
    out.set(`${m[1]}{${labels.join(',')}}`, Number(m[3]));
  }
  return out;
}

/** What changed between two scrapes (histogram buckets left out; their _count and _sum stay). */
function delta(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const d: Record<string, number> = {};
  for (const [k, v] of after) {
    if (k.includes('_bucket{')) continue;
    const change = v - (before.get(k) ?? 0);
    if (change !== 0) d[k] = change;
  }
  return d;
}

const refusal = (reason: string, detail = '') => `gateway_refusals_total{detail="${detail}",reason="${reason}"}`;
const calls = (tool: string, outcome: string) => `gateway_tool_calls_total{outcome="${outcome}",tool="${tool}"}`;

describe('gateway refusals: metrics and one log line each', () => {
  let e: GatewayTestEngine;
  let log: ReturnType<typeof logSink>;
  let n = 0;

  beforeAll(async () => {
    log = logSink();
    e = await startGateway(
      {
        // the test's requests come through 127.0.0.1 as a trusted proxy: each case its own client IP
        'gateway.trustedProxies': '127.0.0.1',
        'gateway.allowedOrigins': 'https://agent.example',
        'gateway.rateLimits.anonymous': '2',
        'gateway.rateLimits.user': '3',
        'gateway.rateLimits.subscriptionPublic': '1000',
        'gateway.rateLimits.subscriptionUser': '1000',
        'gateway:gateway.subscriptions.sandbox.fx-only.quota.public': '1',
        'gateway:gateway.subscriptions.sandbox.demo-agent.quota.user': '1',
      },
      { logger: createLogger('info', log.sink) },
    );
  });
  afterAll(async () => {
    await e?.close();
  });

  /** One request as client `ip`, with its own correlation id. */
  const send = (ip: string, body: unknown, headers: Record<string, string> = {}) => {
    const cid = `metrics-test-${++n}`;
    return e.mcp(body, { 'x-forwarded-for': ip, 'x-correlation-id': cid, ...headers }).then((r) => ({ ...r, cid }));
  };
  const rpc = (method: string, params?: unknown) => ({
    jsonrpc: '2.0',
    id: ++n,
    method,
    ...(params === undefined ? {} : { params }),
  });
  const refusalLines = (cid: string) => log.lines.filter((l) => l.msg === REFUSED_MESSAGE && l.correlationId === cid);

  /**
   * Runs `act` (whose last request is refused) and checks: /metrics moved by exactly `moved`, and
   * exactly one log line, at info, tells that refusal.
   */
  async function refused(
    act: () => Promise<{ status: number; cid: string; body: any }>,
    moved: Record<string, number>,
    line: Record<string, unknown>,
  ) {
    const before = await scrape(e);
    const r = await act();
    const after = await scrape(e);
    expect(delta(before, after)).toEqual(moved);
    const lines = refusalLines(r.cid);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', correlationId: r.cid, ...line });
    return { r, line: lines[0] };
  }

  it('every refusal series is on /metrics from the start, at 0', async () => {
    const m = await scrape(e);
    for (const k of [
      refusal('missing_key'),
      refusal('invalid_key'),
      refusal('invalid_token', 'expired'),
      refusal('rate_limited', 'anonymous_ip'),
      refusal('rate_limited', 'subscription_user'),
      refusal('tool_not_allowed'),
      refusal('unknown_tool'),
      calls('getExchangeRate', 'ok'),
    ]) {
      expect(m.get(k), k).toBe(0);
    }
  });

  it('origin not allowed', async () => {
    const { r } = await refused(
      () => send('10.9.0.1', rpc('ping'), { origin: 'https://evil.example' }),
      { [refusal('origin_not_allowed')]: 1 },
      { reason: 'origin_not_allowed', status: 403, clientIp: '10.9.0.1', method: 'ping' },
    );
    expect(r.status).toBe(403);
  });

  it('2026-07-28: refusals take the method and tool from Mcp-Method and Mcp-Name, not from the body', async () => {
    const h2026 = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'getExchangeRate' };
    // the body names another tool and is not even JSON: only the headers can have told the log and the metric
    const { r } = await refused(
      () =>
        send('10.9.0.20', '{"jsonrpc":"2.0","id":1,"method":"tools/list"', {
          ...h2026,
          'ocp-gateway-subscription-key': '',
        }),
      { [refusal('missing_key')]: 1, [calls('getExchangeRate', 'refused')]: 1 },
      { reason: 'missing_key', status: 401, method: 'tools/call', tool: 'getExchangeRate' },
    );
    expect(r.status).toBe(401);
    const unknown = await refused(
      () => send('10.9.0.21', 'not json', { ...h2026, 'mcp-name': 'noSuchTool' }),
      { [refusal('unknown_tool')]: 1, [calls('(unknown)', 'refused')]: 1 },
      { reason: 'unknown_tool', method: 'tools/call', tool: 'noSuchTool', subscription: 'demo-agent' },
    );
    expect(unknown.r.body.error.code).toBe(-32602);
  });

  it('missing key: the method and tool are read from the refused body, the tool call counts as refused', async () => {
    const { r, line } = await refused(
      () => send('10.9.0.2', rpc('tools/call', FX), { 'ocp-gateway-subscription-key': '' }),
      { [refusal('missing_key')]: 1, [calls('getExchangeRate', 'refused')]: 1 },
      { reason: 'missing_key', status: 401, clientIp: '10.9.0.2', method: 'tools/call', tool: 'getExchangeRate' },
    );
    expect(r.status).toBe(401);
    expect(line.subscription).toBeUndefined();
  });

  it('invalid key: no subscription, and the key is nowhere in the line', async () => {
    const { r, line } = await refused(
      () => send('10.9.0.3', rpc('ping'), { 'ocp-gateway-subscription-key': BAD_KEY }),
      { [refusal('invalid_key')]: 1 },
      { reason: 'invalid_key', status: 401, clientIp: '10.9.0.3', method: 'ping' },
    );
    expect(r.status).toBe(401);
    expect(line.subscription).toBeUndefined();
    expect(JSON.stringify(line)).not.toContain(BAD_KEY);
  });

  it('invalid token: which check refused it', async () => {
    const now = Math.floor(Date.now() / 1000);
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const hs = await new SignJWT({ sub: 'hmac-user-0001' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('https://idp.sandbox.invalid')
      .setAudience('platform-agent-gateway')
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode('a-shared-secret-of-thirty-two-bytes!'));
    const cases: [string, string][] = [
      ['expired', await e.token('expired-user-0001', -3600)],
      ['not_yet_valid', await e.idp.sign({ sub: 'early-user-0001', claims: { nbf: now + 3600 } })],
      ['audience', await e.idp.sign({ sub: 'aud-user-0001', audience: 'another-api' })],
      ['issuer', await e.idp.sign({ sub: 'iss-user-0001', issuer: 'https://evil.example' })],
      ['signature', await signSandboxToken({ sub: 'forged-user-0001', privateJwk: await exportJWK(privateKey) })],
      ['unknown_key', await signSandboxToken({ sub: 'kid-user-0001', kid: 'no-such-kid' })],
      ['algorithm', hs],
      ['malformed', 'abc.def.ghi'],
    ];
    let ip = 10;
    for (const [check, token] of cases) {
      secrets.push(token);
      const { r, line } = await refused(
        () => send(`10.9.1.${ip++}`, rpc('tools/call', FX), bearer(token)),
        { [refusal('invalid_token', check)]: 1, [calls('getExchangeRate', 'refused')]: 1 },
        {
          reason: 'invalid_token',
          detail: check,
          status: 401,
          subscription: 'demo-agent',
          method: 'tools/call',
          tool: 'getExchangeRate',
        },
      );
      expect(r.status, check).toBe(401);
      expect(line.user).toBeUndefined();
    }
    // an Authorization header that is not `Bearer <token>`
    const basic = 'Basic dXNlcjpwYXNzd29yZC1vZi10aGUtdXNlcg==';
    secrets.push(basic.slice(6));
    const { r } = await refused(
      () => send('10.9.1.99', rpc('ping'), { authorization: basic }),
      { [refusal('invalid_token', 'not_bearer')]: 1 },
      { reason: 'invalid_token', detail: 'not_bearer', method: 'ping' },
    );
    expect(r.status).toBe(401);
  });

  it('token required by a bearer tool', async () => {
    const { r } = await refused(
      () => send('10.9.2.1', rpc('tools/call', BALANCE)),
      { [refusal('token_required', 'tool')]: 1, [calls('getMyAccountBalance', 'refused')]: 1 },
      {
        reason: 'token_required',
        detail: 'tool',
        subscription: 'demo-agent',
        user: 'anonymous',
        clientIp: '10.9.2.1',
        tool: 'getMyAccountBalance',
      },
    );
    expect(r.status).toBe(401);
  });

  it('rate limited per anonymous client IP', async () => {
    for (let i = 0; i < 2; i++) expect((await send('10.9.3.1', rpc('ping'))).status).toBe(200);
    const { r } = await refused(
      () => send('10.9.3.1', rpc('ping')),
      { [refusal('rate_limited', 'anonymous_ip')]: 1 },
      { reason: 'rate_limited', detail: 'anonymous_ip', status: 429, user: 'anonymous', clientIp: '10.9.3.1' },
    );
    expect(r.status).toBe(429);
  });

  it('rate limited per user: the user id is masked in the line', async () => {
    const token = await e.token('limited-user-0001');
    secrets.push(token);
    for (let i = 0; i < 3; i++) expect((await send('10.9.4.1', rpc('ping'), bearer(token))).status).toBe(200);
    const { r, line } = await refused(
      () => send('10.9.4.1', rpc('ping'), bearer(token)),
      { [refusal('rate_limited', 'user')]: 1 },
      {
        reason: 'rate_limited',
        detail: 'user',
        status: 429,
        subscription: 'demo-agent',
        user: 'limi****',
        method: 'ping',
      },
    );
    expect(r.status).toBe(429);
    expect(JSON.stringify(line)).not.toContain('limited-user-0001');
  });

  it('rate limited by the subscription quota for public tools', async () => {
    const fxOnly = { 'ocp-gateway-subscription-key': FX_ONLY_KEY };
    expect((await send('10.9.5.1', rpc('tools/call', FX), fxOnly)).body.result.isError).toBe(false);
    const { r } = await refused(
      () => send('10.9.5.2', rpc('tools/call', FX), fxOnly),
      { [refusal('rate_limited', 'subscription_public')]: 1, [calls('getExchangeRate', 'refused')]: 1 },
      { reason: 'rate_limited', detail: 'subscription_public', subscription: 'fx-only', tool: 'getExchangeRate' },
    );
    expect(r.status).toBe(429);
  });

  it('rate limited by the subscription quota per user', async () => {
    const token = await e.token('quota-user-0001');
    secrets.push(token);
    expect((await send('10.9.6.1', rpc('tools/call', BALANCE), bearer(token))).body.result.isError).toBe(false);
    const { r } = await refused(
      () => send('10.9.6.1', rpc('tools/call', BALANCE), bearer(token)),
      { [refusal('rate_limited', 'subscription_user')]: 1, [calls('getMyAccountBalance', 'refused')]: 1 },
      {
        reason: 'rate_limited',
        detail: 'subscription_user',
        subscription: 'demo-agent',
        user: 'quot****',
        tool: 'getMyAccountBalance',
      },
    );
    expect(r.status).toBe(429);
  });

  it('a tool not allowed for the subscription', async () => {
    const { r } = await refused(
      () => send('10.9.7.1', rpc('tools/call', BALANCE), { 'ocp-gateway-subscription-key': FX_ONLY_KEY }),
      { [refusal('tool_not_allowed')]: 1, [calls('getMyAccountBalance', 'refused')]: 1 },
      { reason: 'tool_not_allowed', subscription: 'fx-only', tool: 'getMyAccountBalance', method: 'tools/call' },
    );
    expect(r.body.error).toMatchObject({ code: -32602, message: 'Unknown tool: getMyAccountBalance' });
  });

  it('unknown tools share one label: new names create no series', async () => {
    const series = [...(await scrape(e)).keys()];
    const { r } = await refused(
      () => send('10.9.8.1', rpc('tools/call', { name: 'noSuchTool', arguments: {} })),
      { [refusal('unknown_tool')]: 1, [calls('(unknown)', 'refused')]: 1 },
      { reason: 'unknown_tool', subscription: 'demo-agent', tool: 'noSuchTool' },
    );
    expect(r.body.error.code).toBe(-32602);
    for (let i = 0; i < 5; i++) await send('10.9.8.2', rpc('tools/call', { name: `madeUp${i}`, arguments: {} }));
    expect([...(await scrape(e)).keys()].sort()).toEqual(series.sort());
  });

  it('tool calls count by tool and outcome, with their latency', async () => {
    const token = await e.token('happy-user-0001');
    secrets.push(token);
    const before = await scrape(e);
    const linesBefore = log.lines.length;
    expect((await send('10.9.9.1', rpc('tools/call', FX), bearer(token))).body.result.isError).toBe(false);
    expect(
      (
        await send(
          '10.9.9.1',
          rpc('tools/call', { name: 'getExchangeRate', arguments: { buyCurrency: 'EURO', sellCurrency: 'USD' } }),
          bearer(token),
        )
      ).body.result.isError,
    ).toBe(true);
    expect(
      (await send('10.9.9.1', rpc('tools/call', { name: 'getExchangeRate', arguments: [1] }), bearer(token))).body.error
        .code,
    ).toBe(-32602);
    const after = await scrape(e);
    const d = delta(before, after);
    expect(d[calls('getExchangeRate', 'ok')]).toBe(1);
    expect(d[calls('getExchangeRate', 'error')]).toBe(1);
    expect(d[calls('getExchangeRate', 'invalid')]).toBe(1);
    expect(d['gateway_tool_call_duration_seconds_count{tool="getExchangeRate"}']).toBe(2);
    expect(d['gateway_tool_call_duration_seconds_sum{tool="getExchangeRate"}']).toBeGreaterThan(0);
    expect(Object.keys(d).filter((k) => k.startsWith('gateway_refusals_total'))).toEqual([]);
    // served calls write no refusal line
    expect(log.lines.slice(linesBefore).filter((l) => l.msg === REFUSED_MESSAGE)).toEqual([]);
  });

  it('no key and no token in any log line', () => {
    expect(log.lines.filter((l) => l.msg === REFUSED_MESSAGE).length).toBeGreaterThanOrEqual(20);
    const text = log.text();
    for (const s of secrets) {
      expect(text.includes(s), `a secret in the log: ${s.slice(0, 6)}…`).toBe(false);
      // the signature part alone (a cut token is still a credential)
      const sig = s.split('.')[2];
      if (sig && sig.length > 8) expect(text.includes(sig)).toBe(false);
    }
  });
});

describe('gateway refusals: token required on every request, rate limit store unavailable', () => {
  let e: GatewayTestEngine;
  let log: ReturnType<typeof logSink>;
  beforeAll(async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as { port: number }).port;
    await new Promise((r) => srv.close(r));
    log = logSink();
    e = await startGateway(
      {
        'gateway.requireToken': 'true',
        'gateway.redis.url': `redis://127.0.0.1:${port}`,
        'gateway.redis.onError': 'deny',
      },
      { logger: createLogger('info', log.sink) },
    );
  });
  afterAll(async () => {
    await e?.close();
  });

  it('token_required (all_requests) and rate_limit_unavailable each count and log once', async () => {
    const before = await scrape(e);
    const noToken = await e.rpc('ping', undefined, { 'x-correlation-id': 'require-1' });
    expect(noToken.status).toBe(401);
    const token = await e.token('store-user-0001');
    const down = await e.rpc('ping', undefined, { ...bearer(token), 'x-correlation-id': 'store-1' });
    expect(down.status).toBe(503);
    expect(delta(before, await scrape(e))).toEqual({
      [refusal('token_required', 'all_requests')]: 1,
      [refusal('rate_limit_unavailable')]: 1,
    });
    const lines = log.lines.filter((l) => l.msg === REFUSED_MESSAGE);
    expect(lines.map((l) => [l.correlationId, l.reason, l.detail])).toEqual([
      ['require-1', 'token_required', 'all_requests'],
      ['store-1', 'rate_limit_unavailable', undefined],
    ]);
    expect(log.text().includes(token)).toBe(false);
    expect(log.text().includes(KEY)).toBe(false);
  });
});
