// The engine's one HTTP listener: node:http and one find-my-way router serve the unified API
// routes, webhooks, extensions (the gateway's /mcp) and the operations endpoints. Everything the
// server answers itself is an RFC 9457 problem written by answers.ts. A reload builds a new
// router beside the served one and swaps the reference (see stage()): requests read one field.

import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import FindMyWay, { type HTTPMethod, type HTTPVersion, type Instance as Router } from 'find-my-way';
import type { Logger } from 'pino';
import { routeHandler, readBody, type RouteHandlerConfig } from './route-handler.ts';
import { correlationIdFrom, shownPath, writeBody, writeProblem } from './answers.ts';
import { operations, type OperationsOptions } from './operations.ts';
import { PlatformError, problemOf, toPlatformError } from '../core/errors.ts';
import { ENGINE_DEFAULTS } from '../config/engine-settings.ts';
import { CODE } from '../core/error-catalog.ts';
import type { CompiledRoute } from '../pipeline/route.ts';
import { ROUTER_MATCHING, routerPath } from './route-paths.ts';

export interface HttpServerOptions extends OperationsOptions {
  logger: Logger;
  bodyLimit?: number;
  /** deepest nesting of a JSON request body (default 64) */
  jsonDepthLimit?: number;
  /** connection limits (engine.server settings; defaults ENGINE_DEFAULTS.server) */
  connections?: ConnectionLimits;
}

/** How long a client may take to send a request, and how many connections it may hold open. */
export interface ConnectionLimits {
  /** ms to receive headers and body; past it 408 and the connection is closed */
  requestTimeout: number;
  /** ms to receive the headers (at most requestTimeout) */
  headersTimeout: number;
  /** open connections beyond which new ones are closed as they arrive */
  maxConnections: number;
}

/** How often node:http looks for requests past their deadline (its default, 30 s, would double a 30 s deadline). */
const DEADLINE_CHECK_MS = 1000;

export type RawHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  correlationId: string,
) => void | Promise<void>;

/** What an `http` source registers its route on: the served router, or a stage being built. */
export interface RouteRegistrar {
  addRoute(route: CompiledRoute, cfg: RouteHandlerConfig): void;
}

/** A set of routes built beside the served one; `commit()` serves it in one step. */
export interface RouteStage extends RouteRegistrar {
  commit(): void;
}

type Handler = (req: IncomingMessage, res: ServerResponse, params: Record<string, string | undefined>) => void;

/** A router and the methods it serves (for Allow), swapped together. */
interface Table {
  router: Router<HTTPVersion.V1>;
  methods: Set<HTTPMethod>;
}

/** Marks the router's own routes, so a lookup for the Allow header tells them from onBadUrl's answer. */
const ROUTE = Object.freeze({ route: true });

const shuttingDown = () =>
  new PlatformError({
    kind: 'internal',
    status: 503,
    title: 'Service unavailable',
    detail: 'the engine is shutting down',
  });

export class HttpServer implements RouteRegistrar {
  readonly server: Server;
  // read by every request; a reload replaces both at once (stage().commit())
  private router: Router<HTTPVersion.V1>;
  private methods: Set<HTTPMethod>;
  /** operations endpoints and extension paths: carried into every new router */
  private fixed: { method: HTTPMethod | HTTPMethod[]; path: string; handler: Handler }[] = [];
  private inFlight = 0;
  private closing = false;
  private routes: { route: CompiledRoute; cfg: RouteHandlerConfig }[] = [];
  private bodyLimit: number;
  private jsonDepthLimit: number;
  /** connections closed at the cap since the last warning, and when that was */
  private dropped = 0;
  private droppedWarnedAt = 0;

  constructor(private opts: HttpServerOptions) {
    this.bodyLimit = opts.bodyLimit ?? 1024 * 1024;
    this.jsonDepthLimit = opts.jsonDepthLimit ?? 64;
    ({ router: this.router, methods: this.methods } = this.newTable());
    const { server: d } = ENGINE_DEFAULTS;
    const limits = opts.connections ?? {
      requestTimeout: d.requestTimeout,
      headersTimeout: d.headersTimeout,
      maxConnections: d.maxConnections,
    };
    // keep-alive longer than the usual 60 s idle timeout of load balancers in front; a request
    // past its deadline is a clientError (ERR_HTTP_REQUEST_TIMEOUT): 408 and the connection closed
    this.server = createServer(
      {
        keepAliveTimeout: 72_000,
        requestTimeout: limits.requestTimeout,
        headersTimeout: limits.headersTimeout,
        connectionsCheckingInterval: DEADLINE_CHECK_MS,
      },
      (req, res) => {
        if (this.closing)
          return writeProblem(res, shuttingDown(), correlationIdFrom(req.headers['x-correlation-id']), undefined, true);
        this.router.lookup(req, res);
      },
    );
    this.server.maxConnections = limits.maxConnections;
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => this.clientError(err, socket));
    this.server.on('drop', () => this.drop());
    for (const [path, fn] of Object.entries(operations(opts))) {
      this.on(['GET', 'HEAD'], path, (req, res) => {
        Promise.resolve()
          .then(() => fn(req, res))
          .then((a) => writeBody(res, a.status, a.type, a.payload, this.closing))
          .catch((err) => this.failed(err, req, res, path));
      });
    }
  }

  httpRoutes(): { route: CompiledRoute; cfg: RouteHandlerConfig }[] {
    return this.routes;
  }

  addRoute(route: CompiledRoute, cfg: RouteHandlerConfig): void {
    this.routes.push({ route, cfg });
    this.register({ router: this.router, methods: this.methods }, route, cfg);
  }

  /**
   * Starts a new set of routes on a router of its own (operations and extension paths carry
   * over). Nothing changes for clients until `commit()`, which swaps the router in one
   * assignment: exchanges in flight finish on the handlers they started with, the next request
   * gets the new ones. Two routes on one method and path throw from `addRoute`, before any swap.
   */
  stage(): RouteStage {
    const next = this.newTable();
    const routes: { route: CompiledRoute; cfg: RouteHandlerConfig }[] = [];
    return {
      addRoute: (route, cfg) => {
        this.register(next, route, cfg);
        routes.push({ route, cfg });
      },
      commit: () => {
        this.router = next.router;
        this.methods = next.methods;
        this.routes = routes;
      },
    };
  }

  /**
   * New request limits (engine.server settings): body size and depth for the routes registered
   * from now on, deadlines and the connection cap for every request and connection from now on.
   */
  setLimits(limits: { bodyLimit: number; jsonDepthLimit: number } & Partial<ConnectionLimits>): void {
    this.bodyLimit = limits.bodyLimit;
    this.jsonDepthLimit = limits.jsonDepthLimit;
    // node:http reads these at each deadline check and each new connection
    if (limits.requestTimeout !== undefined) this.server.requestTimeout = limits.requestTimeout;
    if (limits.headersTimeout !== undefined) this.server.headersTimeout = limits.headersTimeout;
    if (limits.maxConnections !== undefined) this.server.maxConnections = limits.maxConnections;
  }

  /** A connection closed at the cap: one warning, then at most one a minute with the count since. */
  private drop(): void {
    this.dropped++;
    const now = Date.now();
    if (now - this.droppedWarnedAt < 60_000) return;
    this.opts.logger.warn(
      { dropped: this.dropped, maxConnections: this.server.maxConnections },
      'connections closed on arrival: the listener holds engine.server.maxConnections open connections',
    );
    this.dropped = 0;
    this.droppedWarnedAt = now;
  }

  private register(t: Table, route: CompiledRoute, cfg: RouteHandlerConfig): void {
    const handler = routeHandler(route, cfg, {
      logger: this.opts.logger,
      metrics: this.opts.metrics,
      bodyLimit: this.bodyLimit,
      jsonDepthLimit: this.jsonDepthLimit,
      closing: () => this.closing,
      enter: () => {
        this.inFlight++;
      },
      leave: () => {
        this.inFlight--;
      },
    });
    add(t, cfg.method as HTTPMethod, routerPath(cfg.path), (req, res, params) => handler(req, res, params));
  }

  /** A router with the operations endpoints and extension paths registered so far. */
  private newTable(): Table {
    const t: Table = {
      methods: new Set(),
      router: FindMyWay({
        ...ROUTER_MATCHING,
        defaultRoute: (req, res) => this.noRoute(req, res),
        onBadUrl: (path, req, res) => {
          writeProblem(
            res,
            new PlatformError({
              kind: 'validation',
              code: CODE.validation,
              detail: `'${shownPath(path)}' is not a valid URL path (malformed percent-encoding)`,
            }),
            correlationIdFrom(req.headers['x-correlation-id']),
            undefined,
            this.closing,
          );
        },
      }),
    };
    for (const f of this.fixed) add(t, f.method, f.path, f.handler);
    return t;
  }

  /**
   * Serves a path for an extension that parses the body itself (the gateway's /mcp): the handler
   * gets the body as text, read within the body limit, and counts as an in-flight exchange.
   */
  addRaw(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    handler: RawHandler,
    bodyLimit = this.bodyLimit,
  ): void {
    this.on(method, path, (req, res) => {
      const correlationId = correlationIdFrom(req.headers['x-correlation-id']);
      this.inFlight++;
      readBody(
        req,
        bodyLimit,
        (raw) => {
          // no promise where the handler answered synchronously
          let r: void | Promise<void>;
          try {
            r = handler(req, res, raw ? raw.toString('utf8') : '', correlationId);
          } catch (err) {
            this.settle(err, req, res, path, correlationId);
            return;
          }
          if (!r || typeof r.then !== 'function') {
            this.inFlight--;
            return;
          }
          r.then(
            () => {
              this.inFlight--;
            },
            (err) => this.settle(err, req, res, path, correlationId),
          );
        },
        () => {
          this.inFlight--;
          writeProblem(
            res,
            new PlatformError({
              kind: 'payload-too-large',
              detail: `the body is larger than the limit of ${bodyLimit} bytes`,
            }),
            correlationId,
            undefined,
            true,
          );
        },
        () => {
          this.inFlight--;
        },
      );
    });
  }

  /** Whether a route (of the engine or an extension) answers this method and path. */
  serves(method: HTTPMethod, path: string): boolean {
    return this.router.find(method, path)?.store === ROUTE;
  }

  /** True once close() started: extensions answer with `connection: close`. */
  get isClosing(): boolean {
    return this.closing;
  }

  /** Listens; resolves with the URL to reach the engine (a wildcard address becomes loopback). */
  listen(port: number, host: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const a = this.server.address() as AddressInfo;
        const addr = a.address === '0.0.0.0' ? '127.0.0.1' : a.address === '::' ? '::1' : a.address;
        resolve(`http://${a.family === 'IPv6' ? `[${addr}]` : addr}:${a.port}`);
      });
    });
  }

  /**
   * Stops accepting connections; new exchanges on open ones get 503, answers carry
   * `connection: close`. Waits for in-flight exchanges up to `timeoutMs`, closing connections as
   * they go idle, then cuts the rest. Resolves true when nothing was cut short.
   */
  async close(timeoutMs: number): Promise<boolean> {
    const server = this.server;
    this.closing = true;
    const closed = new Promise<void>((r) => server.close(() => r()));
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight > 0 && Date.now() < deadline) {
      server.closeIdleConnections();
      await new Promise((r) => setTimeout(r, 20));
    }
    const clean = this.inFlight === 0;
    // connections that finished their last exchange are idle now; anything left is cut
    server.closeIdleConnections();
    const rest = setTimeout(() => server.closeAllConnections(), clean ? 200 : 0);
    await closed;
    clearTimeout(rest);
    return clean;
  }

  /** Registers an operations endpoint or an extension path: it stays through reloads. */
  private on(method: HTTPMethod | HTTPMethod[], path: string, handler: Handler): void {
    this.fixed.push({ method, path, handler });
    add({ router: this.router, methods: this.methods }, method, path, handler);
  }

  /** No route for this method and path: 405 with Allow when the path exists, else 404. */
  private noRoute(req: IncomingMessage, res: ServerResponse): void {
    const correlationId = correlationIdFrom(req.headers['x-correlation-id']);
    const path = shownPath(req.url);
    const allow = [...this.methods].filter((m) => m !== req.method && this.serves(m, req.url ?? '/'));
    if (allow.length) {
      writeProblem(
        res,
        new PlatformError({
          kind: 'not-found',
          status: 405,
          title: 'Method not allowed',
          detail: `${req.method} is not allowed on ${path}; allowed: ${allow.join(', ')}`,
          headers: { allow: allow.join(', ') },
        }),
        correlationId,
        path,
        this.closing,
      );
      return;
    }
    writeProblem(
      res,
      new PlatformError({ kind: 'not-found', detail: `no route for ${req.method} ${path}` }),
      correlationId,
      path,
      this.closing,
    );
  }

  /** A handler that failed: answered for, and counted out even if answering throws (shutdown waits for inFlight). */
  private settle(err: unknown, req: IncomingMessage, res: ServerResponse, path: string, correlationId: string): void {
    try {
      this.failed(err, req, res, path, correlationId);
    } finally {
      this.inFlight--;
    }
  }

  private failed(
    err: unknown,
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    correlationId = correlationIdFrom(req.headers['x-correlation-id']),
  ): void {
    this.opts.logger.error({ err, path, correlationId }, 'unhandled error');
    if (!res.headersSent) writeProblem(res, toPlatformError(err), correlationId, undefined, this.closing);
    else res.destroy();
  }

  /** Malformed HTTP: answer 400 (431 for oversized headers, 408 on timeout) and close; no crash. */
  private clientError(err: NodeJS.ErrnoException, socket: Socket): void {
    const pending = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const detail =
      status === 431
        ? 'the request headers are too large'
        : status === 408
          ? 'the request was not received in time'
          : 'the request is not well-formed HTTP';
    const correlationId = correlationIdFrom(undefined);
    const payload = JSON.stringify(
      problemOf(new PlatformError({ kind: 'validation', status, title: STATUS_CODES[status], detail }), correlationId),
    );
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\nx-correlation-id: ${correlationId}\r\nconnection: close\r\n\r\n${payload}`,
    );
  }
}

function add(t: Table, method: HTTPMethod | HTTPMethod[], path: string, handler: Handler): void {
  t.router.on(method, path, handler, ROUTE);
  for (const m of Array.isArray(method) ? method : [method]) t.methods.add(m);
}
