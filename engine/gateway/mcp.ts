// MCP (revision 2025-11-25) over Streamable HTTP, stateless, written by hand: one POST carries one
// JSON-RPC request and gets one JSON answer. Checks run in this order: Origin, subscription key,
// MCP-Protocol-Version, bearer token (a token not verified before is first paid for from the client
// IP's budget), JSON-RPC shape, rate limits, then the method. tools/list
// pages are built at start per subscription; tools/call runs the target route in-process with the
// arguments as body and only the user id (never the token, never client headers) as user context.
// Every refusal is counted (gateway_refusals_total) and logged once (refusals.ts).

import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { PlatformError, problemOf, toPlatformError } from '../runtime/errors.ts';
import type { DirectCall, DirectResult } from '../runtime/compile-context.ts';
import type { GatewaySettings, Subscription } from './config.ts';
import { KEY_HEADER, KeyRing } from './keys.ts';
import { TokenError, type TokenVerifier } from './jwt.ts';
import type { LimitCheck, Limiter, LimitResult } from './rate-limit.ts';
import { ClientIp } from './client-ip.ts';
import { jsonDeeperThan } from '../http/json-depth.ts';
import type { Tool } from './tools.ts';
import { GatewayMetrics, UNKNOWN_TOOL, type LimitName, type ToolMetrics } from './metrics.ts';
import { Refusals, type Refused } from './refusals.ts';

export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

export interface GatewayRequest {
  headers: IncomingHttpHeaders;
  body: string;
  remoteAddress?: string;
  correlationId: string;
}

export interface GatewayResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

type Id = string | number | null;
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

const JSON_HEADERS = { 'content-type': 'application/json' };

function rpcError(id: Id, code: number, message: string, status = 200, data?: unknown): GatewayResponse {
  return {
    status,
    headers: { ...JSON_HEADERS },
    body: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${JSON.stringify(data === undefined ? { code, message } : { code, message, data })}}`,
  };
}

function rpcResult(id: Id, resultJson: string): GatewayResponse {
  return { status: 200, headers: { ...JSON_HEADERS }, body: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}` };
}

function problem(status: number, error: string, detail: string, correlationId: string, headers: Record<string, string> = {}): GatewayResponse {
  const kind = status === 401 ? 'unauthorized' : status === 403 ? 'forbidden' : status === 429 || status === 503 ? 'rate-limited' : status === 415 ? 'unsupported-media' : status === 406 ? 'validation' : 'validation';
  const p = problemOf(new PlatformError({ kind, status, title: status === 406 ? 'Not acceptable' : status === 503 ? 'Service unavailable' : undefined, detail, extensions: { error } }), correlationId);
  return { status, headers: { 'content-type': 'application/problem+json', 'x-correlation-id': correlationId, ...headers }, body: JSON.stringify(p) };
}

function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)[ ]*$/i;

/** The text after `Bearer ` without surrounding spaces (BEARER checks its characters). */
function bearerToken(auth: string): string | undefined {
  if (auth.length < 8 || auth.charCodeAt(6) !== 32 || auth.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  let a = 7;
  let b = auth.length;
  while (a < b && auth.charCodeAt(a) === 32) a++;
  while (b > a && auth.charCodeAt(b - 1) === 32) b--;
  return a < b ? auth.slice(a, b) : undefined;
}

const isId = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

export interface GatewayDeps {
  settings: GatewaySettings;
  tools: Tool[];
  verifier: TokenVerifier;
  limiter: Limiter;
  call: (routeId: string, init: DirectCall) => Promise<DirectResult>;
  log: Logger;
  /** deepest nesting of a JSON-RPC body (engine.server.jsonDepthLimit; default 64) */
  jsonDepthLimit?: number;
  /** the engine's gateway metrics (default: a registry of its own) */
  metrics?: GatewayMetrics;
}

interface SubView {
  sub: Subscription;
  tools: Map<string, Tool>;
  /** tools/list result JSON per page */
  pages: string[];
  publicQuota: number;
  userQuota: number;
}

export class McpGateway {
  private keys: KeyRing;
  private views = new Map<Subscription, SubView>();
  private ip: ClientIp;
  private windowMs: number;
  private initializeResult: (version: string) => string;
  /** bound metrics of every served tool, by name */
  private toolMetrics = new Map<string, ToolMetrics>();
  private unknownTool: ToolMetrics;
  private refusals: Refusals;

  constructor(private d: GatewayDeps) {
    const s = d.settings;
    this.keys = new KeyRing(s.subscriptions);
    this.ip = new ClientIp(s.trustedProxies, s.ipv6Prefix);
    // label sets bound here: a call then costs a lookup by tool name and a few additions
    const metrics = d.metrics ?? new GatewayMetrics(new Registry());
    for (const t of d.tools) this.toolMetrics.set(t.name, metrics.tool(t.name));
    this.unknownTool = metrics.tool(UNKNOWN_TOOL);
    this.refusals = new Refusals(metrics, d.log, this.ip, (name) => this.toolMetrics.get(name) ?? this.unknownTool);
    this.windowMs = s.rateLimits.windowSeconds * 1000;
    for (const sub of s.subscriptions) {
      const allowed = d.tools.filter((t) => sub.tools.includes('*') || sub.tools.includes(t.name));
      const pages: string[] = [];
      for (let i = 0; i < Math.max(1, allowed.length); i += s.pageSize) {
        const slice = allowed.slice(i, i + s.pageSize).map((t) => t.definition);
        const next = i + s.pageSize < allowed.length ? Buffer.from(`page:${pages.length + 1}`).toString('base64url') : undefined;
        pages.push(JSON.stringify(next ? { tools: slice, nextCursor: next } : { tools: slice }));
      }
      this.views.set(sub, {
        sub, pages,
        tools: new Map(allowed.map((t) => [t.name, t])),
        publicQuota: sub.quotaPublic ?? s.rateLimits.subscriptionPublic,
        userQuota: sub.quotaUser ?? s.rateLimits.subscriptionUser,
      });
    }
    const info = JSON.stringify({ name: s.serverName, version: s.serverVersion, title: 'Bank integration platform tools' });
    const instructions = JSON.stringify('Banking tools. Public tools (exchange rates, products) need only the subscription key; '
      + 'tools about the user\'s own accounts need `Authorization: Bearer <token>` of the signed-in user.');
    this.initializeResult = (version) => `{"protocolVersion":${JSON.stringify(version)},"capabilities":{"tools":{"listChanged":false}},"serverInfo":${info},"instructions":${instructions}}`;
  }

  async handle(req: GatewayRequest): Promise<GatewayResponse> {
    const { headers, correlationId } = req;
    const s = this.d.settings;

    const origin = header(headers, 'origin');
    if (origin !== undefined && !s.allowedOrigins.includes(origin)) {
      return this.refusals.refuse({ req, reason: 'origin_not_allowed', detail: '' },
        problem(403, 'origin_not_allowed', `Origin '${origin}' is not allowed (gateway.allowedOrigins)`, correlationId));
    }

    const key = header(headers, KEY_HEADER);
    if (key === undefined || key === '') {
      return this.refusals.refuse({ req, reason: 'missing_key', detail: '' },
        problem(401, 'missing_subscription_key', 'Access denied: the Ocp-Gateway-Subscription-Key header is missing. Send the subscription key on every request.', correlationId));
    }
    const sub = this.keys.match(key);
    if (!sub) {
      return this.refusals.refuse({ req, reason: 'invalid_key', detail: '' },
        problem(401, 'invalid_subscription_key', 'Access denied: the Ocp-Gateway-Subscription-Key is not a valid key for this environment.', correlationId));
    }
    const view = this.views.get(sub)!;

    const pv = header(headers, 'mcp-protocol-version');
    if (pv !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(pv)) {
      return problem(400, 'unsupported_protocol_version', `MCP-Protocol-Version '${pv}' is not supported; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`, correlationId);
    }

    const ct = header(headers, 'content-type');
    if (!ct || !/^application\/json\b/i.test(ct)) {
      return problem(415, 'unsupported_media_type', 'Content-Type must be application/json', correlationId);
    }
    const accept = header(headers, 'accept');
    if (accept !== undefined && !/application\/json|application\/\*|\*\/\*/i.test(accept)) {
      return problem(406, 'not_acceptable', 'Accept must allow application/json', correlationId);
    }

    // the user: a bearer token is verified whenever present; without one the caller is anonymous.
    // A token not verified before costs a signature check, so it is paid for first from the client
    // IP's budget (the anonymous one): a bad token keeps that unit, a valid one gets it back. Once the
    // IP's budget is spent, unknown tokens get 429 without any signature check.
    const rl = s.rateLimits;
    let userId = 'anonymous';
    let authenticated = false;
    const auth = header(headers, 'authorization');
    if (auth !== undefined) {
      // a token verified before is found by its exact string without parsing the header further
      const candidate = bearerToken(auth);
      const known = candidate !== undefined ? this.d.verifier.cached(candidate) : undefined;
      const m = known ? null : BEARER.exec(auth);
      if (known) {
        userId = known.sub;
        authenticated = true;
      } else {
        const ipKey = this.ipKey(req);
        let pre = this.d.limiter.hit([{ key: ipKey, limit: rl.anonymous }], this.windowMs);
        if (pre instanceof Promise) pre = await pre;
        if (!pre.allowed) return this.refused(pre, { req, sub }, 'anonymous_ip');
        if (!m) return this.invalidToken({ req, sub, reason: 'invalid_token', detail: 'not_bearer' }, 'the Authorization header is not `Bearer <token>`', rateHeaders(pre));
        try {
          userId = (await this.d.verifier.verify(m[1])).sub;
          authenticated = true;
        } catch (e) {
          if (e instanceof TokenError) return this.invalidToken({ req, sub, reason: 'invalid_token', detail: e.check }, e.message, rateHeaders(pre));
          throw e;
        }
        if (pre.ticket !== undefined) {
          const back = this.d.limiter.release([ipKey], pre.ticket);
          if (back instanceof Promise) await back;
        }
      }
    } else if (s.requireToken) {
      return this.refusals.refuse({ req, sub, user: userId, reason: 'token_required', detail: 'all_requests' },
        problem(401, 'token_required', 'A bearer token is required: send Authorization: Bearer <token>', correlationId, { 'www-authenticate': 'Bearer realm="mcp"' }));
    }

    // JSON-RPC shape
    let msg: any;
    const depth = this.d.jsonDepthLimit ?? 64;
    if (jsonDeeperThan(req.body, depth)) return rpcError(null, INVALID_REQUEST, `Invalid Request: the body nests arrays and objects deeper than the limit of ${depth} levels`, 400);
    try {
      msg = JSON.parse(req.body);
    } catch {
      return rpcError(null, PARSE_ERROR, 'Parse error: the body is not valid JSON', 400);
    }
    if (Array.isArray(msg)) return rpcError(null, INVALID_REQUEST, 'Invalid Request: JSON-RPC batches are not supported', 400);
    if (!msg || typeof msg !== 'object') return rpcError(null, INVALID_REQUEST, 'Invalid Request: expected a JSON-RPC 2.0 object', 400);
    const hasId = 'id' in msg;
    const id: Id = isId(msg.id) ? msg.id : null;
    if (msg.jsonrpc !== '2.0') return rpcError(id, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"', 400);
    if (hasId && !isId(msg.id)) return rpcError(null, INVALID_REQUEST, 'Invalid Request: id must be a string or a number', 400);
    if (typeof msg.method !== 'string') {
      // a response or error object sent by the client (answers to server requests): accepted
      if (hasId && ('result' in msg || 'error' in msg)) return { status: 202, headers: {} };
      return rpcError(id, INVALID_REQUEST, 'Invalid Request: method must be a string', 400);
    }
    if (msg.params !== undefined && (msg.params === null || typeof msg.params !== 'object')) {
      return hasId ? rpcError(id, INVALID_PARAMS, 'Invalid params: params must be an object') : { status: 202, headers: {} };
    }

    // limits: the per-user or per-IP policy on every request, the subscription quota on tool calls
    const method: string = msg.method;
    const tool: Tool | undefined = method === 'tools/call' && typeof msg.params?.name === 'string' ? view.tools.get(msg.params.name) : undefined;
    if (tool?.security === 'bearer' && !authenticated) {
      return this.refusals.refuse({ req, sub, user: userId, method, tool: tool.name, reason: 'token_required', detail: 'tool' },
        problem(401, 'token_required', `Tool '${tool.name}' needs the signed-in user: send Authorization: Bearer <token>`, correlationId, { 'www-authenticate': 'Bearer realm="mcp", error="invalid_token", error_description="a bearer token is required for this tool"' }));
    }
    const checks: LimitCheck[] = [authenticated
      ? { key: `user:${userId}`, limit: rl.user }
      : { key: this.ipKey(req), limit: rl.anonymous }];
    if (tool) {
      checks.push(tool.security === 'bearer'
        ? { key: `sub:${sub.name}:user:${userId}`, limit: view.userQuota }
        : { key: `sub:${sub.name}:public`, limit: view.publicQuota });
    }
    let limit = this.d.limiter.hit(checks, this.windowMs);
    if (limit instanceof Promise) limit = await limit;
    if (!limit.allowed) {
      // which counter refused: the policy (first check) or the subscription quota (second)
      const which: LimitName = limit.key !== undefined && checks.length > 1 && limit.key === checks[1].key
        ? (tool!.security === 'bearer' ? 'subscription_user' : 'subscription_public')
        : authenticated ? 'user' : 'anonymous_ip';
      return this.refused(limit, { req, sub, user: userId, method, tool: tool?.name ?? (method === 'tools/call' ? requestedTool(msg) : undefined) }, which);
    }
    const rlHeaders = rateHeaders(limit);

    const out = await this.dispatch(req, msg, hasId, id, method, view, tool, userId, authenticated, correlationId);
    Object.assign(out.headers, rlHeaders);
    return out;
  }

  private ipKey(req: GatewayRequest): string {
    // an IPv6 client by its network (gateway.rateLimits.ipv6Prefix): rotating addresses gains nothing
    return `ip:${this.ip.limitKey(req.remoteAddress, req.headers['x-forwarded-for'])}`;
  }

  /** 429 over a limit (Retry-After: until that counter has room again); 503 when the store is down and onError is deny. */
  private refused(limit: LimitResult, who: Omit<Refused, 'reason' | 'detail'>, which: LimitName): GatewayResponse {
    const correlationId = who.req.correlationId;
    const retry = String(Math.max(1, Math.ceil(limit.resetMs / 1000)));
    if (limit.unavailable) {
      return this.refusals.refuse({ ...who, reason: 'rate_limit_unavailable', detail: '' },
        problem(503, 'rate_limit_unavailable', 'The rate limit store is unavailable and this gateway refuses requests it cannot count (gateway.redis.onError: deny); retry later', correlationId, { 'retry-after': retry }));
    }
    return this.refusals.refuse({ ...who, reason: 'rate_limited', detail: which },
      problem(429, 'rate_limited', `Too many requests: the limit is ${limit.limit} per ${this.d.settings.rateLimits.windowSeconds} s; retry after ${retry} s`, correlationId, { ...rateHeaders(limit), 'retry-after': retry }));
  }

  private invalidToken(why: Refused, description: string, extra: Record<string, string>): GatewayResponse {
    return this.refusals.refuse(why, problem(401, 'invalid_token', `The bearer token was refused: ${description}`, why.req.correlationId, {
      ...extra,
      'www-authenticate': `Bearer realm="mcp", error="invalid_token", error_description="${description.replace(/["\\]/g, '')}"`,
    }));
  }

  private async dispatch(req: GatewayRequest, msg: any, hasId: boolean, id: Id, method: string, view: SubView, tool: Tool | undefined, userId: string, authenticated: boolean, correlationId: string): Promise<GatewayResponse> {
    if (!hasId) return { status: 202, headers: {} }; // notifications: notifications/initialized, cancelled, ...
    switch (method) {
      case 'initialize': {
        const asked = msg.params?.protocolVersion;
        if (typeof asked !== 'string') return rpcError(id, INVALID_PARAMS, 'Invalid params: protocolVersion is required');
        const version = SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
        return rpcResult(id, this.initializeResult(version));
      }
      case 'ping':
        return rpcResult(id, '{}');
      case 'tools/list': {
        const cursor = msg.params?.cursor;
        let page = 0;
        if (cursor !== undefined) {
          const m = typeof cursor === 'string' ? /^page:(\d{1,6})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
          page = m ? Number(m[1]) : -1;
          if (page < 1 || page >= view.pages.length) return rpcError(id, INVALID_PARAMS, 'Invalid params: unknown cursor');
        }
        return rpcResult(id, view.pages[page]);
      }
      case 'tools/call': {
        const name = msg.params?.name;
        if (typeof name !== 'string') {
          this.unknownTool.invalid.inc();
          return rpcError(id, INVALID_PARAMS, 'Invalid params: name is required');
        }
        if (!tool) {
          // the same answer either way (the subscription's tools/list does not show the other tools)
          return this.refusals.refuse({ req, sub: view.sub, user: userId, method, tool: name, reason: this.toolMetrics.has(name) ? 'tool_not_allowed' : 'unknown_tool', detail: '' },
            rpcError(id, INVALID_PARAMS, `Unknown tool: ${name}`));
        }
        const args = msg.params.arguments;
        if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
          this.toolMetrics.get(tool.name)!.invalid.inc();
          return rpcError(id, INVALID_PARAMS, 'Invalid params: arguments must be an object');
        }
        return this.callTool(id, tool, args ?? {}, userId, authenticated, correlationId);
      }
      default:
        return rpcError(id, METHOD_NOT_FOUND, `Method not found: ${method}`);
    }
  }

  private async callTool(id: Id, tool: Tool, args: Record<string, unknown>, userId: string, authenticated: boolean, correlationId: string): Promise<GatewayResponse> {
    const tm = this.toolMetrics.get(tool.name)!;
    const started = performance.now();
    let result: DirectResult;
    try {
      let body = args;
      let params: Record<string, string> | undefined;
      if (tool.pathParams.length) {
        // the route's path parameters are arguments too; they must be there before any route runs
        ({ body, params } = splitPathParams(tool, args));
      }
      result = await this.d.call(tool.route, { body, params, user: { id: userId, authenticated }, correlationId });
    } catch (e) {
      const err = toPlatformError(e);
      tm.duration.observe((performance.now() - started) / 1000);
      tm.error.inc();
      if (err.kind === 'internal' || err.kind === 'config') this.d.log.error({ tool: tool.name, correlationId, err: e }, 'gateway: tool failed');
      const p = JSON.stringify(problemOf(err, correlationId));
      return rpcResult(id, `{"content":[{"type":"text","text":${JSON.stringify(p)}}],"isError":true}`);
    }
    tm.duration.observe((performance.now() - started) / 1000);
    tm.ok.inc();
    const body = result.body;
    const json = body === undefined ? 'null' : JSON.stringify(body);
    const structured = body !== null && typeof body === 'object' && !Array.isArray(body) ? `,"structuredContent":${json}` : '';
    return rpcResult(id, `{"content":[{"type":"text","text":${JSON.stringify(json)}}]${structured},"isError":false}`);
  }
}

/** Takes the path parameters out of the arguments; a missing or non-string one is a validation problem. */
function splitPathParams(tool: Tool, args: Record<string, unknown>): { body: Record<string, unknown>; params: Record<string, string> } {
  const body: Record<string, unknown> = { ...args };
  const params: Record<string, string> = {};
  const errors: { field: string; message: string }[] = [];
  for (const n of tool.pathParams) {
    const v = args[n];
    delete body[n];
    if (typeof v === 'string' && v !== '') params[n] = v;
    else errors.push({ field: `/${n}`, message: v === undefined ? 'is required' : 'must be a non-empty string' });
  }
  if (errors.length) {
    throw new PlatformError({ kind: 'validation', code: 'GC025', detail: errors.map((e) => `${e.field} ${e.message}`).join('; '), errors });
  }
  return { body, params };
}

/** The tool name of a tools/call body, when it names one. */
function requestedTool(msg: any): string | undefined {
  return typeof msg.params?.name === 'string' ? msg.params.name : undefined;
}

function rateHeaders(r: LimitResult): Record<string, string> {
  return {
    'ratelimit-limit': String(r.limit),
    'ratelimit-remaining': String(r.remaining),
    'ratelimit-reset': String(Math.max(0, Math.ceil(r.resetMs / 1000))),
  };
}

export { INTERNAL_ERROR };
