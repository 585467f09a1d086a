// MCP revision 2026-07-28 on /mcp over raw HTTP, rule by rule (basic/transports/streamable-http.mdx,
// basic/index.mdx, basic/versioning.mdx, server/discover.mdx, server/tools.mdx), beside the
// 2025-11-25 clients the same endpoint keeps serving.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY, startGateway, type GatewayTestEngine } from './helpers.ts';

let e: GatewayTestEngine;
beforeAll(async () => {
  e = await startGateway({
    'gateway.rateLimits.anonymous': '100000',
    'gateway.rateLimits.subscriptionPublic': '100000',
  });
});
afterAll(async () => {
  await e?.close();
});

const V = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const FX = { buyCurrency: 'EUR', sellCurrency: 'USD' };
const FX_HEADERS = { 'mcp-param-buycurrency': 'EUR', 'mcp-param-sellcurrency': 'USD' };

let n = 0;
/** A 2026-07-28 request: the body with `_meta`, and the headers mirroring it (overridable). */
function m26(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const id = ++n;
  return e
    .mcp(
      { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } },
      { 'mcp-protocol-version': V, 'mcp-method': method, ...name, ...headers },
    )
    .then((r) => ({ ...r, id }));
}
const call = (args: Record<string, unknown>, headers: Record<string, string> = FX_HEADERS) =>
  m26('tools/call', { name: 'getExchangeRate', arguments: args }, headers);

describe('server/discover and results', () => {
  it('server/discover answers the supported versions, capabilities, serverInfo and caching hints', async () => {
    const r = await m26('server/discover');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      id: r.id,
      result: {
        resultType: 'complete',
        supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
        capabilities: { tools: { listChanged: false }, extensions: { 'io.modelcontextprotocol/tasks': {} } },
        instructions: expect.any(String),
        ttlMs: 300_000,
        cacheScope: 'public',
        _meta: {
          'io.modelcontextprotocol/serverInfo': {
            name: 'bank-integration-platform',
            version: '1.0.0',
            title: expect.any(String),
          },
        },
      },
    });
  });

  it('tools/list: resultType, private caching hints, serverInfo, and x-mcp-header on the currency pair', async () => {
    const r = await m26('tools/list');
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 300_000,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'bank-integration-platform' } },
    });
    const fx = r.body.result.tools.find((t: any) => t.name === 'getExchangeRate');
    expect(fx.inputSchema.properties.buyCurrency['x-mcp-header']).toBe('BuyCurrency');
    expect(fx.inputSchema.properties.sellCurrency['x-mcp-header']).toBe('SellCurrency');
    // the output schema admits the problem a failed call carries
    expect(fx.outputSchema.anyOf).toHaveLength(2);
    // 2025-11-25 clients get the tools as before, without the annotation
    const legacy = await e.rpc('tools/list', undefined, { 'mcp-protocol-version': '2025-11-25' });
    const old = legacy.body.result.tools.find((t: any) => t.name === 'getExchangeRate');
    expect(JSON.stringify(old)).not.toContain('x-mcp-header');
    expect(legacy.body.result.resultType).toBeUndefined();
  });

  it('ttlMs follows gateway.listTtlSeconds', async () => {
    const g = await startGateway({ 'gateway.listTtlSeconds': '5' });
    try {
      const r = await g.mcp(
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } },
        { 'mcp-protocol-version': V, 'mcp-method': 'tools/list' },
      );
      expect(r.body.result.ttlMs).toBe(5000);
    } finally {
      await g.close();
    }
  });

  it('tools/call with the headers and _meta answers a complete result', async () => {
    const r = await call(FX);
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({
      resultType: 'complete',
      isError: false,
      structuredContent: FX,
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'bank-integration-platform' } },
    });
  });

  it('a failed tool call is isError with the problem as structuredContent and as text', async () => {
    const r = await call(
      { buyCurrency: 'XXX1', sellCurrency: 'USD' },
      { 'mcp-param-buycurrency': 'XXX1', 'mcp-param-sellcurrency': 'USD' },
    );
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({
      resultType: 'complete',
      isError: true,
      structuredContent: { status: 400, code: 'GC025', errors: expect.any(Array) },
    });
    expect(JSON.parse(r.body.result.content[0].text)).toEqual(r.body.result.structuredContent);
    // 2025-11-25: the tool has an output schema the problem does not match, so text only
    const legacy = await e.rpc(
      'tools/call',
      { name: 'getExchangeRate', arguments: { buyCurrency: 'XXX1', sellCurrency: 'USD' } },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect(legacy.body.result.isError).toBe(true);
    expect(legacy.body.result.structuredContent).toBeUndefined();
    expect(JSON.parse(legacy.body.result.content[0].text)).toMatchObject({ status: 400, code: 'GC025' });
  });

  it('a notification is 202 without a body', async () => {
    const r = await e.mcp(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} },
      { 'mcp-protocol-version': V, 'mcp-method': 'notifications/cancelled' },
    );
    expect(r.status).toBe(202);
    expect(r.body).toBeUndefined();
  });

  it('an Mcp-Session-Id header is ignored and none is minted', async () => {
    const r = await m26('tools/list', {}, { 'mcp-session-id': 'abc' });
    expect(r.status).toBe(200);
    expect(r.headers.get('mcp-session-id')).toBeNull();
  });
});

describe('versions and methods', () => {
  it('an unsupported version is 400 -32022 with the supported list and the request id', async () => {
    const r = await e.mcp(
      {
        jsonrpc: '2.0',
        id: 'u-1',
        method: 'tools/list',
        params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      },
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      id: 'u-1',
      error: {
        code: -32022,
        message: expect.any(String),
        data: { supported: expect.arrayContaining([V, '2025-11-25']), requested: '2099-01-01' },
      },
    });
  });

  it('a method this server does not implement is 404 -32601, also initialize and ping of earlier revisions', async () => {
    for (const method of ['resources/list', 'initialize', 'ping', 'subscriptions/listen']) {
      const r = await m26(method);
      expect(r.status, method).toBe(404);
      expect(r.body, method).toEqual({
        jsonrpc: '2.0',
        id: r.id,
        error: { code: -32601, message: `Method not found: ${method}` },
      });
    }
  });

  it('the method is refused on the header alone: a body that is not JSON still gets 404 with its id', async () => {
    const r = await e.mcp('{"jsonrpc":"2.0","id":41,"method":"resources/list","params":{', {
      'mcp-protocol-version': V,
      'mcp-method': 'resources/list',
    });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      id: 41,
      error: { code: -32601, message: 'Method not found: resources/list' },
    });
  });

  it('2026-07-28 _meta without the MCP-Protocol-Version header is a HeaderMismatch, not a 2025-03-26 request', async () => {
    const r = await e.mcp(
      { jsonrpc: '2.0', id: 'h-1', method: 'server/discover', params: { _meta: META } },
      { 'mcp-method': 'server/discover' },
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      id: 'h-1',
      error: { code: -32020, message: expect.stringContaining('MCP-Protocol-Version') },
    });
  });

  it('a request with an id under a notifications/ method is 404 -32601', async () => {
    const r = await m26('notifications/cancelled');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe(-32601);
  });

  it('without the header the request is 2025-03-26: initialize works as before', async () => {
    const r = await e.rpc('initialize', {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    expect(r.status).toBe(200);
    expect(r.body.result.protocolVersion).toBe('2025-03-26');
    // initialize negotiates earlier revisions only: 2026-07-28 has no handshake
    const modern = await e.rpc('initialize', {
      protocolVersion: V,
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    expect(modern.body.result.protocolVersion).toBe('2025-11-25');
  });
});

describe('request headers against the body (HeaderMismatch -32020, 400)', () => {
  const mismatch = (r: { status: number; body: any }, id: unknown) => {
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      jsonrpc: '2.0',
      id,
      error: { code: -32020, message: expect.stringMatching(/^Header mismatch/) },
    });
  };

  it('Mcp-Method is required', async () => {
    const r = await e.mcp(
      { jsonrpc: '2.0', id: 'm-1', method: 'tools/list', params: { _meta: META } },
      { 'mcp-protocol-version': V },
    );
    mismatch(r, 'm-1');
  });

  it('Mcp-Name is required for tools/call', async () => {
    const r = await e.mcp(
      {
        jsonrpc: '2.0',
        id: 'm-2',
        method: 'tools/call',
        params: { name: 'getExchangeRate', arguments: FX, _meta: META },
      },
      { 'mcp-protocol-version': V, 'mcp-method': 'tools/call', ...FX_HEADERS },
    );
    mismatch(r, 'm-2');
  });

  it('Mcp-Method must match the body', async () => {
    const r = await e.mcp(
      { jsonrpc: '2.0', id: 'm-3', method: 'tools/list', params: { _meta: META } },
      { 'mcp-protocol-version': V, 'mcp-method': 'server/discover' },
    );
    mismatch(r, 'm-3');
  });

  it('Mcp-Name must match the body', async () => {
    const r = await e.mcp(
      {
        jsonrpc: '2.0',
        id: 'm-4',
        method: 'tools/call',
        params: { name: 'getExchangeRate', arguments: FX, _meta: META },
      },
      { 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'listProducts' },
    );
    mismatch(r, 'm-4');
  });

  it('Mcp-Name in the Base64 sentinel form is decoded before the comparison; a broken one is refused', async () => {
    const ok = await call(FX, {
      ...FX_HEADERS,
      'mcp-name': `=?base64?${Buffer.from('getExchangeRate').toString('base64')}?=`,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.result.isError).toBe(false);
    const wrong = await call(FX, {
      ...FX_HEADERS,
      'mcp-name': `=?base64?${Buffer.from('listProducts').toString('base64')}?=`,
    });
    mismatch(wrong, wrong.id);
    // not Base64 (a lenient decoder would skip the dot and read the right name)
    const broken = await call(FX, { ...FX_HEADERS, 'mcp-name': '=?base64?Z2V0RXhj.aGFuZ2VSYXRl?=' });
    mismatch(broken, broken.id);
  });

  it('MCP-Protocol-Version must match _meta', async () => {
    const r = await e.mcp(
      {
        jsonrpc: '2.0',
        id: 'm-5',
        method: 'tools/list',
        params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } },
      },
      { 'mcp-protocol-version': V, 'mcp-method': 'tools/list' },
    );
    mismatch(r, 'm-5');
  });

  it('a request without the required _meta fields is 400 -32602 naming the field', async () => {
    const noVersion = await e.mcp(
      {
        jsonrpc: '2.0',
        id: 'p-1',
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } },
      },
      { 'mcp-protocol-version': V, 'mcp-method': 'tools/list' },
    );
    expect(noVersion.status).toBe(400);
    expect(noVersion.body.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('io.modelcontextprotocol/protocolVersion'),
    });
    const noCaps = await e.mcp(
      {
        jsonrpc: '2.0',
        id: 'p-2',
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V } },
      },
      { 'mcp-protocol-version': V, 'mcp-method': 'tools/list' },
    );
    expect(noCaps.status).toBe(400);
    expect(noCaps.body.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('io.modelcontextprotocol/clientCapabilities'),
    });
    const noParams = await e.mcp(
      { jsonrpc: '2.0', id: 'p-3', method: 'server/discover' },
      { 'mcp-protocol-version': V, 'mcp-method': 'server/discover' },
    );
    expect(noParams.status).toBe(400);
    expect(noParams.body.error.code).toBe(-32602);
  });

  it('Mcp-Param-* of x-mcp-header arguments: required when the argument is given, equal to it', async () => {
    mismatch(await call(FX, {}), n);
    mismatch(await call(FX, { 'mcp-param-buycurrency': 'EUR' }), n);
    mismatch(await call(FX, { 'mcp-param-buycurrency': 'GBP', 'mcp-param-sellcurrency': 'USD' }), n);
    // header names compare case-insensitively; values exactly
    mismatch(await call(FX, { 'Mcp-Param-BuyCurrency': 'eur', 'Mcp-Param-SellCurrency': 'USD' }), n);
    const ok = await call(FX, { 'Mcp-Param-BuyCurrency': 'EUR', 'Mcp-Param-SellCurrency': 'USD' });
    expect(ok.status).toBe(200);
  });

  it('Mcp-Param-* without its argument is refused; an absent argument needs no header', async () => {
    const extra = await call(
      { sellCurrency: 'USD' },
      { 'mcp-param-buycurrency': 'EUR', 'mcp-param-sellcurrency': 'USD' },
    );
    expect(extra.status).toBe(400);
    expect(extra.body.error.code).toBe(-32020);
    // no buyCurrency, no header: the headers match, and the route answers the missing field
    const absent = await call({ sellCurrency: 'USD' }, { 'mcp-param-sellcurrency': 'USD' });
    expect(absent.status).toBe(200);
    expect(absent.body.result).toMatchObject({ isError: true, structuredContent: { status: 400 } });
  });

  it('Mcp-Param-* in the Base64 sentinel form is decoded; one with bytes outside visible ASCII is refused', async () => {
    const b64 = (s: string) => `=?base64?${Buffer.from(s).toString('base64')}?=`;
    const ok = await call(FX, { 'mcp-param-buycurrency': b64('EUR'), 'mcp-param-sellcurrency': 'USD' });
    expect(ok.status).toBe(200);
    expect(ok.body.result.isError).toBe(false);
    const raw = await call(FX, { 'mcp-param-buycurrency': 'EUR\u00e9', 'mcp-param-sellcurrency': 'USD' });
    expect(raw.status).toBe(400);
    expect(raw.body.error.code).toBe(-32020);
  });
});

describe('refusals decided on the headers, without a JSON parse', () => {
  it('an unknown tool named by Mcp-Name is -32602 even when the body is not JSON', async () => {
    const r = await e.mcp('{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"nope"', {
      'mcp-protocol-version': V,
      'mcp-method': 'tools/call',
      'mcp-name': 'nope',
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ jsonrpc: '2.0', id: 77, error: { code: -32602, message: 'Unknown tool: nope' } });
    const metrics = await (await fetch(`${e.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_tool_calls_total\{tool="\(unknown\)",outcome="refused"\} [1-9]/);
    expect(metrics).toMatch(/gateway_refusals_total\{reason="unknown_tool",detail=""\} [1-9]/);
  });

  it('a bearer tool without a token is 401 on the headers alone', async () => {
    const r = await e.mcp('not json at all', {
      'mcp-protocol-version': V,
      'mcp-method': 'tools/call',
      'mcp-name': 'getMyAccountBalance',
    });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('token_required');
  });

  it('over the limit is 429 before the body is parsed', async () => {
    const g = await startGateway({
      'gateway.rateLimits.subscriptionPublic': '1',
      'gateway.rateLimits.anonymous': '100000',
    });
    try {
      const h = { 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'getExchangeRate', ...FX_HEADERS };
      const first = await g.mcp(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'getExchangeRate', arguments: FX, _meta: META },
        },
        h,
      );
      expect(first.status).toBe(200);
      const second = await g.mcp('{"jsonrpc":"2.0","id":2,', h);
      expect(second.status).toBe(429);
      expect(second.body.error).toBe('rate_limited');
    } finally {
      await g.close();
    }
  });
});

describe('a 2026-07-28 client written from the specification', () => {
  /** A minimal client: per-request _meta and headers, x-mcp-header mirroring, tool definitions checked. */
  class Client2026 {
    private id = 0;
    private tools = new Map<string, any>();
    constructor(
      private url: string,
      private headers: Record<string, string>,
    ) {}

    async request(
      method: string,
      params: Record<string, unknown> = {},
      extra: Record<string, string> = {},
    ): Promise<any> {
      const body = { jsonrpc: '2.0', id: ++this.id, method, params: { ...params, _meta: META } };
      const name = typeof params.name === 'string' ? params.name : undefined;
      const res = await fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': V,
          'mcp-method': method,
          ...(name ? { 'mcp-name': encode(name) } : {}),
          ...this.headers,
          ...extra,
        },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as any;
      if (json.error) throw Object.assign(new Error(json.error.message), { code: json.error.code, status: res.status });
      if (json.result.resultType !== 'complete') throw new Error(`unexpected resultType ${json.result.resultType}`);
      return json.result;
    }

    async listTools(): Promise<any[]> {
      const out: any[] = [];
      let cursor: string | undefined;
      do {
        const r = await this.request('tools/list', cursor ? { cursor } : {});
        // "Clients ... MUST reject tool definitions where any x-mcp-header value violates these constraints"
        for (const t of r.tools)
          if (validTool(t)) {
            out.push(t);
            this.tools.set(t.name, t);
          }
        cursor = r.nextCursor;
      } while (cursor);
      return out;
    }

    async callTool(name: string, args: Record<string, unknown>): Promise<any> {
      const extra: Record<string, string> = {};
      for (const [path, header] of paramHeaders(this.tools.get(name).inputSchema)) {
        const v = path.reduce<any>((o, k) => (o == null ? undefined : o[k]), args);
        if (v !== undefined && v !== null) extra[`Mcp-Param-${header}`] = encode(String(v));
      }
      return this.request('tools/call', { name, arguments: args }, extra);
    }
  }

  /** Value Encoding: the sentinel form for values that are not plain visible ASCII. */
  function encode(v: string): string {
    const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(v) && !(v.startsWith('=?base64?') && v.endsWith('?='));
    return plain ? v : `=?base64?${Buffer.from(v).toString('base64')}?=`;
  }

  function paramHeaders(schema: any, path: string[] = []): [string[], string][] {
    const out: [string[], string][] = [];
    for (const [k, p] of Object.entries<any>(schema?.properties ?? {})) {
      if (typeof p['x-mcp-header'] === 'string') out.push([[...path, k], p['x-mcp-header']]);
      out.push(...paramHeaders(p, [...path, k]));
    }
    return out;
  }

  function validTool(t: any): boolean {
    if (typeof t.name !== 'string' || t.inputSchema?.type !== 'object') return false;
    const names = paramHeaders(t.inputSchema).map(([, h]) => h.toLowerCase());
    if (new Set(names).size !== names.length) return false;
    for (const [path, h] of paramHeaders(t.inputSchema)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(h)) return false;
      const prop = path.reduce<any>((s, k) => s.properties[k], t.inputSchema);
      if (!['string', 'integer', 'boolean'].includes(prop.type)) return false;
    }
    return true;
  }

  it('discovers, lists every tool as valid and calls tools with the headers the definitions ask for', async () => {
    const client = new Client2026(`${e.url}/mcp`, { 'Ocp-Gateway-Subscription-Key': KEY });
    const d = await client.request('server/discover');
    expect(d.supportedVersions).toContain(V);
    expect(d.capabilities.tools).toBeDefined();
    const tools = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'getExchangeRate',
      'getMyAccountBalance',
      'getMyTransactionHistory',
      'listProducts',
    ]);
    const rate = await client.callTool('getExchangeRate', {
      buyCurrency: 'EUR',
      sellCurrency: 'JPY',
      transactionAmount: '250.00',
    });
    expect(rate).toMatchObject({ isError: false, structuredContent: { buyCurrency: 'EUR', sellCurrency: 'JPY' } });
    const products = await client.callTool('listProducts', {});
    expect(products.isError).toBe(false);
    // with a bearer token, a user-scoped tool
    const user = new Client2026(`${e.url}/mcp`, {
      'Ocp-Gateway-Subscription-Key': KEY,
      Authorization: `Bearer ${await e.token('alice')}`,
    });
    await user.listTools();
    const history = await user.callTool('getMyTransactionHistory', { limit: 2 });
    expect(history.structuredContent).toMatchObject({ userId: 'alice' });
    expect(history.structuredContent.transactions).toHaveLength(2);
  });
});
