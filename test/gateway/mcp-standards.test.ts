// Issue 28 §5 over real sockets: the OpenTelemetry MCP conventions on the gateway's spans (an
// in-memory exporter, as test/tracing does) and mcp_server_operation_duration_seconds; trace context
// from `params._meta`; under 2026-07-28 a header naming an unknown method or tool that the body
// contradicts is 400 -32020; X-Correlation-Id on successful answers; a tool call counted in
// engine_route_duration_seconds.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { startGateway, type GatewayTestEngine } from './helpers.ts';

const exporter = new InMemorySpanExporter();
let e: GatewayTestEngine;
beforeAll(async () => {
  e = await startGateway(
    { 'gateway.rateLimits.anonymous': '100000', 'gateway.rateLimits.subscriptionPublic': '100000' },
    { tracing: { exporter } },
  );
});
afterAll(async () => {
  await e?.close();
});
beforeEach(() => exporter.reset());

const V = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientInfo': { name: 'std-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const META_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const META_PARENT = '00f067aa0ba902b7';
const HTTP_TRACE = '0af7651916cd43dd8448eb211c80319c';
const HTTP_PARENT = 'b7ad6b7169203331';

let n = 0;
function m26(
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  meta: Record<string, unknown> = {},
) {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const id = ++n;
  return e
    .mcp(
      { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...META, ...meta } } },
      { 'mcp-protocol-version': V, 'mcp-method': method, ...name, ...headers },
    )
    .then((r) => ({ ...r, id }));
}
const fx = (buy: string, extra: Record<string, string> = {}, meta: Record<string, unknown> = {}) =>
  m26(
    'tools/call',
    { name: 'getExchangeRate', arguments: { buyCurrency: buy, sellCurrency: 'USD' } },
    { 'mcp-param-buycurrency': buy, 'mcp-param-sellcurrency': 'USD', ...extra },
    meta,
  );

/** Finished spans arrive when the answer is written: wait for them a little. */
async function spanNamed(name: string): Promise<ReadableSpan> {
  for (let i = 0; i < 50; i++) {
    const s = exporter.getFinishedSpans().find((x) => x.name === name);
    if (s) return s;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no span '${name}' in ${exporter.getFinishedSpans().map((s) => s.name)}`);
}
const metrics = async () => (await fetch(`${e.url}/metrics`)).text();
function sample(text: string, re: RegExp): number {
  const m = re.exec(text);
  return m ? Number(m[1]) : 0;
}

describe('OpenTelemetry MCP conventions', () => {
  it('a tools/call span: names, attributes, parent from _meta, the HTTP context linked, the route below it', async () => {
    const r = await fx(
      'EUR',
      { traceparent: `00-${HTTP_TRACE}-${HTTP_PARENT}-01` },
      { traceparent: `00-${META_TRACE}-${META_PARENT}-01`, tracestate: 'rojo=00f067aa0ba902b7' },
    );
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBe(false);
    const s = await spanNamed('tools/call getExchangeRate');
    expect(s.kind).toBe(SpanKind.SERVER);
    expect(s.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'getExchangeRate',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': String(r.id),
      'mcp.protocol.version': V,
      'network.transport': 'tcp',
    });
    expect(s.attributes['error.type']).toBeUndefined();
    expect(s.status.code).not.toBe(SpanStatusCode.ERROR);
    // the parent is the client's span of `_meta`, not the HTTP traceparent (that one is linked)
    expect(s.spanContext().traceId).toBe(META_TRACE);
    expect(s.parentSpanContext?.spanId).toBe(META_PARENT);
    expect(s.spanContext().traceState?.get('rojo')).toBe('00f067aa0ba902b7');
    expect(s.links.map((l) => l.context.spanId)).toEqual([HTTP_PARENT]);
    // the route's exchange span is a child of the tool call's
    const route = exporter.getFinishedSpans().find((x) => x.attributes['engine.route.id'] === 'get-exchange-rate');
    expect(route?.parentSpanContext?.spanId).toBe(s.spanContext().spanId);
    expect(route?.spanContext().traceId).toBe(META_TRACE);
  });

  it('without _meta trace context the HTTP traceparent is the parent; an earlier revision names its version', async () => {
    const r = await e.mcp(
      { jsonrpc: '2.0', id: 'list-1', method: 'tools/list' },
      { 'mcp-protocol-version': '2025-11-25', traceparent: `00-${HTTP_TRACE}-${HTTP_PARENT}-01` },
    );
    expect(r.status).toBe(200);
    const s = await spanNamed('tools/list');
    expect(s.attributes).toMatchObject({
      'mcp.method.name': 'tools/list',
      'jsonrpc.request.id': 'list-1',
      'mcp.protocol.version': '2025-11-25',
    });
    expect(s.attributes['gen_ai.tool.name']).toBeUndefined();
    expect(s.attributes['gen_ai.operation.name']).toBeUndefined();
    expect(s.parentSpanContext?.spanId).toBe(HTTP_PARENT);
    expect(s.links).toEqual([]);
  });

  it('a tool result with isError: true is an error: span status ERROR, error.type tool_error, counted so', async () => {
    const before = sample(
      await metrics(),
      /mcp_server_operation_duration_seconds_count\{mcp_method_name="tools\/call",gen_ai_tool_name="getExchangeRate",error_type="tool_error"\} (\d+)/,
    );
    const r = await fx('XXX1');
    expect(r.body.result.isError).toBe(true);
    const s = await spanNamed('tools/call getExchangeRate');
    expect(s.attributes['error.type']).toBe('tool_error');
    expect(s.status.code).toBe(SpanStatusCode.ERROR);
    const after = sample(
      await metrics(),
      /mcp_server_operation_duration_seconds_count\{mcp_method_name="tools\/call",gen_ai_tool_name="getExchangeRate",error_type="tool_error"\} (\d+)/,
    );
    expect(after).toBe(before + 1);
  });

  it('a JSON-RPC error sets error.type and rpc.response.status_code to its code; a refusal its HTTP status', async () => {
    const r = await m26('resources/list');
    expect(r.status).toBe(404);
    const s = await spanNamed('resources/list');
    expect(s.attributes).toMatchObject({ 'error.type': '-32601', 'rpc.response.status_code': '-32601' });
    expect(s.status.code).toBe(SpanStatusCode.ERROR);
    exporter.reset();
    const refused = await e.mcp(
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      { 'ocp-gateway-subscription-key': 'not-a-key' },
    );
    expect(refused.status).toBe(401);
    // no method known before the body is read (2025-03-26, refused on the key): _OTHER
    const r2 = await spanNamed('_OTHER');
    expect(r2.attributes).toMatchObject({ 'error.type': '401', 'http.response.status_code': 401 });
  });

  it('mcp_server_operation_duration_seconds counts successful calls by method and served tool only', async () => {
    const re =
      /mcp_server_operation_duration_seconds_count\{mcp_method_name="tools\/call",gen_ai_tool_name="getExchangeRate",error_type=""\} (\d+)/;
    const before = sample(await metrics(), re);
    await fx('EUR');
    await fx('GBP');
    const text = await metrics();
    expect(sample(text, re)).toBe(before + 2);
    // an unknown tool's name (client input) never becomes a label
    await m26('tools/call', { name: 'no-such-tool-xyz', arguments: {} });
    const later = await metrics();
    expect(later).not.toContain('no-such-tool-xyz');
    expect(later).toMatch(
      /mcp_server_operation_duration_seconds_count\{mcp_method_name="tools\/call",gen_ai_tool_name="\(unknown\)"/,
    );
  });
});

describe('2026-07-28: headers naming an unknown method or tool that the body contradicts', () => {
  it('Mcp-Method of an unknown method with another method in the body is 400 -32020, not 404', async () => {
    const r = await e.mcp(
      { jsonrpc: '2.0', id: 'mm-1', method: 'tools/list', params: { _meta: META } },
      { 'mcp-protocol-version': V, 'mcp-method': 'resources/list' },
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      id: 'mm-1',
      error: { code: -32020, message: "Header mismatch: the Mcp-Method header does not match the body's method" },
    });
    // the body agreeing: still 404 -32601
    const same = await m26('resources/list');
    expect(same.status).toBe(404);
    expect(same.body.error.code).toBe(-32601);
  });

  it('Mcp-Name of an unknown tool with a served tool in the body is 400 -32020, not "Unknown tool"', async () => {
    const r = await e.mcp(
      {
        jsonrpc: '2.0',
        id: 'mn-1',
        method: 'tools/call',
        params: { name: 'getExchangeRate', arguments: { buyCurrency: 'EUR', sellCurrency: 'USD' }, _meta: META },
      },
      { 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'nope' },
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      id: 'mn-1',
      error: { code: -32020, message: "Header mismatch: the Mcp-Name header does not match the body's params.name" },
    });
    const same = await m26('tools/call', { name: 'nope', arguments: {} });
    expect(same.status).toBe(200);
    expect(same.body.error).toEqual({ code: -32602, message: 'Unknown tool: nope' });
  });
});

describe('correlation id and route metrics', () => {
  it('successful answers carry X-Correlation-Id: the one sent, else a new one', async () => {
    const sent = await m26('tools/list', {}, { 'x-correlation-id': 'corr-std-1' });
    expect(sent.status).toBe(200);
    expect(sent.headers.get('x-correlation-id')).toBe('corr-std-1');
    const made = await e.rpc('tools/list', undefined, { 'mcp-protocol-version': '2025-11-25' });
    expect(made.status).toBe(200);
    expect(made.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
    const call = await fx('EUR', { 'x-correlation-id': 'corr-std-2' });
    expect(call.headers.get('x-correlation-id')).toBe('corr-std-2');
  });

  it('a gateway tool call is counted in engine_route_duration_seconds like a direct call of the route', async () => {
    const re = /engine_route_duration_seconds_count\{route="get-exchange-rate"\} (\d+)/;
    const before = sample(await metrics(), re);
    await fx('EUR');
    expect(sample(await metrics(), re)).toBe(before + 1);
    await e.request('POST', '/foreign-exchange/exchange-rates', { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(sample(await metrics(), re)).toBe(before + 2);
  });
});
