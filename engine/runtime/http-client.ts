// Outbound HTTP on undici: pooled keep-alive dispatchers shared by every step with the same
// settings, timeouts on connect, response headers, body and the whole request, and errors
// classified so that retry policies know whether the vendor may have seen the request.

import { Agent, EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import { PlatformError } from './errors.ts';

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

  get(s: DispatcherSettings): Dispatcher {
    const key = `${s.connections}|${s.connectTimeout}|${s.proxy}`;
    let d = this.pools.get(key);
    if (!d) {
      const common = { connections: s.connections, connect: { timeout: s.connectTimeout }, keepAliveTimeout: 30_000, pipelining: 1 };
      // EnvHttpProxyAgent reads HTTP_PROXY / HTTPS_PROXY / NO_PROXY from the environment.
      d = s.proxy ? new EnvHttpProxyAgent(common) : new Agent(common);
      this.pools.set(key, d);
    }
    return d;
  }

  async close(): Promise<void> {
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.allSettled(all.map((d) => d.close()));
  }
}

export interface HttpCall {
  method: Dispatcher.HttpMethod;
  url: string;
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

const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Performs one call. Answers of any status are returned; no answer throws a PlatformError.
 *
 * The response and whole-request deadlines are kept here with precise timers (undici's own
 * timers tick about every 0.5 s) and without an AbortSignal, which costs undici more than the
 * rest of a call: on a deadline the caller gets its error at once, while undici's headers and
 * body timeouts (set just above ours) still close the socket of a vendor that never answers.
 */
export function httpCall(c: HttpCall): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: PlatformError) => {
      if (settled) return;
      settled = true;
      clearTimeout(requestTimer);
      clearTimeout(responseTimer);
      reject(err);
    };
    const requestTimer = setTimeout(() => fail(classify(undefined, 'request', c)), c.timeouts.request + c.timeouts.response);
    let responseTimer: NodeJS.Timeout | undefined = setTimeout(() => fail(classify(undefined, 'response', c)), c.timeouts.response);
    request(c.url, {
      method: c.method,
      headers: c.headers,
      body: c.body,
      dispatcher: c.dispatcher,
      signal: c.signal,
      headersTimeout: c.timeouts.response + 1000,
      bodyTimeout: c.timeouts.socket,
    }).then(async (res) => {
      clearTimeout(responseTimer);
      responseTimer = undefined;
      if (settled) { res.body.dump().catch(() => {}); return; }
      const text = await res.body.text();
      if (settled) return;
      settled = true;
      clearTimeout(requestTimer);
      const ct = String(res.headers['content-type'] ?? '');
      let body: unknown = text;
      if (text && (ct.includes('json') || text[0] === '{' || text[0] === '[')) {
        try { body = JSON.parse(text); } catch { /* keep the text */ }
      } else if (!text) body = undefined;
      resolve({ status: res.statusCode, headers: res.headers, body });
    }).catch((err) => fail(classify(err, undefined, c)));
  });
}

function classify(err: any, deadline: 'request' | 'response' | undefined, c: HttpCall): PlatformError {
  if (deadline) {
    const ms = deadline === 'request' ? c.timeouts.request + c.timeouts.response : c.timeouts.response;
    const e = new PlatformError({ kind: 'timeout', detail: `${deadline} timeout calling ${hostOf(c.url)} (${ms} ms)` });
    (e as PlatformError & { notSent?: boolean }).notSent = false;
    return e;
  }
  const code: string = err?.code ?? err?.cause?.code ?? '';
  const target = hostOf(c.url);
  const notSent = NOT_SENT.has(code);
  let e: PlatformError;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    const which = code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect' : code === 'UND_ERR_HEADERS_TIMEOUT' ? 'response' : 'socket';
    e = new PlatformError({ kind: 'timeout', detail: `${which} timeout calling ${target} (${c.timeouts[which]} ms)`, cause: err });
  } else if (err?.name === 'AbortError') {
    e = new PlatformError({ kind: 'connection', detail: `call to ${target} aborted`, cause: err });
  } else {
    e = new PlatformError({ kind: 'connection', detail: `cannot reach ${target}: ${code || err?.message || 'connection failed'}`, cause: err });
  }
  (e as PlatformError & { notSent?: boolean }).notSent = notSent;
  return e;
}

function hostOf(url: string): string {
  try { return new URL(url).host; } catch { return 'vendor'; }
}
