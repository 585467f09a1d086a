// The engine's one HTTP listener (fastify): the unified API routes, webhooks, the gateway and
// the operations endpoints. Errors are RFC 9457 problem details with a correlation id.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPVersion, type Instance as Router } from 'find-my-way';
import { routeHandler, correlationIdFrom, readBody, writeProblem, type RouteHandlerConfig } from './route-handler.ts';
import type { Logger } from 'pino';
import { PlatformError, problemOf, toPlatformError } from '../runtime/errors.ts';
import type { CompiledRoute } from '../runtime/route.ts';
import type { Metrics } from '../runtime/metrics.ts';

export interface HttpServerOptions {
  logger: Logger;
  metrics: Metrics;
  bodyLimit?: number;
  /** proxies whose X-Forwarded-For is trusted (addresses or CIDRs) */
  trustProxy?: string[];
  ready: () => { ready: boolean; checks: Record<string, boolean> };
  openapi: () => unknown;
}

export type RawHandler = (req: IncomingMessage, res: ServerResponse, body: string, correlationId: string) => void | Promise<void>;

declare module 'fastify' {
  interface FastifyRequest { correlationId: string }
}

export function correlationIdOf(req: FastifyRequest): string {
  return correlationIdFrom(req.headers['x-correlation-id']);
}

export function sendProblem(reply: FastifyReply, err: PlatformError, correlationId: string, instance?: string): FastifyReply {
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply
    .code(err.status)
    .header('content-type', 'application/problem+json')
    .header('x-correlation-id', correlationId)
    .send(JSON.stringify(problemOf(err, correlationId, instance)));
}

export class HttpServer {
  readonly app: FastifyInstance;
  private inFlight = 0;
  private closing = false;
  private routes: { route: CompiledRoute; cfg: RouteHandlerConfig }[] = [];
  /** engine routes, served before fastify; anything else falls through to it */
  private router: Router<HTTPVersion.V1>;
  private fastifyHandler?: (req: IncomingMessage, res: ServerResponse) => void;

  constructor(private opts: HttpServerOptions) {
    this.router = FindMyWay({
      ignoreTrailingSlash: true,
      defaultRoute: (req, res) => this.fastifyHandler!(req, res),
    });
    this.app = Fastify({
      serverFactory: (handler) => {
        this.fastifyHandler = handler;
        return createServer((req, res) => this.router.lookup(req, res));
      },
      logger: false,
      bodyLimit: opts.bodyLimit ?? 1024 * 1024,
      trustProxy: opts.trustProxy?.length ? opts.trustProxy : false,
      return503OnClosing: true,
      forceCloseConnections: 'idle',
      routerOptions: { ignoreTrailingSlash: true },
    });
    const app = this.app;
    app.decorateRequest('correlationId', '');
    app.addHook('onRequest', (req, _reply, done) => { req.correlationId = correlationIdOf(req); done(); });
    // answers sent while closing tell keep-alive clients to go away
    app.addHook('onSend', (_req, reply, _payload, done) => { if (this.closing) reply.header('connection', 'close'); done(); });
    // fastify serves only the operations endpoints and unknown paths (engine routes and /mcp run
    // on the front router): a body sent to an unknown path is not parsed, it gets a plain 404
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    app.setNotFoundHandler((req, reply) => {
      sendProblem(reply, new PlatformError({ kind: 'not-found', detail: `no route for ${req.method} ${req.url.split('?')[0]}` }), req.correlationId, req.url.split('?')[0]);
    });
    app.setErrorHandler((err: any, req, reply) => {
      const id = req.correlationId || randomUUID();
      if (err instanceof PlatformError) return sendProblem(reply, err, id);
      const code = err?.code as string | undefined;
      if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendProblem(reply, new PlatformError({ kind: 'payload-too-large', detail: `the body is larger than the limit of ${req.routeOptions.bodyLimit ?? opts.bodyLimit} bytes` }), id);
      if (code?.startsWith('FST_ERR_CTP') || err?.statusCode === 400) return sendProblem(reply, new PlatformError({ kind: 'validation', code: 'GC025', detail: err.message }), id);
      opts.logger.error({ err, correlationId: id }, 'unhandled HTTP error');
      return sendProblem(reply, toPlatformError(err), id);
    });
    app.get('/health/live', (_req, reply) => { reply.send({ status: 'UP' }); });
    app.get('/health/ready', (_req, reply) => {
      const r = opts.ready();
      reply.code(r.ready ? 200 : 503).send({ status: r.ready ? 'UP' : 'DOWN', checks: r.checks });
    });
    app.get('/metrics', async (_req, reply) => {
      reply.header('content-type', opts.metrics.registry.contentType).send(await opts.metrics.registry.metrics());
    });
    app.get('/openapi.json', (_req, reply) => { reply.send(opts.openapi()); });
  }

  httpRoutes(): { route: CompiledRoute; cfg: RouteHandlerConfig }[] {
    return this.routes;
  }

  addRoute(route: CompiledRoute, cfg: RouteHandlerConfig): void {
    this.routes.push({ route, cfg });
    const handler = routeHandler(route, cfg, {
      logger: this.opts.logger,
      metrics: this.opts.metrics,
      bodyLimit: this.opts.bodyLimit ?? 1024 * 1024,
      closing: () => this.closing,
      enter: () => { this.inFlight++; },
      leave: () => { this.inFlight--; },
    });
    const url = cfg.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
    this.router.on(cfg.method as any, url, (req, res, params) => handler(req, res, params));
  }

  /**
   * Serves a path on node:http directly (like engine routes) for extensions that need no
   * fastify features: the handler gets the body as text, read within the body limit.
   */
  addRaw(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, handler: RawHandler, bodyLimit = this.opts.bodyLimit ?? 1024 * 1024): void {
    this.router.on(method, path, (req, res) => {
      const correlationId = correlationIdFrom(req.headers['x-correlation-id']);
      readBody(req, bodyLimit, (raw) => {
        this.inFlight++;
        Promise.resolve()
          .then(() => handler(req, res, raw ? raw.toString('utf8') : '', correlationId))
          .catch((err) => {
            this.opts.logger.error({ err, path, correlationId }, 'unhandled error');
            if (!res.headersSent) writeProblem(res, toPlatformError(err), correlationId);
          })
          .finally(() => { this.inFlight--; });
      }, () => {
        writeProblem(res, new PlatformError({ kind: 'payload-too-large', detail: `the body is larger than the limit of ${bodyLimit} bytes` }), correlationId, undefined, true);
      });
    });
  }

  /** True once close() started: extensions answer with `connection: close`. */
  get isClosing(): boolean {
    return this.closing;
  }

  async listen(port: number, host: string): Promise<string> {
    return this.app.listen({ port, host });
  }

  /** Stops accepting, waits for in-flight exchanges up to `timeoutMs`, then closes. */
  async close(timeoutMs: number): Promise<boolean> {
    const server = this.app.server;
    this.closing = true;
    const closing = this.app.close();
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight > 0 && Date.now() < deadline) {
      server.closeIdleConnections();
      await new Promise((r) => setTimeout(r, 20));
    }
    const clean = this.inFlight === 0;
    // connections that finished their last exchange are idle now; anything left is cut
    server.closeIdleConnections();
    const rest = setTimeout(() => server.closeAllConnections(), clean ? 200 : 0);
    await closing;
    clearTimeout(rest);
    return clean;
  }
}
