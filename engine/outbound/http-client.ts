// Outbound HTTP on undici: pooled keep-alive dispatchers shared by every step with the same
// settings, timeouts on connect, response headers, body and the whole request, and errors
// classified so that retry policies know whether the vendor may have seen the request.

import type { Dispatcher } from 'undici';
import { Agent, EnvHttpProxyAgent } from './undici-dispatchers.ts';
import { PlatformError } from '../core/errors.ts';
import { maskText } from '../observability/mask.ts';
import { ClientGuards } from './client-guard.ts';

/**
 * Timeouts of a vendor call, in the meaning of the connector properties
 * (`http.client.*.timeout`, Apache HttpClient style):
 * - connect: TCP/TLS connect;
 * - request: leasing a pooled connection and sending the request;
 * - response: from the start of the call until the response headers arrive;
 * - socket: idle time between chunks of the response body.
 * The call as a whole is bounded by request + response.
 */
export interface Timeouts {
  connect: number;
  request: number;
  response: number;
  socket: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connect: 5000, request: 10000, response: 15000, socket: 10000 };

export interface DispatcherSettings {
  connections: number;
  connectTimeout: number;
  proxy: boolean;
}

/** Dispatchers by settings: steps with equal settings share one pool. */
export class HttpClients {
  private pools = new Map<string, Dispatcher>();

  /**
   * Set by the route test runner to point a target at its stub: called once per to-http call
   * with the target name and the origin it would call; a returned origin replaces it (same path
   * and query). Unset in production, where it costs one property check per call.
   */
  redirect?: (target: string, origin: string) => string | undefined;

  /** The target names of the loaded to-http steps: a route test's stubs must name one of them. */
  readonly targets = new Set<string>();

  /** Circuit breakers, bulkheads and retry budgets of the client profiles (attached by the engine). */
  readonly guards = new ClientGuards();

  get(s: DispatcherSettings): Dispatcher {
    const key = `${s.connections}|${s.connectTimeout}|${s.proxy}`;
    let d = this.pools.get(key);
    if (!d) {
      const common = {
        connections: s.connections,
        connect: { timeout: s.connectTimeout },
        keepAliveTimeout: 30_000,
        pipelining: 1,
      };
      // EnvHttpProxyAgent reads HTTP_PROXY / HTTPS_PROXY / NO_PROXY from the environment.
      d = s.proxy ? new EnvHttpProxyAgent(common) : new Agent(common);
      this.pools.set(key, d);
    }
    return d;
  }

  async close(): Promise<void> {
    const all = [...this.pools.values()];
    this.pools.clear();
    this.guards.close();
    await Promise.allSettled(all.map((d) => d.close()));
  }
}

/** `url` with its origin replaced by what `redirect` answers for this target, or as it is. */
export function redirectUrl(
  url: string,
  target: string,
  redirect: (target: string, origin: string) => string | undefined,
): string {
  const parts = splitUrl(url);
  if (!parts) return url;
  const to = redirect(target, parts.origin);
  return to ? to.replace(/\/+$/, '') + parts.path : url;
}

export interface HttpCall {
  method: Dispatcher.HttpMethod;
  url: string;
  /** `url` already split (origin and path), by a caller that split its template once at load */
  target?: { origin: string; path: string };
  headers: Record<string, string>;
  body?: string | Buffer;
  timeouts: Timeouts;
  dispatcher: Dispatcher;
  signal?: AbortSignal;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Performs one call. Answers of any status are returned; no answer throws a PlatformError.
 *
 * The call goes straight to the dispatcher with a small handler that collects the body: undici's
 * `request()` API wraps every answer in a Readable stream, which costs more than the rest of the
 * call. The response and whole-request deadlines are kept here with precise timers (undici's own
 * timers tick about every 0.5 s) and without an AbortSignal, which also costs undici more than the
 * rest of a call: on a deadline the caller gets its error at once and the request is aborted,
 * while undici's headers and body timeouts (set just above ours) still close the socket of a
 * vendor that never answers.
 */
export function httpCall(c: HttpCall): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const target = c.target ?? splitUrl(c.url);
    if (!target) {
      reject(classify(new Error(`invalid URL ${c.url}`), undefined, c));
      return;
    }
    const h = new CallHandler(c, resolve, reject);
    c.dispatcher.dispatch(
      {
        origin: target.origin,
        path: target.path,
        method: c.method,
        headers: c.headers,
        body: c.body,
        headersTimeout: c.timeouts.response + 1000,
        bodyTimeout: c.timeouts.socket,
      },
      h,
    );
  });
}

/** A vendor answer is held in memory whole: anything bigger is refused rather than exhausting it. */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * A URL in the common form (http(s), a host name or IPv4 address, an optional port, a path and
 * query of URL characters only): split without a URL parser. Anything else (IPv6, user info,
 * characters that need encoding) goes through WHATWG URL, as undici's request() did.
 */
const PLAIN_URL =
  /^(https?):\/\/([A-Za-z0-9.-]+)(?::(\d{1,5}))?(\/[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*)?(\?[A-Za-z0-9\-._~!$&'()*+,;=:@/%?]*)?(#.*)?$/;

export function splitUrl(url: string): { origin: string; path: string } | undefined {
  const m = PLAIN_URL.exec(url);
  if (m) {
    const scheme = m[1].toLowerCase();
    const port = m[3] && m[3] !== (scheme === 'https' ? '443' : '80') ? `:${Number(m[3])}` : '';
    // the origin is also the pool key: one spelling per vendor
    return { origin: `${scheme}://${m[2].toLowerCase()}${port}`, path: (m[4] ?? '/') + (m[5] ?? '') };
  }
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return { origin: u.origin, path: u.pathname + u.search };
  } catch {
    return undefined;
  }
}

/**
 * A vendor answer. Its headers are read only when a step asks (error templates, rate-limit hints):
 * on the common path the raw pairs are kept as undici delivers them, and only the content type
 * is looked up.
 */
class Answer implements HttpResult {
  #raw: Buffer[];
  #parsed?: Record<string, string | string[] | undefined>;

  constructor(
    readonly status: number,
    raw: Buffer[],
    public body: unknown,
  ) {
    this.#raw = raw;
  }

  get headers(): Record<string, string | string[] | undefined> {
    return (this.#parsed ??= parseHeaders(this.#raw));
  }

  // a plain object in logs and test comparisons, as the answer was before its headers went lazy
  toJSON(): HttpResult {
    return { status: this.status, headers: this.headers, body: this.body };
  }
}

/** Raw header pairs to lower-case names; repeated names become arrays. */
function parseHeaders(raw: Buffer[]): Record<string, string | string[] | undefined> {
  const h: Record<string, string | string[] | undefined> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i].toString('latin1').toLowerCase();
    const v = raw[i + 1].toString('latin1');
    // own properties only: a header named like an Object.prototype member stays a header
    const prev = Object.hasOwn(h, k) ? h[k] : undefined;
    const value = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    if (k === '__proto__') Object.defineProperty(h, k, { value, enumerable: true, configurable: true, writable: true });
    else h[k] = value;
  }
  return h;
}

const CONTENT_TYPE = Buffer.from('content-type');

/** Whether any content-type header of the raw pairs mentions json. */
function jsonTyped(raw: Buffer[]): boolean {
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i];
    if (
      k.length === CONTENT_TYPE.length &&
      k.toString('latin1').toLowerCase() === 'content-type' &&
      raw[i + 1].includes('json')
    )
      return true;
  }
  return false;
}

/** undici's handler interface (the one its core calls directly, so nothing is adapted per call). */
class CallHandler implements Dispatcher.DispatchHandler {
  private settled = false;
  private abort?: (err?: Error) => void;
  private status = 0;
  private raw: Buffer[] = [];
  private chunks: Buffer[] = [];
  private size = 0;
  /**
   * One timer per call, for both deadlines: it fires at the response deadline, and if the
   * headers came in time it is set again for what remains of the whole-request deadline. Most
   * calls end before either, so they cost one setTimeout and one clearTimeout.
   */
  private timer: NodeJS.Timeout;
  private onSignal?: () => void;

  constructor(
    private c: HttpCall,
    private resolve: (r: HttpResult) => void,
    private reject: (e: PlatformError) => void,
  ) {
    // the handler is the timer's argument: no closure per call
    this.timer = setTimeout(onDeadline, c.timeouts.response, this);
  }

  /** A deadline passed: the response's (no headers yet), else the whole request's. */
  deadline(): void {
    if (this.status === 0) {
      this.fail(classify(undefined, 'response', this.c));
      return;
    }
    this.timer = setTimeout(() => this.fail(classify(undefined, 'request', this.c)), this.c.timeouts.request);
  }

  private fail(err: PlatformError): void {
    if (this.settled) return;
    this.settle();
    this.reject(err);
    this.abort?.(err);
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
    if (this.onSignal) this.c.signal!.removeEventListener('abort', this.onSignal);
  }

  onConnect(abort: (err?: Error) => void): void {
    // a call whose deadline passed while it waited for a connection: thrown, undici fails just
    // this request (abort() would destroy the pooled connection it was about to use)
    if (this.settled) throw new Error('deadline passed');
    this.abort = abort;
    const signal = this.c.signal;
    if (signal) {
      if (signal.aborted) {
        this.fail(classify(Object.assign(new Error('aborted'), { name: 'AbortError' }), undefined, this.c));
        return;
      }
      this.onSignal = () =>
        this.fail(classify(Object.assign(new Error('aborted'), { name: 'AbortError' }), undefined, this.c));
      signal.addEventListener('abort', this.onSignal, { once: true });
    }
  }

  onHeaders(statusCode: number, raw: Buffer[]): boolean {
    if (statusCode < 200) return true; // 1xx: the answer follows
    this.status = statusCode;
    this.raw = raw;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (this.size > MAX_RESPONSE_BYTES) {
      this.fail(
        new PlatformError({
          kind: 'connection',
          notSent: false,
          detail: `${hostOf(this.c.url)} answered more than ${MAX_RESPONSE_BYTES} bytes; the answer was dropped`,
        }),
      );
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    this.settle();
    const n = this.chunks.length;
    let body: unknown;
    if (n > 0) {
      const text = n === 1 ? this.chunks[0].toString('utf8') : Buffer.concat(this.chunks, this.size).toString('utf8');
      body = text;
      if (text && (text[0] === '{' || text[0] === '[' || jsonTyped(this.raw))) {
        try {
          body = JSON.parse(text);
        } catch {
          /* keep the text */
        }
      } else if (!text) body = undefined;
    }
    this.resolve(new Answer(this.status, this.raw, body));
  }

  onError(err: Error): void {
    this.fail(classify(err, undefined, this.c));
  }
}

function onDeadline(h: CallHandler): void {
  h.deadline();
}

function classify(err: any, deadline: 'request' | 'response' | undefined, c: HttpCall): PlatformError {
  if (deadline) {
    const ms = deadline === 'request' ? c.timeouts.request + c.timeouts.response : c.timeouts.response;
    return new PlatformError({
      kind: 'timeout',
      notSent: false,
      detail: `${deadline} timeout calling ${hostOf(c.url)} (${ms} ms)`,
    });
  }
  const code: string = err?.code ?? err?.cause?.code ?? '';
  const target = hostOf(c.url);
  const notSent = NOT_SENT.has(code);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    const which =
      code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect' : code === 'UND_ERR_HEADERS_TIMEOUT' ? 'response' : 'socket';
    return new PlatformError({
      kind: 'timeout',
      notSent,
      detail: `${which} timeout calling ${target} (${c.timeouts[which]} ms)`,
      cause: err,
    });
  }
  if (err?.name === 'AbortError')
    return new PlatformError({ kind: 'connection', notSent, detail: `call to ${target} aborted`, cause: err });
  // the low-level error text names hosts and codes, never request content; masked and bounded all the same
  return new PlatformError({
    kind: 'connection',
    notSent,
    detail: `cannot reach ${target}: ${maskText(String(code || err?.message || 'connection failed'))}`,
    cause: err,
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'vendor';
  }
}
