// A tiny HTTP server for vendor simulators: pattern routes, request recording, fault injection.
// Plain node:http with keep-alive, because benchmarks drive the engine against these simulators at
// ~10k req/s; the per-request path does no cloning and no work beyond what the handler needs.

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTROL_PREFIX, handleControl } from './control-api.ts';
import { type ActiveFault, type FaultRule, FaultStore } from './faults.ts';
import { BodyTooLargeError, type HeaderValues, readBody, send, wantsJson } from './http-io.ts';
import { type RecordedRequest, RequestRecorder, type RequestFilter } from './recorder.ts';
import { BadPathError, type Params, Router } from './router.ts';

export type { ActiveFault, FaultRule } from './faults.ts';
export type { RecordedRequest, RequestFilter } from './recorder.ts';

export type SimLog = (msg: string, obj?: object) => void;

export interface SimRequest {
  method: string;
  /** percent-encoded path as received, without the query string */
  path: string;
  /** decoded path parameters */
  params: Params;
  /** query parameters; the last value wins when a name repeats */
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** parsed JSON body, or undefined when empty or not JSON */
  body: unknown;
  rawBody: Buffer;
  /** Date.now() when the request arrived */
  receivedAt: number;
}

export interface SimResponse {
  status: number;
  /** JSON unless a string or Buffer; no body when undefined */
  body?: unknown;
  headers?: HeaderValues;
}

export type SimHandler = (req: SimRequest) => SimResponse | Promise<SimResponse>;

export interface SimServerOptions {
  name: string;
  /** 0 (default) picks an ephemeral port */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
  log?: SimLog;
  /** record requests (default true); turn off for benchmarks */
  record?: boolean;
  /** how many recent requests to keep (default 10,000) */
  maxRecorded?: number;
  /** largest accepted body in bytes (default 10 MiB) */
  maxBodyBytes?: number;
}

export interface SimServer {
  readonly name: string;
  /** base URL without trailing slash; throws before start() */
  readonly url: string;
  route(method: string, pathPattern: string, handler: SimHandler): SimServer;
  start(): Promise<string>;
  close(): Promise<void>;
  requests(filter?: RequestFilter): RecordedRequest[];
  clearRequests(): void;
  /** turn recording on or off at run time */
  setRecording(enabled: boolean): void;
  addFault(rule: FaultRule): ActiveFault;
  removeFault(id: string): boolean;
  clearFaults(): void;
  faults(): ActiveFault[];
}

const noop: SimLog = () => {};

export function createSimServer(opts: SimServerOptions): SimServer {
  const log = opts.log ?? noop;
  const maxBodyBytes = opts.maxBodyBytes ?? 10 * 1024 * 1024;
  const router = new Router<SimHandler>();
  const recorder = new RequestRecorder(opts.maxRecorded ?? 10_000, opts.record ?? true);
  const faultStore = new FaultStore();
  // pending fault delays, resolved early on close() so no request outlives the server
  const delays = new Set<{ timer: NodeJS.Timeout; done: () => void }>();
  let baseUrl: string | undefined;

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      const entry = { timer: setTimeout(() => finish(), ms), done: () => finish() };
      function finish() {
        clearTimeout(entry.timer);
        delays.delete(entry);
        resolve();
      }
      delays.add(entry);
    });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = Date.now();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const qi = url.indexOf('?');
    const path = qi === -1 ? url : url.slice(0, qi);
    const query: Record<string, string> = {};
    if (qi !== -1) for (const [k, v] of new URLSearchParams(url.slice(qi + 1))) query[k] = v;

    let rawBody: Buffer;
    try {
      rawBody = await readBody(req, maxBodyBytes);
    } catch (e) {
      if (e instanceof BodyTooLargeError) return send(res, 413, { error: e.message });
      throw e;
    }

    let body: unknown;
    let badJson: string | undefined;
    if (rawBody.length > 0 && wantsJson(req.headers['content-type'])) {
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch (e) {
        badJson = (e as Error).message;
      }
    }

    if (path.startsWith(CONTROL_PREFIX)) {
      if (badJson !== undefined) return send(res, 400, { error: `invalid JSON body: ${badJson}` });
      const answer = handleControl(method, path, query, body, recorder, faultStore);
      return send(res, answer.status, answer.body);
    }

    recorder.add({
      method,
      path,
      query,
      headers: req.headers,
      body: body !== undefined || rawBody.length === 0 ? body : rawBody.toString('utf8'),
      time: receivedAt,
    });

    let faultHeaders: HeaderValues | undefined;
    let answer: SimResponse | undefined;
    const fault = faultStore.take(method, path);
    if (fault) {
      // `after`: the handler runs (its work is done), then its answer is lost on the way back
      if (fault.after) answer = await answerFor(method, path, query, req.headers, body, badJson, rawBody, receivedAt);
      if (fault.delayMs) await delay(fault.delayMs);
      if (fault.reset) {
        req.socket.resetAndDestroy();
        return;
      }
      if (fault.after || fault.status !== undefined || fault.body !== undefined) {
        const dflt = fault.after
          ? { status: 504, error: 'fault injected after the handler ran' }
          : { status: 500, error: 'fault injected' };
        return send(
          res,
          fault.status ?? dflt.status,
          fault.body ?? { error: dflt.error, server: opts.name },
          fault.headers,
        );
      }
      faultHeaders = fault.headers;
    }
    answer ??= await answerFor(method, path, query, req.headers, body, badJson, rawBody, receivedAt);
    send(res, answer.status, answer.body, answer.headers, faultHeaders);
  }

  async function answerFor(
    method: string,
    path: string,
    query: Record<string, string>,
    headers: IncomingHttpHeaders,
    body: unknown,
    badJson: string | undefined,
    rawBody: Buffer,
    receivedAt: number,
  ): Promise<SimResponse> {
    if (badJson !== undefined) return { status: 400, body: { error: `invalid JSON body: ${badJson}` } };
    let match;
    try {
      match = router.match(method, path);
    } catch (e) {
      if (e instanceof BadPathError) return { status: 400, body: { error: e.message } };
      throw e;
    }
    if (match.kind === 'not-found')
      return { status: 404, body: { error: `no route for ${method} ${path}`, server: opts.name } };
    if (match.kind === 'method-not-allowed') {
      return {
        status: 405,
        body: { error: `method ${method} not allowed on ${path}` },
        headers: { allow: match.allow.join(', ') },
      };
    }
    return match.handler({ method, path, params: match.params, query, headers, body, rawBody, receivedAt });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log(`${opts.name}: handler error`, {
        err: e instanceof Error ? e.stack : String(e),
        method: req.method,
        url: req.url,
      });
      send(res, 500, { error: 'internal simulator error', message: e instanceof Error ? e.message : String(e) });
    });
  });
  // Outlive the engine's pooled connections (undici keeps idle sockets ~4-60s), so clients
  // never race a server-side close; headersTimeout must exceed keepAliveTimeout.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  const sim: SimServer = {
    name: opts.name,
    get url(): string {
      if (baseUrl === undefined) throw new Error(`${opts.name}: url is only known after start()`);
      return baseUrl;
    },
    route(method, pathPattern, handler) {
      router.add(method, pathPattern, handler);
      return sim;
    },
    start() {
      return new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
          server.off('error', reject);
          const addr = server.address() as AddressInfo;
          const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
          baseUrl = `http://${host}:${addr.port}`;
          log(`${opts.name} listening`, { url: baseUrl });
          resolve(baseUrl);
        });
      });
    },
    close() {
      for (const d of [...delays]) d.done();
      return new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.close((err) => (err ? reject(err) : resolve()));
        // idle keep-alive sockets would otherwise hold close() open for keepAliveTimeout
        server.closeAllConnections();
      });
    },
    requests: (filter) => recorder.list(filter),
    clearRequests: () => recorder.clear(),
    setRecording: (enabled) => {
      recorder.enabled = enabled;
    },
    addFault: (rule) => faultStore.add(rule),
    removeFault: (id) => faultStore.remove(id),
    clearFaults: () => faultStore.clear(),
    faults: () => faultStore.list(),
  };
  return sim;
}
