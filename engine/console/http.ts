// The console's HTTP surface on the engine's one listener (HttpServer.addRaw, like the gateway's
// /mcp): the page under /console/, its JSON API under /console/api/, live updates over
// Server-Sent Events at /console/api/stream (exchanges, route metrics, breaker transitions).
// Everything it refuses is a problem document written by http/answers.ts. Served only while the
// console is enabled (docs/console.md), and only to requests that name one of the listener's own
// hosts (hosts.ts).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineExtension, RunningEngine } from '../engine.ts';
import { writeBody, writeProblem } from '../http/answers.ts';
import { PlatformError } from '../core/errors.ts';
import { consoleAssets } from './assets.ts';
import type { ExchangeRecorder, ExchangeSummary } from './recorder.ts';
import { RouteMetricsSampler } from './route-metrics.ts';
import { gatewayView, LintView, routeViews, servedTool, sourceFiles } from './views.ts';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { compileSecrets, maskText, valuesSecrets } from '../observability/mask.ts';
import { parseTryInput, tryTool } from './try-tool.ts';
import { isContributor, type ConsoleContributor, type ConsolePanel } from './panel.ts';
import { gatewayExtension } from '../gateway/index.ts';
import { ConsoleHosts } from './hosts.ts';
import { consoleActor, failedApi } from './failed-api.ts';
import { auditApi } from './audit-api.ts';
import { clientViews, routeClients } from './clients.ts';

export interface ConsoleHost {
  engine: () => RunningEngine;
  recorder: ExchangeRecorder;
  /** the other extensions of the engine (the gateway's tools, panels of contributors) */
  extensions: () => EngineExtension[];
  /** the environment runs on simulators: `/` leads to the console */
  simulated: boolean;
}

const JSON_UTF8 = 'application/json; charset=utf-8';
/** Scripts and styles from the console's own files only; no inline code, no framing. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const PAGE_HEADERS = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
/** how often the stream sends route metrics while someone watches */
const METRICS_MS = 2000;
const HEARTBEAT_MS = 15_000;
/** longest source file shown, characters */
const SOURCE_LIMIT = 500_000;
/** open event streams at most (each is a connection held open) */
const MAX_STREAMS = 50;

type Answer = { status: number; body?: unknown };
const bad = (detail: string) => new PlatformError({ kind: 'validation', detail });
const notFound = (detail: string) => new PlatformError({ kind: 'not-found', detail });
type Raw = Parameters<RunningEngine['http']['addRaw']>[2];

export interface MountedConsole {
  /** takes the allowed hosts of the engine's current load (after a reload) */
  reload(): void;
  close(): void;
}

export function mountConsole(host: ConsoleHost): MountedConsole {
  const engine = host.engine();
  const http = engine.http;
  const hostsOf = (e: RunningEngine) => new ConsoleHosts(e.host, e.services.settings.console.allowedHosts);
  let hosts = hostsOf(engine);
  /** Every console request, reads included (exchanges hold personal data), names one of its hosts. */
  const own =
    (handler: Raw): Raw =>
    (req, res, raw, correlationId) => {
      const why = hosts.refusal(req.headers.host, req.headers.origin);
      if (why)
        return writeProblem(
          res,
          new PlatformError({ kind: 'forbidden', status: 403, detail: why }),
          correlationId,
          (req.url ?? '').split('?')[0],
        );
      return handler(req, res, raw, correlationId);
    };
  // lint gets a gateway of its own: its document handler would replace the served one's tools
  const lint = new LintView(host.engine, () =>
    host
      .extensions()
      .filter((x) => x.name !== 'console')
      .map((x) => (x.name === 'gateway' ? gatewayExtension() : x)),
  );
  const sampler = new RouteMetricsSampler(engine.services.metrics);
  const streams = new Set<ServerResponse>();
  const contributors: ConsoleContributor[] = host.extensions().flatMap((x) => (isContributor(x) ? [x] : []));
  const panels: ConsolePanel[] = contributors.flatMap((x) => x.consolePanels(engine));
  const origins = contributors.flatMap((x) => x.consoleOrigins?.() ?? []);
  host.recorder.origins = new Map(origins.flatMap((o) => o.routes.map((r) => [r, o.origin] as const)));
  const tryKeys = contributors.flatMap((x) => x.consoleTryKeys?.() ?? []);

  const json = (res: ServerResponse, a: Answer) =>
    writeBody(res, a.status, JSON_UTF8, a.status === 204 ? '' : JSON.stringify(a.body ?? {}), http.isClosing);

  // the page and its hashed assets
  http.addRaw(
    'GET',
    '/console/',
    own(async (_req, res) => {
      const a = await consoleAssets();
      res
        .writeHead(200, {
          ...PAGE_HEADERS,
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-cache',
          'content-length': Buffer.byteLength(a.index),
        })
        .end(a.index);
    }),
  );
  http.addRaw(
    'GET',
    '/console/assets/:name',
    own(async (req, res, _b, correlationId) => {
      const a = await consoleAssets();
      const name = decodeURIComponent((req.url ?? '').split('?')[0]!.slice('/console/assets/'.length));
      const f = a.files.get(name);
      if (!f) return writeProblem(res, notFound(`no console asset '${name.slice(0, 80)}'`), correlationId);
      res
        .writeHead(200, {
          ...PAGE_HEADERS,
          'content-type': f.type,
          'cache-control': 'public, max-age=31536000, immutable',
          'content-length': f.body.length,
        })
        .end(f.body);
    }),
  );
  if (host.simulated) {
    // `npm start`, then http://127.0.0.1:8080/ is the console
    http.addRaw(
      'GET',
      '/',
      own((_req, res) => {
        res.writeHead(302, { location: '/console/', 'content-length': 0 }).end();
      }),
    );
  }

  // live updates: each exchange as it starts and ends, route metrics every METRICS_MS
  const send = (event: string, data: unknown) => {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const s of streams) s.write(frame);
  };
  const unsubscribe = host.recorder.subscribe((e: ExchangeSummary) => send('exchange', e));
  // every breaker transition (a reload keeps the engine's clients registry): the Clients and Routes
  // pages change state at once, the half-open one its timer makes included
  const guards = engine.services.http.guards;
  const unwatch = guards.onChange(() => {
    if (streams.size) send('clients', { clients: clientViews(guards) });
  });
  let ticker: NodeJS.Timeout | undefined;
  const tick = async () => {
    if (streams.size) send('metrics', await sampler.sample());
  };
  http.addRaw(
    'GET',
    '/console/api/stream',
    own((_req, res, _b, correlationId) => {
      if (streams.size >= MAX_STREAMS)
        return writeProblem(
          res,
          new PlatformError({
            kind: 'internal',
            status: 503,
            title: 'Service unavailable',
            detail: `the console serves at most ${MAX_STREAMS} live streams`,
            headers: { 'retry-after': '10' },
          }),
          correlationId,
        );
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      });
      res.write(`retry: 2000\n: connected\n\n`);
      streams.add(res);
      ticker ??= setInterval(() => {
        tick().catch(() => {});
      }, METRICS_MS);
      const beat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      // the response's close is the client going away; the request's comes as soon as its (empty)
      // body has been read, which is before this handler runs or right after it
      res.on('close', () => {
        clearInterval(beat);
        streams.delete(res);
        if (!streams.size && ticker) {
          clearInterval(ticker);
          ticker = undefined;
        }
      });
    }),
  );

  const api = async (
    method: string,
    path: string,
    query: URLSearchParams,
    body: unknown,
    actor: string,
  ): Promise<Answer> => {
    const e = host.engine();
    if (method === 'GET' && path === 'overview') {
      return {
        status: 200,
        body: {
          environment: e.values.environment.name,
          simulated: host.simulated,
          url: e.url,
          routes: e.routes.length,
          exchanges: host.recorder.capacity,
          panels: panels.map((p) => ({ id: p.id, title: p.title })),
          origins: origins.map((o) => ({ origin: o.origin, label: o.label })),
          gateway: gatewayView(e, host.extensions()).available,
        },
      };
    }
    if (method === 'GET' && path === 'routes') {
      const metrics = await sampler.sample();
      const guards = e.services.http.guards;
      return {
        status: 200,
        body: {
          routes: routeViews(e, host.extensions()).map((r) => ({
            ...r,
            metrics: metrics[r.id] ?? null,
            clients: routeClients(guards, r.id),
          })),
        },
      };
    }
    if (method === 'GET' && path === 'clients')
      return { status: 200, body: { clients: clientViews(e.services.http.guards) } };
    if (method === 'GET' && path === 'source') {
      // only the files the diagrams open: never an arbitrary path of the machine
      const file = query.get('file') ?? '';
      if (!sourceFiles(routeViews(e, host.extensions())).has(file))
        throw notFound(
          `'file' must be a file of a loaded route (its YAML, or a .jsonata one of its steps runs): '${file.slice(0, 200)}'`,
        );
      const text = await readFile(resolve(e.services.root, file), 'utf8');
      return {
        status: 200,
        body: { file, text: maskText(text, compileSecrets(valuesSecrets(e.values)), SOURCE_LIMIT) },
      };
    }
    if (method === 'GET' && path === 'lint') return { status: 200, body: { diagnostics: await lint.run() } };
    if (method === 'GET' && path === 'exchanges')
      return { status: 200, body: { exchanges: host.recorder.list(exchangeQuery(query, host.recorder.capacity)) } };
    const one = /^exchanges\/([^/]+)$/.exec(path);
    if (method === 'GET' && one) {
      const r = host.recorder.get(decodeURIComponent(one[1]!));
      if (!r)
        throw notFound(
          `no recorded exchange '${decodeURIComponent(one[1]!).slice(0, 128)}' (the console keeps the last ${host.recorder.capacity})`,
        );
      return { status: 200, body: r };
    }
    if (method === 'GET' && path === 'gateway') {
      const view = gatewayView(e, host.extensions());
      // keys to try are offered only where a gateway serves tools
      return { status: 200, body: { ...view, tryKeys: view.available ? tryKeys : [] } };
    }
    if (method === 'POST' && path === 'gateway/try') {
      const input = parseTryInput(body);
      if (typeof input === 'string') throw bad(input);
      if (!e.http.serves('POST', '/mcp'))
        throw notFound('this engine serves no gateway (POST /mcp): none of its route folders has a tools file');
      const tool = servedTool(host.extensions(), input.tool);
      if (input.confirmation && !tool?.confirm)
        throw bad(`'confirmation' answers a confirmation the gateway asked for; tool '${input.tool}' asks for none`);
      return { status: 200, body: { steps: await tryTool(e.url, input, tool) } };
    }
    const p = /^panels\/([a-z0-9-]+)(?:\/(.+))?$/.exec(path);
    if (p) {
      const panel = panels.find((x) => x.id === p[1]);
      if (!panel) throw notFound(`no console panel '${p[1]}'`);
      if (p[2] === undefined) {
        if (method !== 'GET')
          throw new PlatformError({
            kind: 'not-found',
            status: 405,
            title: 'Method not allowed',
            detail: `${method} is not allowed on /console/api/${path}; allowed: GET`,
            headers: { allow: 'GET' },
          });
        return { status: 200, body: await panel.describe() };
      }
      return panel.handle(method, p[2], Object.fromEntries(query), body);
    }
    // the gateway's audit trail: list and verify (audit-api.ts)
    const audit = await auditApi(e, method, path, query);
    if (audit) return audit;
    // failed exchanges: browse, replay, discard, audit (failed-api.ts)
    const failed = await failedApi(e, method, path, query, body, actor);
    if (failed) return failed;
    throw notFound(`no console API ${method} /console/api/${path}`);
  };

  const serveApi =
    (method: string) => async (req: IncomingMessage, res: ServerResponse, raw: string, correlationId: string) => {
      const url = new URL(req.url ?? '/', 'http://console');
      const refused = method === 'POST' ? notJson(req) : undefined;
      if (refused) return writeProblem(res, refused, correlationId, url.pathname);
      let body: unknown;
      if (raw) {
        try {
          body = JSON.parse(raw);
        } catch {
          return writeProblem(res, bad('the body is not valid JSON'), correlationId);
        }
      }
      try {
        // the operator the page names, for the audit of a replay or discard
        const actor = consoleActor(req.headers['x-console-user']);
        json(res, await api(method, url.pathname.slice('/console/api/'.length), url.searchParams, body, actor));
      } catch (err) {
        if (err instanceof PlatformError) return writeProblem(res, err, correlationId, url.pathname);
        throw err;
      }
    };
  for (const m of ['GET', 'POST', 'DELETE'] as const) http.addRaw(m, '/console/api/*', own(serveApi(m)));

  return {
    reload: () => {
      hosts = hostsOf(host.engine());
    },
    close: () => {
      unsubscribe();
      unwatch();
      if (ticker) clearInterval(ticker);
      for (const s of streams) s.end();
      streams.clear();
    },
  };
}

/**
 * Changes come from the console's own page only (its host and `Origin` are checked for every
 * request, above): a `POST` must also be JSON, which another site cannot send without a CORS
 * preflight the console never answers.
 */
function notJson(req: IncomingMessage): PlatformError | undefined {
  if (/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return undefined;
  return new PlatformError({
    kind: 'validation',
    status: 415,
    title: 'Unsupported media type',
    detail: "'content-type' must be application/json",
  });
}

/** The exchanges list's filters; a bad one is a 400 naming it. */
function exchangeQuery(
  q: URLSearchParams,
  capacity: number,
): { correlationId?: string; route?: string; status?: string; limit?: number } {
  const limit = q.get('limit');
  if (limit !== null && !(/^\d{1,6}$/.test(limit) && Number(limit) >= 1))
    throw bad(`'limit' must be a whole number from 1 to ${capacity}`);
  const status = q.get('status') || undefined;
  if (status !== undefined && !/^(ok|error|running|[1-5]\d\d)$/.test(status))
    throw bad("'status' must be ok, error, running or an HTTP status");
  return {
    correlationId: q.get('correlationId') || undefined,
    route: q.get('route') || undefined,
    status,
    limit: limit === null ? undefined : Math.min(Number(limit), capacity),
  };
}
