// Serves one HTTP route on node:http: read the body (within the limit), parse JSON (within the
// depth limit), run the route, write the answer.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { PlatformError, toPlatformError } from '../core/errors.ts';
import { CODE } from '../core/error-catalog.ts';
import { createExchange, type Exchange } from '../pipeline/exchange.ts';
import { runRoute, type CompiledRoute } from '../pipeline/route.ts';
import { clock } from '../pipeline/slices.ts';
import type { Metrics } from '../observability/metrics.ts';
import { correlationIdFrom, writeProblem } from './answers.ts';
import { deepestShort, jsonDeeperThan, valueDeeperThan } from './json-depth.ts';

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\b/i;

export interface RouteHandlerConfig {
  method: string;
  path: string;
  params: string[];
  'content-type'?: 'json' | 'any';
  'body-limit'?: number;
  status?: number;
  'raw-body'?: boolean;
  /** called after an answer >= 500 has been written (`record-failures: true`); the request ends once it resolves */
  onFailure?: (f: HttpFailure) => Promise<void>;
}

/** A request the route answered with a status >= 500. */
export interface HttpFailure {
  error: PlatformError;
  ex: Exchange;
  method: string;
  /** the request path, without the query */
  path: string;
  headers: IncomingMessage['headers'];
  raw?: Buffer;
}

export interface HandlerHost {
  logger: Logger;
  metrics: Metrics;
  bodyLimit: number;
  /** deepest nesting of a JSON body */
  jsonDepthLimit: number;
  closing(): boolean;
  enter(): void;
  leave(): void;
}

/**
 * Reads a request body within `limit` bytes: `done` gets the bytes (undefined when empty),
 * `tooLarge` is called once when the declared or received size passes the limit, `failed` when
 * the client went away.
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
  done: (raw: Buffer | undefined) => void,
  tooLarge: () => void,
  failed: () => void = () => {},
): void {
  if (Number(req.headers['content-length'] ?? 0) > limit) {
    tooLarge();
    req.resume();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  req.on('data', (c: Buffer) => {
    if (over) return;
    size += c.length;
    if (size > limit) {
      over = true;
      tooLarge();
      req.resume();
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    if (over) return;
    done(chunks.length === 0 ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  });
  req.on('error', () => {
    if (!over) {
      over = true;
      failed();
    }
  });
}

function parseQuery(url: string): Record<string, string | undefined> {
  const q = url.indexOf('?');
  if (q < 0) return {};
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of new URLSearchParams(url.slice(q + 1))) if (!(k in out)) out[k] = v;
  return out;
}

export function routeHandler(route: CompiledRoute, cfg: RouteHandlerConfig, host: HandlerHost) {
  const json = (cfg['content-type'] ?? 'json') === 'json';
  const okStatus = cfg.status ?? 200;
  const limit = cfg['body-limit'] ?? host.bodyLimit;
  const keepRaw = cfg['raw-body'] === true;
  const rm = host.metrics.route(route.id);

  const run = async (
    req: IncomingMessage,
    res: ServerResponse,
    params: Record<string, string | undefined>,
    raw: Buffer | undefined,
    correlationId: string,
    started: number,
  ) => {
    let status = 500;
    // the exchange's first stretch of work starts with parsing its body: the steps count it (slices.ts)
    const parsing = clock();
    try {
      let body: unknown;
      if (raw && raw.length) {
        const type = req.headers['content-type'] ?? '';
        if (JSON_TYPE.test(type)) {
          // parsed first, then its depth checked on the value (a tenth of a pass over a large text);
          // a text both too deep and malformed is refused for its depth, as when the text was checked first
          const limit = host.jsonDepthLimit;
          let parsed = true;
          try {
            body = JSON.parse(raw.toString('utf8'));
          } catch {
            parsed = false;
          }
          if (parsed ? raw.length >= deepestShort(limit) && valueDeeperThan(body, limit) : jsonDeeperThan(raw, limit)) {
            throw new PlatformError({
              kind: 'validation',
              code: CODE.validation,
              detail: `the body nests arrays and objects deeper than the limit of ${limit} levels`,
            });
          }
          if (!parsed) {
            throw new PlatformError({
              kind: 'validation',
              code: CODE.validation,
              detail: 'the body is not valid JSON',
            });
          }
        } else if (json) {
          throw new PlatformError({ kind: 'unsupported-media', detail: 'Content-Type must be application/json' });
        } else body = raw.toString('utf8');
      }
      const ex = createExchange({
        routeId: route.id,
        correlationId,
        body,
        headers: req.headers as Record<string, string | undefined>,
        query: parseQuery(req.url ?? ''),
        params: params as Record<string, string>,
        rawBody: keepRaw ? (raw ?? Buffer.alloc(0)) : undefined,
        logger: host.logger,
      });
      ex.status = okStatus;
      ex.sliceStart = parsing;
      const out = await runRoute(route, ex, host.metrics);
      if (out.error) {
        status = out.error.status;
        writeProblem(res, out.error, correlationId, undefined, host.closing());
        if (status >= 500 && cfg.onFailure) {
          const url = req.url ?? '';
          const q = url.indexOf('?');
          await cfg.onFailure({
            error: out.error,
            ex,
            method: req.method ?? cfg.method,
            path: q < 0 ? url : url.slice(0, q),
            headers: req.headers,
            raw,
          });
        }
        return;
      }
      status = ex.status;
      const headers: Record<string, string | number> = { ...ex.responseHeaders, 'x-correlation-id': correlationId };
      if (host.closing()) headers.connection = 'close';
      if (ex.body === undefined || ex.status === 204) {
        if (ex.status !== 204 && ex.status !== 304) headers['content-length'] = 0;
        res.writeHead(ex.status, headers).end();
      } else {
        const payload = JSON.stringify(ex.body);
        headers['content-type'] = 'application/json; charset=utf-8';
        headers['content-length'] = Buffer.byteLength(payload);
        res.writeHead(ex.status, headers).end(payload);
      }
    } catch (e) {
      const err = toPlatformError(e);
      if (err.kind === 'internal') host.logger.error({ err: e, route: route.id, correlationId }, 'unhandled error');
      status = err.status;
      if (!res.headersSent) writeProblem(res, err, correlationId, undefined, host.closing());
    } finally {
      rm.request(status);
      rm.leave();
      host.leave();
      rm.latency((performance.now() - started) / 1000);
    }
  };

  return (req: IncomingMessage, res: ServerResponse, params: Record<string, string | undefined>): void => {
    const correlationId = correlationIdFrom(req.headers['x-correlation-id']);
    const started = performance.now();
    host.enter();
    rm.enter();
    readBody(
      req,
      limit,
      (raw) => void run(req, res, params, raw, correlationId, started),
      () => {
        rm.request(413);
        rm.leave();
        host.leave();
        writeProblem(
          res,
          new PlatformError({
            kind: 'payload-too-large',
            detail: `the body is larger than the limit of ${limit} bytes`,
          }),
          correlationId,
          undefined,
          true,
        );
      },
      () => {
        rm.leave();
        host.leave();
      },
    );
  };
}
