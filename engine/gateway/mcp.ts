// MCP over Streamable HTTP, stateless, written by hand: one POST carries one JSON-RPC request and
// gets one JSON answer. Two eras on one endpoint, chosen by the MCP-Protocol-Version header
// (2026-07-28, basic/versioning.mdx "Backward Compatibility with Initialization-Based Versions"):
// 2026-07-28 requests carry their version, client info and capabilities in `_meta` and the
// Mcp-Method / Mcp-Name headers, so the gateway decides on the method and the tool (404 for an
// unknown method, unknown tools, rate limits) before it parses the body, then checks the headers
// against the body (HeaderMismatch). 2025-11-25 and earlier (a legacy version in the header, or no
// header: 2025-03-26) open with `initialize`, and method and tool come from the parsed body.
// Checks run in this order: Origin, subscription key, MCP-Protocol-Version, content type, (2026)
// the method and name headers, bearer token (a token not verified before is first paid for from the
// client IP's budget), tool scoping, rate limits, JSON-RPC shape, headers against the body (2026:
// the required ones, and `_meta`; earlier revisions: those sent), then the method. tools/list pages
// are built at start per subscription and era; tools/call runs the target route in-process with the
// arguments as body and only the user id (never the token, never client headers) as user context.
// Every refusal is counted (gateway_refusals_total) and logged once (refusals.ts).

import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { DirectCall, DirectResult } from '../pipeline/compile-context.ts';
import type { GatewaySettings, Subscription } from './config.ts';
import { KEY_HEADER, KeyRing } from './keys.ts';
import { TokenError, type TokenVerifier } from './jwt.ts';
import type { LimitCheck, Limiter, LimitResult } from './rate-limit.ts';
import { ClientIp } from './client-ip.ts';
import { jsonDeeperThan } from '../http/json-depth.ts';
import type { Tool } from './tools.ts';
import { GatewayMetrics, UNKNOWN_TOOL, type LimitName, type ToolMetrics } from './metrics.ts';
import { Refusals, type Refused } from './refusals.ts';
import {
  HEADER_MISMATCH,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  UNSUPPORTED_PROTOCOL_VERSION,
  URL_ELICITATION_REQUIRED,
  MISSING_CLIENT_CAPABILITY,
  problem,
  rpcError,
  rpcResult,
  scanId,
  type GatewayRequest,
  type GatewayResponse,
  type Id,
} from './rpc.ts';
import {
  LATEST_LEGACY_VERSION,
  LEGACY_VERSIONS,
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  MODERN_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  VERSION_WITHOUT_HEADER,
  WITHOUT_STRUCTURED_CONTENT,
  header,
  nameField,
  paramHeaderMismatch,
  readModernHeaders,
  sentHeaderMismatch,
} from './mcp-headers.ts';
import { buildViews, type SubView } from './views.ts';
import { ProtectedResource, type BearerError } from './oauth.ts';
import { runTool, type ToolDeps } from './tool-call.ts';
import { unknownNameMismatch } from './mcp-unknown.ts';
import { NO_AUDIT, type GatewayAudit } from './audit-hook.ts';
import { argsDigest } from './audit-chain.ts';
import { canElicitForm, Confirmations, type ConfirmOutcome } from './confirmation.ts';
import { StoreUnavailableError } from '../store/store.ts';
import { MemoryStore } from '../store/store-memory.ts';
import { UrlConfirmations } from './url-confirmation.ts';
import { declaredUrlElicitation, sessionFor } from './client-session.ts';
import { declaresTasks, GatewayTasks, TASKS_EXTENSION } from './tasks.ts';

/** Where a confirmation page is served, below the gateway's path (confirm-page.ts). */
export const CONFIRMATIONS_PATH = '/confirmations/';

export type { GatewayRequest, GatewayResponse } from './rpc.ts';

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

const isId = (v: unknown): v is string | number =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** The 2026-07-28 methods this server implements; any other is 404 with -32601. */
const MODERN_METHODS = new Set([
  'server/discover',
  'tools/list',
  'tools/call',
  // the tasks extension (tasks.ts)
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
]);

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
  /** where the gateway is served (default /mcp): the path of the resource identifier */
  path?: string;
  /** the audit trail of every decision (default: none) */
  audit?: GatewayAudit;
  /** confirmations of `confirm: required` tools (default: from settings, a random key, nonces in memory) */
  confirmations?: Confirmations;
  /** confirmations of 2025-11-25 clients through the gateway's page (default: in memory) */
  urlConfirmations?: UrlConfirmations;
  /** tool calls run as tasks (default: in memory, gateway.tasks' time and limit) */
  tasks?: GatewayTasks;
}

/** One request on its way through the checks. */
interface Call {
  req: GatewayRequest;
  view: SubView;
  /** the revision the request speaks: the header's, or 2025-03-26 without one */
  version: string;
  /** an MCP-Protocol-Version header was sent */
  versionSent: boolean;
  modern: boolean;
  method: string;
  /** tools/call: the tool named (header or body), served to this subscription or not */
  name?: string;
  tool?: Tool;
  /** tasks/*: the task named by the Mcp-Name header (2026-07-28) */
  taskId?: string;
  userId: string;
  authenticated: boolean;
  /** the verified token's scopes */
  scopes?: ReadonlySet<string>;
  msg?: any;
  id: Id;
  /** the counter that decided the RateLimit-* headers of the answer (once counted) */
  limit?: LimitResult;
  hasId: boolean;
}

export class McpGateway {
  private keys: KeyRing;
  private views: Map<Subscription, SubView>;
  private ip: ClientIp;
  private windowMs: number;
  /** bound metrics of every served tool, by name */
  private toolMetrics = new Map<string, ToolMetrics>();
  private unknownTool: ToolMetrics;
  private refusals: Refusals;
  private resource: ProtectedResource;
  private initializeResult: (version: string) => string;
  private discoverResult: string;
  /** `,"_meta":{serverInfo}}` closing every 2026-07-28 result */
  private modernTail: string;
  private toolDeps: ToolDeps;
  private audit: GatewayAudit;
  private confirmations: Confirmations;
  private urlConfirmations: UrlConfirmations;
  private tasks: GatewayTasks;

  constructor(private d: GatewayDeps) {
    const s = d.settings;
    this.audit = d.audit ?? NO_AUDIT;
    const ttlMs = s.confirmation.ttlSeconds * 1000;
    this.confirmations =
      d.confirmations ??
      new Confirmations(
        s.confirmation.secret || Confirmations.randomKey(),
        ttlMs,
        new MemoryStore().claims({ namespace: 'gateway-confirmations', ttlMs: 2 * ttlMs, maxKeys: 100_000 }),
      );
    this.urlConfirmations =
      d.urlConfirmations ??
      new UrlConfirmations(
        new MemoryStore().records({ namespace: 'gateway-url-confirmations', ttlMs: 2 * ttlMs, maxKeys: 100_000 }),
        ttlMs,
      );
    const taskTtlMs = s.tasks.ttlSeconds * 1000;
    this.tasks =
      d.tasks ??
      new GatewayTasks(
        new MemoryStore().records({ namespace: 'gateway-tasks', ttlMs: taskTtlMs, maxKeys: 10_000 }),
        taskTtlMs,
        s.tasks.maxRunning,
      );
    this.keys = new KeyRing(s.subscriptions);
    this.toolDeps = { call: d.call, log: d.log };
    this.ip = new ClientIp(s.trustedProxies, s.ipv6Prefix);
    // label sets bound here: a call then costs a lookup by tool name and a few additions
    const metrics = d.metrics ?? new GatewayMetrics(new Registry());
    for (const t of d.tools) this.toolMetrics.set(t.name, metrics.tool(t.name));
    this.unknownTool = metrics.tool(UNKNOWN_TOOL);
    this.refusals = new Refusals(
      metrics,
      d.log,
      this.ip,
      (name) => this.toolMetrics.get(name) ?? this.unknownTool,
      d.audit ?? NO_AUDIT,
    );
    this.windowMs = s.rateLimits.windowSeconds * 1000;
    this.views = buildViews(s, d.tools);
    this.resource = new ProtectedResource(
      s,
      this.ip,
      d.path ?? '/mcp',
      d.tools.flatMap((t) => t.scopes),
    );
    const info = JSON.stringify({
      name: s.serverName,
      version: s.serverVersion,
      title: 'Bank integration platform tools',
    });
    const instructions = JSON.stringify(
      'Banking tools. Public tools (exchange rates, products) need only the subscription key; ' +
        "tools about the user's own accounts need `Authorization: Bearer <token>` of the signed-in user.",
    );
    const capabilities = '{"tools":{"listChanged":false}}';
    this.initializeResult = (version) =>
      `{"protocolVersion":${JSON.stringify(version)},"capabilities":${capabilities},"serverInfo":${info},"instructions":${instructions}}`;
    // 2026-07-28: "Servers SHOULD include ... io.modelcontextprotocol/serverInfo in every result's _meta"
    this.modernTail = `,"_meta":{"io.modelcontextprotocol/serverInfo":${info}}}`;
    // server/discover is cacheable (server/utilities/caching.mdx); the same for every caller
    // 2026-07-28 also announces the tasks extension (tasks.ts)
    const modernCapabilities = `{"tools":{"listChanged":false},"extensions":{"${TASKS_EXTENSION}":{}}}`;
    this.discoverResult = `{"resultType":"complete","supportedVersions":${JSON.stringify(SUPPORTED_PROTOCOL_VERSIONS)},"capabilities":${modernCapabilities},"instructions":${instructions},"ttlMs":${s.listTtlSeconds * 1000},"cacheScope":"public"${this.modernTail}`;
  }

  /**
   * Answers one POST. Synchronous where nothing waits (every refusal, tools/list, ...); a promise
   * for a tool call, a token not verified before and the Redis limiter: each await of the call path
   * costs a promise and a turn of the microtask queue, so there is none where nothing waits.
   */
  handle(req: GatewayRequest): GatewayResponse | Promise<GatewayResponse> {
    const { headers, correlationId } = req;
    const s = this.d.settings;

    const origin = header(headers, 'origin');
    if (origin !== undefined && !s.allowedOrigins.includes(origin)) {
      return this.refusals.refuse(
        { req, reason: 'origin_not_allowed', detail: '', ...this.named(req) },
        problem(403, 'origin_not_allowed', `Origin '${origin}' is not allowed (gateway.allowedOrigins)`, correlationId),
      );
    }

    const key = header(headers, KEY_HEADER);
    if (key === undefined || key === '') {
      return this.refusals.refuse(
        { req, reason: 'missing_key', detail: '', ...this.named(req) },
        problem(
          401,
          'missing_subscription_key',
          'Access denied: the Ocp-Gateway-Subscription-Key header is missing. Send the subscription key on every request.',
          correlationId,
          this.challenge(req),
        ),
      );
    }
    const entry = this.keys.lookup(key);
    if (!entry) {
      return this.refusals.refuse(
        { req, reason: 'invalid_key', detail: '', ...this.named(req) },
        problem(
          401,
          'invalid_subscription_key',
          'Access denied: the Ocp-Gateway-Subscription-Key is not a valid key for this environment.',
          correlationId,
          this.challenge(req),
        ),
      );
    }
    req.keyId = entry.id;
    const view = this.views.get(entry.sub)!;

    // the era: a 2026-07-28 header, a legacy one, or none (2025-03-26); any other version is 400
    // with the supported list (streamable-http.mdx "Protocol Version Header")
    const pv = header(headers, 'mcp-protocol-version');
    const modern = pv !== undefined && MODERN_VERSIONS.includes(pv);
    if (pv !== undefined && !modern && !LEGACY_VERSIONS.includes(pv)) {
      return this.protocolError(
        req,
        'unsupported_version',
        rpcError(
          scanId(req.body),
          UNSUPPORTED_PROTOCOL_VERSION,
          `Unsupported protocol version: ${pv.slice(0, 64)}`,
          400,
          { supported: SUPPORTED_PROTOCOL_VERSIONS, requested: pv.slice(0, 64) },
        ),
      );
    }

    const ct = header(headers, 'content-type');
    if (!ct || !/^application\/json\b/i.test(ct)) {
      return this.protocolError(
        req,
        'unsupported_media_type',
        problem(415, 'unsupported_media_type', 'Content-Type must be application/json', correlationId),
      );
    }
    const accept = header(headers, 'accept');
    if (accept !== undefined && !/application\/json|application\/\*|\*\/\*/i.test(accept)) {
      return this.protocolError(
        req,
        'not_acceptable',
        problem(406, 'not_acceptable', 'Accept must allow application/json', correlationId),
      );
    }

    const c: Call = {
      req,
      view,
      version: pv ?? VERSION_WITHOUT_HEADER,
      versionSent: pv !== undefined,
      modern,
      method: '',
      userId: 'anonymous',
      authenticated: false,
      id: null,
      hasId: false,
    };
    req.call = c;
    if (modern) {
      // 2026-07-28: method and name from the headers, before any JSON parse
      const h = readModernHeaders(headers);
      if (typeof h === 'string')
        return this.protocolError(req, 'header_mismatch', rpcError(scanId(req.body), HEADER_MISMATCH, h, 400));
      c.method = h.method;
      c.name = h.method === 'tools/call' ? h.name : undefined;
      c.taskId = h.method.startsWith('tasks/') ? h.name : undefined;
      // "If the server does not implement the requested RPC method, it MUST respond with 404 Not
      // Found and a JSON-RPC error with code -32601" (notifications pass: they are answered 202)
      if (!MODERN_METHODS.has(c.method) && !c.method.startsWith('notifications/')) {
        // unless the body names another method: then the headers disagree with it (mcp-unknown.ts)
        const mismatch = unknownNameMismatch(req.body, this.d.jsonDepthLimit ?? 64, c.method);
        if (mismatch) return mismatch;
        return rpcError(scanId(req.body), METHOD_NOT_FOUND, `Method not found: ${c.method.slice(0, 64)}`, 404);
      }
    }

    const denied = this.authenticate(c);
    if (denied === undefined) return this.authorized(c);
    return denied instanceof Promise ? denied.then((d) => d ?? this.authorized(c)) : denied;
  }

  /** The caller is known: the method and tool (2025: from the parsed body), tool scoping, then the limits. */
  private authorized(c: Call): GatewayResponse | Promise<GatewayResponse> {
    const { req, view } = c;
    const sub = view.sub;
    if (!c.modern) {
      const bad = this.parse(c);
      if (bad) return bad;
      if (typeof c.msg.method !== 'string') {
        // a response or error object sent by the client (answers to server requests): accepted
        if (c.hasId && ('result' in c.msg || 'error' in c.msg)) return { status: 202, headers: {} };
        return rpcError(c.id, INVALID_REQUEST, 'Invalid Request: method must be a string', 400);
      }
      // a request with 2026-07-28 `_meta` but no header: "A required standard header
      // (MCP-Protocol-Version, Mcp-Method, Mcp-Name) is missing" is a HeaderMismatch, not 2025-03-26
      if (!c.versionSent && typeof c.msg.params?._meta?.[META_PROTOCOL_VERSION] === 'string') {
        return rpcError(
          c.id,
          HEADER_MISMATCH,
          'Header mismatch: the MCP-Protocol-Version header is required with params._meta["io.modelcontextprotocol/protocolVersion"]',
          400,
        );
      }
      c.method = c.msg.method;
      const name = c.method === 'tools/call' ? c.msg.params?.name : undefined;
      c.name = typeof name === 'string' ? name : undefined;
    }

    // tool scoping: by the Mcp-Name header (2026-07-28) or the parsed body
    if (c.method === 'tools/call' && c.name !== undefined) {
      c.tool = view.tools.get(c.name);
      if (!c.tool) {
        // 2026-07-28: a body naming another tool is a HeaderMismatch first (mcp-unknown.ts)
        const mismatch = c.modern
          ? unknownNameMismatch(req.body, this.d.jsonDepthLimit ?? 64, c.method, c.name)
          : undefined;
        if (mismatch) return mismatch;
        // the same answer either way (the subscription's tools/list does not show the other tools)
        return this.refusals.refuse(
          {
            req,
            sub,
            user: c.userId,
            method: c.method,
            tool: c.name,
            reason: this.toolMetrics.has(c.name) ? 'tool_not_allowed' : 'unknown_tool',
            detail: '',
          },
          rpcError(c.modern ? scanId(req.body) : c.id, INVALID_PARAMS, `Unknown tool: ${c.name}`),
        );
      }
      if (c.tool.security === 'bearer' && !c.authenticated) {
        return this.refusals.refuse(
          { req, sub, user: c.userId, method: c.method, tool: c.tool.name, reason: 'token_required', detail: 'tool' },
          problem(
            401,
            'token_required',
            `Tool '${c.tool.name}' needs the signed-in user: send Authorization: Bearer <token>`,
            req.correlationId,
            this.challenge(req, undefined, undefined, c.tool.scopes),
          ),
        );
      }
      // RFC 6750 §3.1: a token without a scope the tool requires is 403 insufficient_scope, naming
      // the scopes (MCP authorization "Scope Challenge Handling": the client may step up)
      if (c.tool.scopes.length && !c.tool.scopes.every((sc) => c.scopes?.has(sc))) {
        const description = `tool '${c.tool.name}' needs the scopes: ${c.tool.scopes.join(' ')}`;
        return this.refusals.refuse(
          { req, sub, user: c.userId, method: c.method, tool: c.tool.name, reason: 'insufficient_scope', detail: '' },
          problem(
            403,
            'insufficient_scope',
            `The bearer token lacks a scope this tool needs: ${description}`,
            req.correlationId,
            this.challenge(req, 'insufficient_scope', description, c.tool.scopes),
          ),
        );
      }
    }

    // limits: the per-user or per-IP policy on every request, the subscription quota on tool calls
    const rl = this.d.settings.rateLimits;
    const policy: LimitCheck = c.authenticated
      ? { key: `user:${c.userId}`, limit: rl.user }
      : { key: this.ipKey(req), limit: rl.anonymous };
    const checks: LimitCheck[] = !c.tool
      ? [policy]
      : [
          policy,
          c.tool.security === 'bearer'
            ? { key: view.userKeyPrefix + c.userId, limit: view.userQuota }
            : view.publicCheck,
        ];
    const limit = this.d.limiter.hit(checks, this.windowMs);
    return limit instanceof Promise ? limit.then((l) => this.counted(c, checks, l)) : this.counted(c, checks, limit);
  }

  /** Over a limit: 429; else the method runs, and its answer carries the RateLimit-* headers. */
  private counted(c: Call, checks: LimitCheck[], limit: LimitResult): GatewayResponse | Promise<GatewayResponse> {
    if (!limit.allowed) {
      const sub = c.view.sub;
      // which counter refused: the policy (first check) or the subscription quota (second)
      const which: LimitName =
        limit.key !== undefined && checks.length > 1 && limit.key === checks[1].key
          ? c.tool!.security === 'bearer'
            ? 'subscription_user'
            : 'subscription_public'
          : c.authenticated
            ? 'user'
            : 'anonymous_ip';
      return this.refused(limit, { req: c.req, sub, user: c.userId, method: c.method, tool: c.name }, which);
    }
    c.limit = limit;
    const out = c.modern
      ? (this.parse(c) ?? this.checkModern(c) ?? this.dispatch(c))
      : (this.checkSent(c) ?? this.dispatch(c));
    // a tool call puts them on its answer itself (no promise more for it)
    return out instanceof Promise ? out : withRateHeaders(out, limit);
  }

  /** Method and tool of a refusal before the body is read: the 2026-07-28 headers, else a peek (refusals.ts). */
  private named(req: GatewayRequest): { method?: string; tool?: string } {
    const pv = header(req.headers, 'mcp-protocol-version');
    if (pv === undefined || !MODERN_VERSIONS.includes(pv)) return {};
    const h = readModernHeaders(req.headers);
    return typeof h === 'string' ? {} : { method: h.method, tool: h.method === 'tools/call' ? h.name : undefined };
  }

  /**
   * The user: a bearer token is verified whenever present; without one the caller is anonymous.
   * A token not verified before costs a signature check, so it is paid for first from the client
   * IP's budget (the anonymous one): a bad token keeps that unit, a valid one gets it back. Once
   * the IP's budget is spent, unknown tokens get 429 without any signature check.
   */
  private authenticate(c: Call): GatewayResponse | undefined | Promise<GatewayResponse | undefined> {
    const { req } = c;
    const auth = header(req.headers, 'authorization');
    if (auth !== undefined) {
      // a token verified before is found by its exact string without parsing the header further
      const candidate = bearerToken(auth);
      const known = candidate !== undefined ? this.d.verifier.cached(candidate) : undefined;
      if (known) {
        c.req.token = known;
        c.userId = known.sub;
        c.scopes = known.scopes;
        c.authenticated = true;
        return undefined;
      }
      return this.verify(c, auth);
    }
    if (this.d.settings.requireToken) {
      return this.refusals.refuse(
        { req, sub: c.view.sub, user: c.userId, ...this.namedOf(c), reason: 'token_required', detail: 'all_requests' },
        problem(
          401,
          'token_required',
          'A bearer token is required: send Authorization: Bearer <token>',
          req.correlationId,
          this.challenge(req),
        ),
      );
    }
    return undefined;
  }

  /** A token not in the verified-token cache: the IP's budget first, then the signature check. */
  private async verify(c: Call, auth: string): Promise<GatewayResponse | undefined> {
    const { req } = c;
    const sub = c.view.sub;
    const named = this.namedOf(c);
    const m = BEARER.exec(auth);
    const ipKey = this.ipKey(req);
    let pre = this.d.limiter.hit([{ key: ipKey, limit: this.d.settings.rateLimits.anonymous }], this.windowMs);
    if (pre instanceof Promise) pre = await pre;
    if (!pre.allowed) return this.refused(pre, { req, sub, ...named }, 'anonymous_ip');
    if (!m)
      return this.invalidToken(
        { req, sub, ...named, reason: 'invalid_token', detail: 'not_bearer' },
        'the Authorization header is not `Bearer <token>`',
        rateHeaders(pre),
        'invalid_request',
      );
    try {
      const token = await this.d.verifier.verify(m[1]);
      c.req.token = token;
      c.userId = token.sub;
      c.scopes = token.scopes;
      c.authenticated = true;
    } catch (e) {
      if (e instanceof TokenError)
        return this.invalidToken(
          { req, sub, ...named, reason: 'invalid_token', detail: e.check },
          e.message,
          rateHeaders(pre),
        );
      throw e;
    }
    if (pre.ticket !== undefined) {
      const back = this.d.limiter.release([ipKey], pre.ticket);
      if (back instanceof Promise) await back;
    }
    return undefined;
  }

  /** Method and tool of a refusal during authentication: known from the headers in 2026-07-28 only. */
  /** What a refusal of a call to this tool names (its reason and detail added by the caller). */
  private refusedCall(c: Call, tool: Tool) {
    return { req: c.req, sub: c.view.sub, user: c.userId, method: c.method, tool: tool.name };
  }

  private namedOf(c: Call): { method?: string; tool?: string } {
    return c.modern ? { method: c.method, tool: c.name } : {};
  }

  /** Parses the body into c.msg and checks the JSON-RPC 2.0 shape; an answer when it is not one. */
  private parse(c: Call): GatewayResponse | undefined {
    const body = c.req.body;
    const depth = this.d.jsonDepthLimit ?? 64;
    if (jsonDeeperThan(body, depth))
      return this.protocolError(
        c.req,
        'invalid_request',
        rpcError(
          null,
          INVALID_REQUEST,
          `Invalid Request: the body nests arrays and objects deeper than the limit of ${depth} levels`,
          400,
        ),
      );
    let msg: any;
    try {
      msg = JSON.parse(body);
    } catch {
      return this.protocolError(
        c.req,
        'parse_error',
        rpcError(null, PARSE_ERROR, 'Parse error: the body is not valid JSON', 400),
      );
    }
    if (Array.isArray(msg))
      return this.protocolError(
        c.req,
        'invalid_request',
        rpcError(null, INVALID_REQUEST, 'Invalid Request: JSON-RPC batches are not supported', 400),
      );
    if (!msg || typeof msg !== 'object')
      return this.protocolError(
        c.req,
        'invalid_request',
        rpcError(null, INVALID_REQUEST, 'Invalid Request: expected a JSON-RPC 2.0 object', 400),
      );
    c.msg = msg;
    c.hasId = 'id' in msg;
    c.id = isId(msg.id) ? msg.id : null;
    if (msg.jsonrpc !== '2.0')
      return this.protocolError(
        c.req,
        'invalid_request',
        rpcError(c.id, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"', 400),
      );
    if (c.hasId && !isId(msg.id))
      return this.protocolError(
        c.req,
        'invalid_request',
        rpcError(null, INVALID_REQUEST, 'Invalid Request: id must be a string or a number', 400),
      );
    if (
      msg.params !== undefined &&
      (msg.params === null || typeof msg.params !== 'object' || Array.isArray(msg.params))
    ) {
      return c.hasId
        ? rpcError(c.id, INVALID_PARAMS, 'Invalid params: params must be an object', c.modern ? 400 : 200)
        : { status: 202, headers: {} };
    }
    return undefined;
  }

  /**
   * 2026-07-28 checks of the parsed body: "Servers that process the request body MUST reject
   * requests where the values specified in the headers do not match the corresponding values in
   * the request body" (400, -32020), and the required `_meta` fields (400, -32602).
   */
  private checkModern(c: Call): GatewayResponse | undefined {
    const { msg, id } = c;
    if (typeof msg.method !== 'string')
      return rpcError(
        id,
        INVALID_REQUEST,
        'Invalid Request: method must be a string (a client sends no responses)',
        400,
      );
    if (msg.method !== c.method)
      return rpcError(
        id,
        HEADER_MISMATCH,
        "Header mismatch: the Mcp-Method header does not match the body's method",
        400,
      );
    const named = c.method === 'tools/call' ? c.name : c.taskId;
    if (named !== undefined && msg.params?.[nameField(c.method)] !== named)
      return rpcError(
        id,
        HEADER_MISMATCH,
        `Header mismatch: the Mcp-Name header does not match the body's params.${nameField(c.method)}`,
        400,
      );
    if (!c.hasId) return undefined; // a notification: 202 (no header rules for notifications in this revision)
    const meta = msg.params?._meta;
    const version = meta?.[META_PROTOCOL_VERSION];
    const caps = meta?.[META_CLIENT_CAPABILITIES];
    // "A request missing any required field is malformed; the server MUST reject it with JSON-RPC
    // error code -32602 (Invalid params). On HTTP, the response status MUST be 400 Bad Request."
    if (typeof version !== 'string')
      return rpcError(id, INVALID_PARAMS, `Invalid params: params._meta["${META_PROTOCOL_VERSION}"] is required`, 400);
    if (caps === null || typeof caps !== 'object' || Array.isArray(caps))
      return rpcError(
        id,
        INVALID_PARAMS,
        `Invalid params: params._meta["${META_CLIENT_CAPABILITIES}"] is required (an object)`,
        400,
      );
    if (version !== c.version)
      return rpcError(
        id,
        HEADER_MISMATCH,
        `Header mismatch: the MCP-Protocol-Version header does not match params._meta["${META_PROTOCOL_VERSION}"]`,
        400,
      );
    if (c.tool?.paramHeaders.length) {
      const args = msg.params.arguments;
      const why =
        args !== null && typeof args === 'object' && !Array.isArray(args)
          ? paramHeaderMismatch(c.tool.paramHeaders, args, c.req.headers)
          : undefined;
      if (why) return rpcError(id, HEADER_MISMATCH, why, 400);
    }
    return undefined;
  }

  /**
   * Before 2026-07-28: Mcp-Method, Mcp-Name and Mcp-Param-* are not required, but those sent must
   * match the body as in 2026-07-28 (400, -32020): a proxy in front may route on them.
   */
  private checkSent(c: Call): GatewayResponse | undefined {
    const why = sentHeaderMismatch(c.req.headers, c.msg, c.tool?.paramHeaders);
    return why ? rpcError(c.id, HEADER_MISMATCH, why, 400) : undefined;
  }

  private dispatch(c: Call): GatewayResponse | Promise<GatewayResponse> {
    if (!c.hasId) return { status: 202, headers: {} }; // notifications: notifications/initialized, cancelled, ...
    const { msg, id, view } = c;
    switch (c.modern ? `2026:${c.method}` : c.method) {
      case 'initialize': {
        const asked = msg.params?.protocolVersion;
        if (typeof asked !== 'string')
          return rpcError(id, INVALID_PARAMS, 'Invalid params: protocolVersion is required');
        // initialize negotiates a legacy revision; 2026-07-28 has no handshake
        const version = LEGACY_VERSIONS.includes(asked) ? asked : LATEST_LEGACY_VERSION;
        // a client that takes URL elicitation gets a session id saying so (client-session.ts)
        const session = sessionFor(version, msg.params?.capabilities);
        return rpcResult(
          id,
          this.initializeResult(version),
          session ? { 'content-type': 'application/json', 'mcp-session-id': session } : undefined,
        );
      }
      case 'ping':
        return rpcResult(id, '{}');
      case '2026:server/discover':
        return rpcResult(id, this.discoverResult);
      case 'tools/list':
      case '2026:tools/list': {
        // only the tools this caller may call: a tool needing scopes the token lacks is not shown
        const list = view.listFor(c.scopes);
        const pages = c.modern ? list.modernPages : list.pages;
        const cursor = msg.params?.cursor;
        let page = 0;
        if (cursor !== undefined) {
          const m =
            typeof cursor === 'string'
              ? /^page:(\d{1,6})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
              : null;
          page = m ? Number(m[1]) : -1;
          if (page < 1 || page >= pages.length) return rpcError(id, INVALID_PARAMS, 'Invalid params: unknown cursor');
        }
        return rpcResult(id, c.modern ? pages[page] + this.modernTail : pages[page]);
      }
      case 'tools/call':
      case '2026:tools/call': {
        if (c.name === undefined) {
          this.unknownTool.invalid.inc();
          return rpcError(id, INVALID_PARAMS, 'Invalid params: name is required');
        }
        const tool = c.tool!;
        const args = msg.params.arguments;
        if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
          this.toolMetrics.get(tool.name)!.invalid.inc();
          return rpcError(id, INVALID_PARAMS, 'Invalid params: arguments must be an object');
        }
        return tool.confirm ? this.confirmed(c, tool, args ?? {}) : this.callTool(c, tool, args ?? {});
      }
      case '2026:tasks/get':
      case '2026:tasks/update':
      case '2026:tasks/cancel':
        return this.taskRequest(c);
      default:
        // 2026-07-28: 404 (a method with an id under a notifications/ name reaches here)
        return rpcError(id, METHOD_NOT_FOUND, `Method not found: ${c.method}`, c.modern ? 404 : 200);
    }
  }

  private ipKey(req: GatewayRequest): string {
    // an IPv6 client by its network (gateway.rateLimits.ipv6Prefix): rotating addresses gains nothing
    return `ip:${this.ip.limitKey(req.remoteAddress, req.headers['x-forwarded-for'])}`;
  }

  /**
   * 429 over a limit (Retry-After: until that counter has room again); 503 when the store is down and onError
   * is deny.
   */
  private refused(limit: LimitResult, who: Omit<Refused, 'reason' | 'detail'>, which: LimitName): GatewayResponse {
    const correlationId = who.req.correlationId;
    const retry = String(Math.max(1, Math.ceil(limit.resetMs / 1000)));
    if (limit.unavailable) {
      return this.refusals.refuse(
        { ...who, reason: 'rate_limit_unavailable', detail: '' },
        problem(
          503,
          'rate_limit_unavailable',
          'The rate limit store is unavailable and this gateway refuses requests it cannot count (gateway.redis.onError: deny); retry later',
          correlationId,
          { 'retry-after': retry },
        ),
      );
    }
    return this.refusals.refuse(
      { ...who, reason: 'rate_limited', detail: which },
      problem(
        429,
        'rate_limited',
        `Too many requests: the limit is ${limit.limit} per ${this.d.settings.rateLimits.windowSeconds} s; retry after ${retry} s`,
        correlationId,
        { ...rateHeaders(limit), 'retry-after': retry },
      ),
    );
  }

  /**
   * 401 for a token sent and refused: `invalid_token`, or `invalid_request` when it is no bearer token (RFC
   * 6750 §3.1).
   */
  private invalidToken(
    why: Refused,
    description: string,
    extra: Record<string, string>,
    error: BearerError = 'invalid_token',
  ): GatewayResponse {
    return this.refusals.refuse(
      why,
      problem(401, 'invalid_token', `The bearer token was refused: ${description}`, why.req.correlationId, {
        ...extra,
        ...this.challenge(why.req, error, description),
      }),
    );
  }

  /** The WWW-Authenticate header of a 401 or 403 (oauth.ts): where the protected resource metadata is. */
  private challenge(
    req: GatewayRequest,
    error?: BearerError,
    description?: string,
    scopes?: string[],
  ): Record<string, string> {
    return {
      'www-authenticate': this.resource.challenge(req.headers, req.remoteAddress, error, description, scopes),
    };
  }

  /** GET of the protected resource metadata (RFC 9728), root and path-suffixed form alike. */
  resourceMetadata(req: Omit<GatewayRequest, 'body'>): GatewayResponse {
    const resource = this.resource.resource(req.headers, req.remoteAddress);
    if (!resource) {
      return problem(
        404,
        'resource_unknown',
        'The resource identifier cannot be told from this request: set gateway.oauth.resource to the public URL of /mcp',
        req.correlationId,
      );
    }
    // configured: the same for everyone; derived from the request: not for shared caches
    const cache = this.d.settings.oauth.resource ? 'public, max-age=300' : 'no-store';
    return {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': cache },
      body: JSON.stringify(this.resource.metadata(resource)),
    };
  }

  /**
   * A `confirm: required` tool: the route runs only on a retry carrying the user's confirmation of
   * exactly these arguments (confirmation.ts). 2026-07-28: the first call answers input_required
   * with the elicitation; earlier revisions (no MRTR on a stateless server) and clients without
   * form elicitation get a tool error saying how to confirm. Every decision is audited.
   */
  private async confirmed(c: Call, tool: Tool, args: Record<string, unknown>): Promise<GatewayResponse> {
    const subscription = c.view.sub.name;
    const who = { user: c.userId, subscription };
    const digest = argsDigest(args);
    const audit = (outcome: ConfirmOutcome, detail?: string) =>
      this.audit.record({
        kind: 'confirmation',
        outcome,
        tool: tool.name,
        user: c.userId,
        subscription,
        argsDigest: digest,
        correlationId: c.req.correlationId,
        ...(detail ? { detail } : {}),
      });
    if (tool.stepUp !== undefined) return this.steppedUp(c, tool, args, audit);
    const params = c.msg.params;
    if (!c.modern && declaredUrlElicitation(c.version, header(c.req.headers, 'mcp-session-id')))
      return this.confirmedByUrl(c, tool, args, audit);
    if (!c.modern || !canElicitForm(params._meta?.[META_CLIENT_CAPABILITIES])) {
      const how = c.modern
        ? 'declare the elicitation capability (form) in params._meta["io.modelcontextprotocol/clientCapabilities"]'
        : `initialize with MCP-Protocol-Version 2025-11-25 declaring the elicitation capability with URL mode (capabilities.elicitation.url), or call with MCP-Protocol-Version: 2026-07-28 from a client that declares the elicitation capability (this request speaks ${c.version}${c.version === '2025-11-25' ? ' from a client that did not declare URL elicitation at initialize' : ', which has no way to ask the user'})`;
      audit('refused', 'unsupported');
      return this.refuseConfirmation(
        c,
        tool,
        'unsupported',
        `Tool '${tool.name}' moves money and needs the user's confirmation of these exact arguments first; nothing was done. To confirm: ${how}. See docs/gateway.md "Confirmation".`,
      );
    }
    if (params.requestState === undefined) {
      audit('asked');
      return this.inputRequired(c, this.confirmations.ask(tool, who, args));
    }
    let checked;
    try {
      checked = await this.confirmations.check(tool, who, args, params.requestState, params.inputResponses);
    } catch (e) {
      if (!(e instanceof StoreUnavailableError)) throw e;
      audit('refused', 'store unavailable');
      return this.refuseConfirmation(
        c,
        tool,
        'unavailable',
        'The confirmation cannot be checked now (its single-use store is unavailable); nothing was done. Retry later',
      );
    }
    if (checked.ok) {
      audit('given');
      return this.callTool(c, tool, args);
    }
    if (checked.ask) {
      audit('asked', 'answer missing');
      return this.inputRequired(c, this.confirmations.ask(tool, who, args));
    }
    audit(checked.outcome);
    if (checked.protocol)
      return this.refusals.refuse(
        { ...this.refusedCall(c, tool), reason: 'confirmation', detail: checked.outcome },
        withRateHeaders(rpcError(c.id, INVALID_PARAMS, checked.message), c.limit!),
      );
    return this.refuseConfirmation(c, tool, checked.outcome, checked.message);
  }

  /**
   * A `step-up` tool: the confirmation is the user's recent sign-in, the token's `auth_time` at most
   * `step-up` seconds old (any revision: no round trip); otherwise 401 with an RFC 9470 challenge
   * (`insufficient_user_authentication`, `max_age`), and the client signs the user in again.
   */
  private steppedUp(
    c: Call,
    tool: Tool,
    args: Record<string, unknown>,
    audit: (outcome: ConfirmOutcome, detail?: string) => void,
  ): Promise<GatewayResponse> | GatewayResponse {
    const maxAge = tool.stepUp!;
    const authTime = c.req.token?.authTime;
    // a minute of clock skew between the identity provider and this engine is allowed
    if (authTime !== undefined && Date.now() - authTime <= maxAge * 1000 && authTime - Date.now() <= 60_000) {
      audit('given', `step-up: signed in ${Math.max(0, Math.round((Date.now() - authTime) / 1000))} s ago`);
      return this.callTool(c, tool, args);
    }
    const detail = authTime === undefined ? 'no_auth_time' : 'stale';
    const why =
      authTime === undefined
        ? 'the token does not say when the user signed in (no auth_time)'
        : `the user signed in ${Math.round((Date.now() - authTime) / 1000)} s ago`;
    const description = `tool '${tool.name}' is confirmed by a sign-in at most ${maxAge} s old; ${why}`;
    audit('refused', `step-up: ${detail}`);
    return this.refusals.refuse(
      { ...this.refusedCall(c, tool), reason: 'insufficient_user_authentication', detail },
      problem(
        401,
        'insufficient_user_authentication',
        `${description}: sign the user in again (max_age=${maxAge}) and retry; nothing was done`,
        c.req.correlationId,
        {
          'www-authenticate': this.resource.challenge(
            c.req.headers,
            c.req.remoteAddress,
            'insufficient_user_authentication',
            description,
            tool.scopes,
            maxAge,
          ),
        },
      ),
    );
  }

  /**
   * 2025-11-25 with URL elicitation: -32042 naming the gateway's confirmation page until the person
   * confirmed these arguments there; the retried call then runs once (url-confirmation.ts).
   */
  private async confirmedByUrl(
    c: Call,
    tool: Tool,
    args: Record<string, unknown>,
    audit: (outcome: ConfirmOutcome, detail?: string) => void,
  ): Promise<GatewayResponse> {
    let r;
    try {
      r = await this.urlConfirmations.onCall(tool, { user: c.userId, subscription: c.view.sub.name }, args);
    } catch (e) {
      if (!(e instanceof StoreUnavailableError)) throw e;
      audit('refused', 'store unavailable');
      return this.refuseConfirmation(
        c,
        tool,
        'unavailable',
        'The confirmation cannot be checked now (its store is unavailable); nothing was done. Retry later',
      );
    }
    if (r.kind === 'run') return this.callTool(c, tool, args);
    if (r.kind === 'refused')
      // audited when the person refused on the page
      return this.refuseConfirmation(
        c,
        tool,
        'refused',
        'The user refused this payment on the confirmation page; nothing was done',
      );
    if (r.kind === 'expired') {
      audit('expired', 'url');
      return this.refuseConfirmation(
        c,
        tool,
        'expired',
        `The confirmation expired (${this.d.settings.confirmation.ttlSeconds} s to confirm, then as long to call again); nothing was done. Call again to ask the user anew`,
      );
    }
    if (r.fresh) audit('asked', 'url');
    const base = this.resource.resource(c.req.headers, c.req.remoteAddress);
    const url = `${base ?? this.d.path ?? '/mcp'}${CONFIRMATIONS_PATH}${r.id}`;
    return withRateHeaders(
      rpcError(
        c.id,
        URL_ELICITATION_REQUIRED,
        `Tool '${tool.name}' needs the user's confirmation of these exact arguments: the user opens the URL, signs in and confirms; then call the tool again with the same arguments. Nothing was done yet.`,
        200,
        { elicitations: [{ mode: 'url', elicitationId: r.id, url, message: r.message }] },
      ),
      c.limit!,
    );
  }

  /**
   * A protocol error answered outside the refusals (unsupported version, media type, Accept, broken
   * headers, a body that is no JSON-RPC request): recorded in the audit trail as a refusal naming
   * the check, so the trail holds every request the gateway turned away.
   */
  private protocolError(req: GatewayRequest, check: string, out: GatewayResponse): GatewayResponse {
    this.audit.record({
      kind: 'refusal',
      check,
      outcome: 'refused',
      detail: String(out.status),
      keyId: req.keyId,
      issuer: req.token?.iss,
      jti: req.token?.jti,
      correlationId: req.correlationId,
      clientIp: this.ip.of(req.remoteAddress, req.headers['x-forwarded-for']),
    });
    return out;
  }

  /** A 2026-07-28 InputRequiredResult with the given members. */
  private inputRequired(c: Call, members: string): GatewayResponse {
    return rpcResult(c.id, `{"resultType":"input_required",${members}${this.modernTail}`, jsonRateHeaders(c.limit!));
  }

  /** A confirmation refused: a tool error (isError) the agent can act on, counted and logged. */
  private refuseConfirmation(
    c: Call,
    tool: Tool,
    detail: 'unsupported' | 'refused' | 'expired' | 'replayed' | 'mismatched' | 'unavailable',
    message: string,
  ): GatewayResponse {
    const p = JSON.stringify({
      type: 'about:blank',
      title: detail === 'unsupported' ? 'Confirmation required' : 'Confirmation refused',
      status: 403,
      detail: message,
      correlationId: c.req.correlationId,
    });
    const structured = !WITHOUT_STRUCTURED_CONTENT.has(c.version) && (c.modern || !tool.hasOutputSchema);
    const result = `"content":[{"type":"text","text":${JSON.stringify(p)}}]${structured ? `,"structuredContent":${p}` : ''},"isError":true`;
    return this.refusals.refuse(
      { ...this.refusedCall(c, tool), reason: 'confirmation', detail },
      rpcResult(
        c.id,
        c.modern ? `{"resultType":"complete",${result}${this.modernTail}` : `{${result}}`,
        jsonRateHeaders(c.limit!),
      ),
    );
  }

  private callTool(c: Call, tool: Tool, args: Record<string, unknown>): Promise<GatewayResponse> {
    // a long call as a task, for a client that declared the extension, while this engine has room
    if (c.modern && tool.task && declaresTasks(c.msg.params?._meta?.[META_CLIENT_CAPABILITIES]) && this.tasks.hasRoom)
      return this.taskCall(c, tool, args);
    return this.runAudited(c, tool, args, (result) =>
      rpcResult(
        c.id,
        c.modern ? `{"resultType":"complete",${result}${this.modernTail}` : `{${result}}`,
        jsonRateHeaders(c.limit!),
      ),
    );
  }

  /** The CreateTaskResult at once; the route runs on, and tasks/get tells its result (tasks.ts). */
  private async taskCall(c: Call, tool: Tool, args: Record<string, unknown>): Promise<GatewayResponse> {
    const members = await this.tasks.start(taskOwner(c), `Running ${tool.name}`, () =>
      this.runAudited(c, tool, args, (result) => `{"resultType":"complete",${result}}`),
    );
    return rpcResult(c.id, `{"resultType":"task",${members}${this.modernTail}`, jsonRateHeaders(c.limit!));
  }

  /** tasks/get, tasks/update, tasks/cancel of the extension: only the task's own caller finds it. */
  private async taskRequest(c: Call): Promise<GatewayResponse> {
    const headers = jsonRateHeaders(c.limit!);
    if (!declaresTasks(c.msg.params?._meta?.[META_CLIENT_CAPABILITIES]))
      return rpcError(c.id, MISSING_CLIENT_CAPABILITY, 'Missing required client capability', 400, {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    const taskId = c.msg.params?.taskId;
    const notFound = () => rpcError(c.id, INVALID_PARAMS, 'Failed to retrieve task: Task not found');
    if (c.method === 'tasks/get') {
      const task = await this.tasks.get(taskId, taskOwner(c));
      if (task === undefined) return notFound();
      return rpcResult(c.id, `{"resultType":"complete",${task}${this.modernTail}`, headers);
    }
    // update: this gateway's tasks never ask for input; cancel: cooperative, acknowledged (tasks.ts)
    if (!(await this.tasks.known(taskId, taskOwner(c)))) return notFound();
    return rpcResult(c.id, `{"resultType":"complete"${this.modernTail}`, headers);
  }

  /** Runs the tool and records the call in the audit trail; `wrap` makes the answer of its result. */
  private runAudited<T>(c: Call, tool: Tool, args: Record<string, unknown>, wrap: (result: string) => T): Promise<T> {
    const audit = this.d.audit;
    // the digest before the call: the route may not change what the caller sent, the record shows what was sent
    const digest = audit && audit !== NO_AUDIT ? argsDigest(args) : undefined;
    return runTool(
      this.toolDeps,
      this.toolMetrics.get(tool.name)!,
      tool,
      args,
      { id: c.userId, authenticated: c.authenticated },
      c.req.correlationId,
      // the problem as structuredContent too where the revision has structuredContent and, before
      // 2026-07-28 (whose served output schema admits the problem), only for tools without an
      // output schema: "Servers MUST provide structured results that conform to this schema"
      !WITHOUT_STRUCTURED_CONTENT.has(c.version) && (c.modern || !tool.hasOutputSchema),
      (result, end) => {
        if (end.isError) c.req.op?.toolFailed();
        audit?.record({
          kind: 'call',
          tool: tool.name,
          subscription: c.view.sub.name,
          keyId: c.req.keyId,
          user: c.userId,
          issuer: c.req.token?.iss,
          jti: c.req.token?.jti,
          argsDigest: digest,
          outcome: end.isError ? 'error' : 'ok',
          code: end.code,
          correlationId: c.req.correlationId,
          clientIp: this.ip.of(c.req.remoteAddress, c.req.headers['x-forwarded-for']),
        });
        return wrap(result);
      },
      // the tool call's span (mcp-telemetry.ts) is the parent of the route's
      c.req.op?.toolCall(c, tool.name),
    );
  }
}

/** Whose a task is: the subscription and the user that started it. */
const taskOwner = (c: Call): string => `${c.view.sub.name}|${c.userId}`;

/** RateLimit-Reset: whole seconds until the counter that decided the headers has room again. */
const resetSeconds = (r: LimitResult): string => String(Math.max(0, Math.ceil(r.resetMs / 1000)));

function rateHeaders(r: LimitResult): Record<string, string> {
  return {
    'ratelimit-limit': String(r.limit),
    'ratelimit-remaining': String(r.remaining),
    'ratelimit-reset': resetSeconds(r),
  };
}

/** The answer with the RateLimit-* headers of the counter that decided them. */
function withRateHeaders(out: GatewayResponse, r: LimitResult): GatewayResponse {
  Object.assign(out.headers, rateHeaders(r));
  return out;
}

/** The headers of a JSON result with its RateLimit-* headers, made as one object (a tool call's answer). */
function jsonRateHeaders(r: LimitResult): Record<string, string> {
  return {
    'content-type': 'application/json',
    'ratelimit-limit': String(r.limit),
    'ratelimit-remaining': String(r.remaining),
    'ratelimit-reset': resetSeconds(r),
  };
}
