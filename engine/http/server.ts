// The engine's one HTTP listener (fastify): the unified API routes, webhooks, the gateway and
// the operations endpoints. Errors are RFC 9457 problem details with a correlation id.

import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { PlatformError, problemOf, toPlatformError } from '../runtime/errors.ts';
import { createExchange } from '../runtime/exchange.ts';
import { runRoute, type CompiledRoute } from '../runtime/route.ts';
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

interface HttpRouteConfig {
  method: string;
  path: string;
  params: string[];
  'content-type'?: 'json' | 'any';
  'body-limit'?: number;
  status?: number;
  'raw-body'?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest { rawBody?: Buffer; correlationId: string }
}

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\b/i;

export function correlationIdOf(req: FastifyRequest): string {
  const h = req.headers['x-correlation-id'];
  const v = Array.isArray(h) ? h[0] : h;
  // accept a caller's id only if it is a sane token, so logs cannot be forged through it
  return v && /^[A-Za-z0-9._:-]{1,128}$/.test(v) ? v : randomUUID();
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
  private routes: { route: CompiledRoute; cfg: HttpRouteConfig }[] = [];

  constructor(private opts: HttpServerOptions) {
    this.app = Fastify({
      logger: false,
      bodyLimit: opts.bodyLimit ?? 1024 * 1024,
      trustProxy: opts.trustProxy?.length ? opts.trustProxy : false,
      return503OnClosing: true,
      forceCloseConnections: 'idle',
      routerOptions: { ignoreTrailingSlash: true },
    });
    const app = this.app;
    app.decorateRequest('rawBody', undefined);
    app.decorateRequest('correlationId', '');
    app.addHook('onRequest', (req, _reply, done) => { req.correlationId = correlationIdOf(req); done(); });
    // answers sent while closing tell keep-alive clients to go away
    app.addHook('onSend', (_req, reply, _payload, done) => { if (this.closing) reply.header('connection', 'close'); done(); });
    // JSON is parsed here (not by fastify) so the raw bytes stay available for signatures.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(JSON_TYPE, { parseAs: 'buffer' }, (req, buf, done) => {
      req.rawBody = buf as Buffer;
      if ((buf as Buffer).length === 0) return done(null, undefined);
      try {
        done(null, JSON.parse((buf as Buffer).toString('utf8')));
      } catch {
        done(new PlatformError({ kind: 'validation', code: 'GC025', detail: 'the body is not valid JSON' }), undefined);
      }
    });
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, buf, done) => {
      req.rawBody = buf as Buffer;
      done(null, (buf as Buffer).length ? (buf as Buffer).toString('utf8') : undefined);
    });
    app.setNotFoundHandler((req, reply) => {
      sendProblem(reply, new PlatformError({ kind: 'not-found', detail: `no route for ${req.method} ${req.url.split('?')[0]}` }), req.correlationId, req.url.split('?')[0]);
    });
    app.setErrorHandler((err: any, req, reply) => {
      const id = req.correlationId || randomUUID();
      if (err instanceof PlatformError) return sendProblem(reply, err, id);
      const code = err?.code as string | undefined;
      if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendProblem(reply, new PlatformError({ kind: 'payload-too-large', detail: `the body is larger than the limit of ${req.routeOptions.bodyLimit ?? opts.bodyLimit} bytes` }), id);
      if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return sendProblem(reply, new PlatformError({ kind: 'unsupported-media', detail: 'Content-Type must be application/json' }), id);
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

  get inFlightCount(): number {
    return this.inFlight;
  }

  httpRoutes(): { route: CompiledRoute; cfg: HttpRouteConfig }[] {
    return this.routes;
  }

  addRoute(route: CompiledRoute, cfg: HttpRouteConfig): void {
    this.routes.push({ route, cfg });
    const { metrics, logger } = this.opts;
    const json = (cfg['content-type'] ?? 'json') === 'json';
    const okStatus = cfg.status ?? 200;
    const url = cfg.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
    const rm = metrics.route(route.id);
    this.app.route({
      method: cfg.method as any,
      url,
      bodyLimit: cfg['body-limit'],
      handler: async (req, reply) => {
        const correlationId = req.correlationId;
        const started = performance.now();
        this.inFlight++;
        rm.enter();
        try {
          if (json && req.rawBody?.length && !JSON_TYPE.test(String(req.headers['content-type'] ?? ''))) {
            throw new PlatformError({ kind: 'unsupported-media', detail: 'Content-Type must be application/json' });
          }
          const ex = createExchange({
            routeId: route.id,
            correlationId,
            body: req.body,
            headers: req.headers as Record<string, string | undefined>,
            query: req.query as Record<string, string | undefined>,
            params: req.params as Record<string, string>,
            rawBody: cfg['raw-body'] ? req.rawBody : undefined,
            logger,
          });
          ex.status = okStatus;
          (ex as { clientIp?: string }).clientIp = req.ip;
          const out = await runRoute(route, ex, metrics);
          if (out.error) {
            rm.request(out.error.status);
            return sendProblem(reply, out.error, correlationId);
          }
          rm.request(ex.status);
          // the answer is written straight to the socket: fastify's reply pipeline (hooks,
          // serializers) has nothing to add to a body that is already JSON, and costs per request
          const headers: Record<string, string | number> = { ...ex.responseHeaders, 'x-correlation-id': correlationId };
          if (this.closing) headers.connection = 'close';
          reply.hijack();
          if (ex.body === undefined || ex.status === 204) {
            reply.raw.writeHead(ex.status, headers).end();
          } else {
            const payload = JSON.stringify(ex.body);
            headers['content-type'] = 'application/json; charset=utf-8';
            headers['content-length'] = Buffer.byteLength(payload);
            reply.raw.writeHead(ex.status, headers).end(payload);
          }
          return reply;
        } catch (e) {
          const err = toPlatformError(e);
          rm.request(err.status);
          return sendProblem(reply, err, correlationId);
        } finally {
          this.inFlight--;
          rm.leave();
          rm.latency((performance.now() - started) / 1000);
        }
      },
    });
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
