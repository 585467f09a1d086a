// Outbound HTTP on undici: pooled keep-alive dispatchers shared by every step with the same
// settings, timeouts on connect, response headers, body and the whole request, and errors
// classified so that retry policies know whether the vendor may have seen the request.

import { Agent, EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import { PlatformError } from './errors.ts';

export interface Timeouts {
  /** TCP/TLS connect, ms */
  connect: number;
  /** whole request including the body, ms */
  request: number;
  /** until the response headers arrive, ms */
  response: number;
  /** idle time between body chunks, ms */
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

/** Performs one call. Answers of any status are returned; no answer throws a PlatformError. */
export async function httpCall(c: HttpCall): Promise<HttpResult> {
  // undici's own timers tick coarsely (about 0.5 s), so the response and request deadlines are
  // kept here with precise timers; undici's headersTimeout stays as a backstop.
  const ac = new AbortController();
  let which: 'request' | 'response' | undefined;
  const requestTimer = setTimeout(() => { which = 'request'; ac.abort(); }, c.timeouts.request);
  let responseTimer: NodeJS.Timeout | undefined = setTimeout(() => { which = 'response'; ac.abort(); }, c.timeouts.response);
  const signal = c.signal ? AbortSignal.any([ac.signal, c.signal]) : ac.signal;
  try {
    const res = await request(c.url, {
      method: c.method,
      headers: c.headers,
      body: c.body,
      dispatcher: c.dispatcher,
      signal,
      headersTimeout: c.timeouts.response + 1000,
      bodyTimeout: c.timeouts.socket,
    });
    clearTimeout(responseTimer);
    responseTimer = undefined;
    const text = await res.body.text();
    const ct = String(res.headers['content-type'] ?? '');
    let body: unknown = text;
    if (text && (ct.includes('json') || text[0] === '{' || text[0] === '[')) {
      try { body = JSON.parse(text); } catch { /* keep the text */ }
    } else if (!text) body = undefined;
    return { status: res.statusCode, headers: res.headers, body };
  } catch (err: any) {
    throw classify(err, which, c);
  } finally {
    clearTimeout(requestTimer);
    if (responseTimer) clearTimeout(responseTimer);
  }
}

function classify(err: any, deadline: 'request' | 'response' | undefined, c: HttpCall): PlatformError {
  const code: string = err?.code ?? err?.cause?.code ?? '';
  const target = new URL(c.url).host;
  const notSent = NOT_SENT.has(code);
  let e: PlatformError;
  if (deadline || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    const which = deadline ?? (code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect' : code === 'UND_ERR_HEADERS_TIMEOUT' ? 'response' : 'socket');
    e = new PlatformError({ kind: 'timeout', detail: `${which} timeout calling ${target} (${c.timeouts[which]} ms)`, cause: err });
  } else if (err?.name === 'AbortError') {
    e = new PlatformError({ kind: 'connection', detail: `call to ${target} aborted`, cause: err });
  } else {
    e = new PlatformError({ kind: 'connection', detail: `cannot reach ${target}: ${code || err?.message || 'connection failed'}`, cause: err });
  }
  (e as PlatformError & { notSent?: boolean }).notSent = notSent;
  return e;
}
