// The gateway's MCP protocol, keys, tool scoping and user isolation over real HTTP.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, FX_ONLY_KEY, KEY, KEY2, startGateway, type GatewayTestEngine } from './helpers.ts';

let e: GatewayTestEngine;
beforeAll(async () => {
  e = await startGateway({
    'gateway.pageSize': '3',
    'gateway.rateLimits.anonymous': '100000',
    'gateway.rateLimits.subscriptionPublic': '100000',
  });
});
afterAll(async () => {
  await e?.close();
});

const FX = { buyCurrency: 'EUR', sellCurrency: 'USD' };

describe('JSON-RPC and MCP lifecycle', () => {
  it('initialize negotiates the protocol version', async () => {
    const r = await e.rpc('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('mcp-session-id')).toBeNull();
    expect(r.body.result.protocolVersion).toBe('2025-11-25');
    expect(r.body.result.capabilities).toEqual({ tools: { listChanged: false } });
    expect(r.body.result.serverInfo.name).toBe('bank-integration-platform');
    const old = await e.rpc('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    expect(old.body.result.protocolVersion).toBe('2025-06-18');
    const unknown = await e.rpc('initialize', {
      protocolVersion: '1999-01-01',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    expect(unknown.body.result.protocolVersion).toBe('2025-11-25');
    const missing = await e.rpc('initialize', {});
    expect(missing.body.error.code).toBe(-32602);
  });

  it('notifications/initialized is answered 202 without a body', async () => {
    const r = await e.mcp({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(r.status).toBe(202);
    expect(r.body).toBeUndefined();
  });

  it('ping answers an empty result', async () => {
    const r = await e.mcp({ jsonrpc: '2.0', id: 'p-1', method: 'ping' });
    expect(r.body).toEqual({ jsonrpc: '2.0', id: 'p-1', result: {} });
  });

  it('parse error -32700 with a null id', async () => {
    const r = await e.mcp('{"jsonrpc":"2.0","id":1,"method":');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.stringContaining('Parse error') },
    });
  });

  it('batches are rejected with -32600', async () => {
    const r = await e.mcp([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(-32600);
    expect(r.body.id).toBeNull();
  });

  it('invalid requests -32600 keep a valid id', async () => {
    const noVersion = await e.mcp({ id: 7, method: 'ping' });
    expect(noVersion.body).toMatchObject({ id: 7, error: { code: -32600 } });
    const badId = await e.mcp({ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' });
    expect(badId.body).toMatchObject({ id: null, error: { code: -32600 } });
    const noMethod = await e.mcp({ jsonrpc: '2.0', id: 8 });
    expect(noMethod.body).toMatchObject({ id: 8, error: { code: -32600 } });
    const scalar = await e.mcp('42');
    expect(scalar.body).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('unknown methods -32601, bad params -32602', async () => {
    const r = await e.rpc('resources/list');
    expect(r.status).toBe(200);
    expect(r.body.error).toMatchObject({ code: -32601, message: 'Method not found: resources/list' });
    expect((await e.rpc('tools/call', { name: 'nope', arguments: {} })).body.error).toMatchObject({
      code: -32602,
      message: 'Unknown tool: nope',
    });
    expect((await e.rpc('tools/call', { arguments: {} })).body.error.code).toBe(-32602);
    expect((await e.rpc('tools/call', { name: 'getExchangeRate', arguments: [1] })).body.error.code).toBe(-32602);
    expect((await e.mcp({ jsonrpc: '2.0', id: 3, method: 'ping', params: 5 })).body.error.code).toBe(-32602);
  });

  it('GET and DELETE /mcp are 405', async () => {
    for (const m of ['GET', 'DELETE']) {
      const r = await e.request(m, '/mcp', undefined, { 'ocp-gateway-subscription-key': KEY });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
    }
  });

  it('an unsupported MCP-Protocol-Version header is 400 with the supported list (-32022); supported ones pass', async () => {
    const bad = await e.mcp({ jsonrpc: '2.0', id: 'v-1', method: 'ping' }, { 'mcp-protocol-version': '2023-01-01' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      jsonrpc: '2.0',
      id: 'v-1',
      error: {
        code: -32022,
        message: expect.stringContaining('2023-01-01'),
        data: {
          supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
          requested: '2023-01-01',
        },
      },
    });
    const ok = await e.rpc('ping', undefined, { 'mcp-protocol-version': '2025-11-25' });
    expect(ok.status).toBe(200);
  });

  it('a non-JSON content type is 415, a foreign Origin 403', async () => {
    const r = await e.request('POST', '/mcp', '{"jsonrpc":"2.0","id":1,"method":"ping"}', {
      'content-type': 'text/plain',
      'ocp-gateway-subscription-key': KEY,
    });
    expect(r.status).toBe(415);
    const o = await e.rpc('ping', undefined, { origin: 'https://evil.example' });
    expect(o.status).toBe(403);
  });
});

describe('subscription keys', () => {
  it('a missing key is 401 saying so', async () => {
    const r = await e.request('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ status: 401, error: 'missing_subscription_key' });
    expect(r.body.detail).toContain('Ocp-Gateway-Subscription-Key');
  });

  it('an invalid key is 401 saying so, and is never echoed', async () => {
    const r = await e.rpc('ping', undefined, { 'ocp-gateway-subscription-key': 'sandbox-demo-subscription-kez' });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_subscription_key');
    expect(JSON.stringify(r.body)).not.toContain('kez');
  });

  it('the secondary key works as the primary (rotation)', async () => {
    const r = await e.rpc('ping', undefined, { 'ocp-gateway-subscription-key': KEY2 });
    expect(r.status).toBe(200);
  });

  it('a subscription only sees and calls its own tools', async () => {
    const h = { 'ocp-gateway-subscription-key': FX_ONLY_KEY };
    const list = await e.rpc('tools/list', undefined, h);
    expect(list.body.result.tools.map((t: any) => t.name)).toEqual(['getExchangeRate']);
    const call = await e.rpc('tools/call', { name: 'listProducts', arguments: {} }, h);
    expect(call.body.error).toMatchObject({ code: -32602, message: 'Unknown tool: listProducts' });
  });
});

describe('tools', () => {
  it('tools/list pages with a cursor; schemas come from the routes', async () => {
    const p1 = await e.rpc('tools/list');
    expect(p1.body.result.tools).toHaveLength(3);
    expect(p1.body.result.nextCursor).toEqual(expect.any(String));
    const p2 = await e.rpc('tools/list', { cursor: p1.body.result.nextCursor });
    expect(p2.body.result.nextCursor).toBeUndefined();
    const all = [...p1.body.result.tools, ...p2.body.result.tools];
    expect(all.map((t: any) => t.name).sort()).toEqual([
      'getExchangeRate',
      'getMyAccountBalance',
      'getMyTransactionHistory',
      'listProducts',
    ]);
    const fx = all.find((t: any) => t.name === 'getExchangeRate');
    expect(fx.inputSchema).toMatchObject({ type: 'object', required: ['buyCurrency', 'sellCurrency'] });
    expect(fx.inputSchema.$schema).toBeUndefined();
    expect(fx.outputSchema).toMatchObject({ type: 'object', properties: { middleRate: { type: 'number' } } });
    expect(all.find((t: any) => t.name === 'getMyAccountBalance')._meta).toEqual({ 'platform/security': 'bearer' });
    const bad = await e.rpc('tools/list', { cursor: 'bm9wZQ' });
    expect(bad.body.error.code).toBe(-32602);
  });

  it('tools/call returns content and structuredContent', async () => {
    const r = await e.rpc('tools/call', { name: 'getExchangeRate', arguments: FX });
    expect(r.status).toBe(200);
    const res = r.body.result;
    expect(res.isError).toBe(false);
    expect(res.structuredContent).toMatchObject({
      buyCurrency: 'EUR',
      sellCurrency: 'USD',
      middleRate: expect.any(Number),
    });
    expect(JSON.parse(res.content[0].text)).toEqual(res.structuredContent);
    const products = await e.rpc('tools/call', { name: 'listProducts', arguments: { category: 'SAVINGS' } });
    expect(products.body.result.structuredContent.products.every((p: any) => p.category === 'SAVINGS')).toBe(true);
  });

  it('a failing tool is isError with the platform error, not a protocol error', async () => {
    const r = await e.rpc('tools/call', {
      name: 'getExchangeRate',
      arguments: { buyCurrency: 'EURO', sellCurrency: 'USD' },
    });
    expect(r.status).toBe(200);
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.isError).toBe(true);
    const p = JSON.parse(r.body.result.content[0].text);
    expect(p).toMatchObject({ status: 400, code: 'GC025' });
    expect(JSON.stringify(p.errors)).toContain('buyCurrency');
    // a vendor fault mapped by the route's on-exception
    const fault = e.sandbox.hubvendor.server.addFault({
      method: 'GET',
      path: '^/v1/forex/exchange-rates/',
      status: 400,
      times: 1,
      body: { errorCode: 'FX_INVALID', message: 'bad pair' },
    });
    const v = await e.rpc('tools/call', { name: 'getExchangeRate', arguments: FX });
    e.sandbox.hubvendor.server.removeFault(fault.id);
    expect(v.body.result.isError).toBe(true);
    expect(JSON.parse(v.body.result.content[0].text).status).toBeGreaterThanOrEqual(400);
  });

  it('the token never reaches a route or vendor; only the user id does', async () => {
    const alice = await e.token('alice');
    e.sandbox.hubvendor.server.clearRequests();
    e.platform.server.clearRequests();
    const fx = await e.rpc('tools/call', { name: 'getExchangeRate', arguments: FX }, bearer(alice));
    expect(fx.body.result.isError).toBe(false);
    const hub = e.sandbox.hubvendor.server.requests();
    expect(hub.length).toBeGreaterThan(0);
    for (const r of hub) expect(r.headers.authorization).toBeUndefined();
    const bal = await e.rpc(
      'tools/call',
      { name: 'getMyAccountBalance', arguments: {} },
      { ...bearer(alice), 'x-user-id': 'bob' },
    );
    expect(bal.body.result.structuredContent.userId).toBe('alice');
    const seen = e.platform.server.requests();
    expect(seen).toHaveLength(1);
    expect(seen[0].headers['x-user-id']).toBe('alice');
    expect(seen[0].headers.authorization).toBeUndefined();
    expect(JSON.stringify(seen[0].headers)).not.toContain(alice.slice(-20));
  });
});

describe('user-scoped tools', () => {
  it('need a token: 401 without one', async () => {
    const r = await e.rpc('tools/call', { name: 'getMyAccountBalance', arguments: {} });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it("never return another user's data", async () => {
    const [alice, bob] = [await e.token('alice'), await e.token('bob')];
    const a = (await e.rpc('tools/call', { name: 'getMyAccountBalance', arguments: {} }, bearer(alice))).body.result
      .structuredContent;
    const b = (await e.rpc('tools/call', { name: 'getMyAccountBalance', arguments: {} }, bearer(bob))).body.result
      .structuredContent;
    expect(a.userId).toBe('alice');
    expect(b.userId).toBe('bob');
    const aIds = a.accounts.map((x: any) => x.accountId);
    const bIds = b.accounts.map((x: any) => x.accountId);
    expect(aIds.some((id: string) => bIds.includes(id))).toBe(false);
    expect(aIds).toEqual(e.platform.accountsOf('alice').map((x) => x.accountId));

    const txA = (
      await e.rpc('tools/call', { name: 'getMyTransactionHistory', arguments: { limit: 100 } }, bearer(alice))
    ).body.result.structuredContent;
    expect(txA.transactions.length).toBeGreaterThan(0);
    expect(txA.transactions.every((t: any) => aIds.includes(t.accountId))).toBe(true);
    // bob asking for alice's account gets nothing of hers
    const steal = await e.rpc(
      'tools/call',
      { name: 'getMyTransactionHistory', arguments: { accountId: aIds[0] } },
      bearer(bob),
    );
    expect(steal.body.result.isError).toBe(true);
    expect(steal.body.result.structuredContent).toBeUndefined();
    expect(steal.body.result.content[0].text).not.toContain('Alice');
    expect(JSON.parse(steal.body.result.content[0].text).status).toBe(404);
  });

  it('validates arguments in the route (isError naming the field)', async () => {
    const alice = await e.token('alice');
    const r = await e.rpc('tools/call', { name: 'getMyTransactionHistory', arguments: { limit: 1000 } }, bearer(alice));
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.content[0].text).toContain('limit');
  });
});
