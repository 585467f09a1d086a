// The OpenTelemetry conventions for MCP servers (semantic-conventions-genai, docs/gen-ai/mcp.md) on
// every /mcp request: one SERVER span named `{mcp.method.name} {gen_ai.tool.name}` with
// mcp.method.name, gen_ai.tool.name, gen_ai.operation.name (execute_tool for tools/call),
// jsonrpc.request.id, mcp.protocol.version and, when it failed, error.type (the JSON-RPC error
// code, the HTTP status of a refusal, or `tool_error` for a result with isError) with the span status
// ERROR; and the histogram mcp.server.operation.duration (Prometheus:
// mcp_server_operation_duration_seconds). The span's parent is the trace context of the request's
// `params._meta` (traceparent, tracestate) when present, with the HTTP request's own context linked;
// else the HTTP headers'. A tool call's span starts before the route runs (the route's exchange span
// is its child); any other request's span is made when its answer is known, dated from its arrival.
// Labels and span names take known method names and served tool names only: no client input makes a
// series.

import { performance } from 'node:perf_hooks';
import type { Registry } from 'prom-client';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Link } from '@opentelemetry/api';
import type { EngineTracing } from '../pipeline/engine-tracing.ts';
import { FastHistogram, type HistogramChild } from '../observability/metric-types.ts';
import { UNKNOWN_TOOL } from './metrics.ts';
import type { CallFacts, GatewayRequest, GatewayResponse, McpOperation } from './rpc.ts';
import { header, MODERN_VERSIONS, readModernHeaders } from './mcp-headers.ts';

/** What the gateway learned of a request (mcp.ts's Call): read when the span is made. */

/** The well-known values of mcp.method.name (any other is `_OTHER`). */
const METHODS = new Set([
  'completion/complete',
  'initialize',
  'logging/setLevel',
  'notifications/cancelled',
  'notifications/initialized',
  'notifications/progress',
  'notifications/roots/list_changed',
  'ping',
  'prompts/get',
  'prompts/list',
  'resources/list',
  'resources/read',
  'resources/subscribe',
  'resources/templates/list',
  'resources/unsubscribe',
  'server/discover',
  'tools/call',
  'tools/list',
]);
const OTHER = '_OTHER';

// the semconv's advice for mcp.server.operation.duration
const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The code of a JSON-RPC error answer (rpc.ts writes `"error":{"code":` right after the id), if it is one. */
const ERROR_CODE = /^\{"jsonrpc":"2\.0","id":(?:null|-?[0-9.eE+-]+|"(?:[^"\\]|\\.)*"),"error":\{"code":(-?\d+)/;

const getter = {
  keys: (c: Record<string, unknown>) => Object.keys(c),
  get: (c: Record<string, unknown>, k: string) => {
    const v = c[k];
    return typeof v === 'string' ? v : undefined;
  },
};

/** One request on its way: begun on arrival, ended with its answer. */

export class McpTelemetry {
  private duration: FastHistogram<'mcp_method_name' | 'gen_ai_tool_name' | 'error_type'>;
  private children = new Map<string, HistogramChild>();

  constructor(
    registry: Registry,
    private tracing: EngineTracing | undefined,
  ) {
    this.duration = new FastHistogram(
      'mcp_server_operation_duration_seconds',
      'MCP request duration as the gateway saw it, from arrival to answer (OTel mcp.server.operation.duration)',
      ['mcp_method_name', 'gen_ai_tool_name', 'error_type'],
      BUCKETS,
      registry,
    );
  }

  /** Begins the operation of a request that just arrived. `served`: whether a tool name is a served tool. */
  begin(req: GatewayRequest, served: (name: string) => boolean): McpOperation {
    const started = performance.now();
    let span: ReturnType<NonNullable<EngineTracing['tracer']>['startSpan']> | undefined;
    let toolError = false;
    return {
      toolCall: (c, toolName) => {
        const t = this.tracing;
        if (!t?.tracer) return undefined;
        span = this.startSpan(t, req, c, 'tools/call', toolName, started);
        return trace.setSpan(ROOT_CONTEXT, span);
      },
      toolFailed: () => {
        toolError = true;
      },
      end: (out) => {
        const c = req.call;
        const facts = this.named(req, c, served);
        const error = toolError ? 'tool_error' : errorType(out);
        this.observe(facts.method, facts.tool, error, (performance.now() - started) / 1000);
        const t = this.tracing;
        if (!t?.tracer) return;
        const s = span ?? this.startSpan(t, req, c, facts.method, facts.tool, started);
        if (error !== undefined) {
          s.setAttribute('error.type', error);
          if (error !== 'tool_error' && /^-/.test(error)) s.setAttribute('rpc.response.status_code', error);
          s.setStatus({ code: SpanStatusCode.ERROR, message: error });
        }
        if (!(out.status >= 200 && out.status < 300)) s.setAttribute('http.response.status_code', out.status);
        s.end();
      },
    };
  }

  /** Method and tool as labels: known methods and served tools only. */
  private named(
    req: GatewayRequest,
    c: CallFacts | undefined,
    served: (name: string) => boolean,
  ): { method: string; tool?: string } {
    let method = c?.method;
    let name = c?.name;
    if (!method) {
      // refused before the call was read: a 2026-07-28 request names itself in its headers
      const pv = header(req.headers, 'mcp-protocol-version');
      const h = pv !== undefined && MODERN_VERSIONS.includes(pv) ? readModernHeaders(req.headers) : undefined;
      if (h !== undefined && typeof h !== 'string') {
        method = h.method;
        name = h.name;
      }
    }
    const m = method && METHODS.has(method) ? method : OTHER;
    return {
      method: m,
      tool: m === 'tools/call' ? (name !== undefined && served(name) ? name : UNKNOWN_TOOL) : undefined,
    };
  }

  private observe(method: string, tool: string | undefined, error: string | undefined, seconds: number): void {
    const key = `${method}\u0000${tool ?? ''}\u0000${error ?? ''}`;
    let h = this.children.get(key);
    if (!h) {
      h = this.duration.labels({ mcp_method_name: method, gen_ai_tool_name: tool ?? '', error_type: error ?? '' });
      this.children.set(key, h);
    }
    h.observe(seconds);
  }

  private startSpan(
    t: EngineTracing,
    req: GatewayRequest,
    c: CallFacts | undefined,
    method: string,
    tool: string | undefined,
    started: number,
  ) {
    const attributes: Attributes = {
      'mcp.method.name': method,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'engine.correlation_id': req.correlationId,
    };
    if (tool !== undefined) {
      attributes['gen_ai.tool.name'] = tool;
      attributes['gen_ai.operation.name'] = 'execute_tool';
    }
    if (c) {
      attributes['mcp.protocol.version'] = c.version;
      // "SHOULD NOT capture this attribute when the id is null or omitted"
      if (c.hasId && c.id !== null) attributes['jsonrpc.request.id'] = String(c.id);
    }
    const ambient = t.propagator!.extract(ROOT_CONTEXT, req.headers as Record<string, unknown>, getter);
    const meta = c?.msg?.params?._meta;
    let parent = ambient;
    const links: Link[] = [];
    if (meta !== null && typeof meta === 'object' && typeof meta.traceparent === 'string') {
      const fromMeta = t.propagator!.extract(ROOT_CONTEXT, meta as Record<string, unknown>, getter);
      if (trace.getSpanContext(fromMeta)) {
        parent = fromMeta;
        // "SHOULD link current ambient context, if it's present"
        const a = trace.getSpanContext(ambient);
        if (a) links.push({ context: a });
      }
    }
    return t.tracer!.startSpan(
      tool !== undefined ? `${method} ${tool}` : method,
      { kind: SpanKind.SERVER, attributes, links, startTime: performance.timeOrigin + started },
      parent,
    );
  }
}

/** error.type of an answer: the JSON-RPC error code, or the HTTP status of a refusal; undefined when it succeeded. */
function errorType(out: GatewayResponse): string | undefined {
  if (out.body !== undefined) {
    const m = ERROR_CODE.exec(out.body);
    if (m) return m[1];
  }
  return out.status >= 400 ? String(out.status) : undefined;
}

// one per registry, as the gateway's other metrics (metrics.ts): a reload keeps counting
const perRegistry = new WeakMap<Registry, McpTelemetry>();

export function mcpTelemetry(registry: Registry, tracing: EngineTracing | undefined): McpTelemetry {
  let m = perRegistry.get(registry);
  if (!m) {
    m = new McpTelemetry(registry, tracing);
    perRegistry.set(registry, m);
  }
  return m;
}
