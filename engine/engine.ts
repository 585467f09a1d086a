// The engine: values, routes, services and the HTTP listener wired together. `lintProject`
// compiles everything and starts nothing; `startEngine` refuses to start on any diagnostic.

import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { loadValues, type ValuesSet } from './config/values.ts';
import { loadRoutes, type DocumentHandler } from './dsl/route-loader.ts';
import { DiagnosticError, type Diagnostic } from './dsl/diagnostics.ts';
import { createLogger } from './runtime/logger.ts';
import { Metrics } from './runtime/metrics.ts';
import { HttpClients } from './runtime/http-client.ts';
import { SchemaStore } from './runtime/schemas.ts';
import { createExchange } from './runtime/exchange.ts';
import { runRoute, type CompiledRoute } from './runtime/route.ts';
import { PlatformError } from './runtime/errors.ts';
import type { DirectCall, DirectResult, EngineServices } from './runtime/compile-context.ts';
import { SOURCE_KINDS } from './sources/registry.ts';
import { HttpServer } from './http/server.ts';
import { openApiDocument } from './http/openapi.ts';

export interface EngineOptions {
  /** route files or directories */
  routes: string[];
  valuesDir?: string;
  env?: string;
  set?: Record<string, string>;
  secretsDir?: string;
  port?: number;
  host?: string;
  root?: string;
  logger?: Logger;
  processEnv?: NodeJS.ProcessEnv;
  /** start the embedded simulators (default: the environment file's `sandbox: true`) */
  sandbox?: boolean;
  /** record requests on the simulators (default true; benchmarks turn it off) */
  sandboxRecord?: boolean;
  /** time allowed to in-flight exchanges at shutdown, ms */
  shutdownTimeoutMs?: number;
  /** extensions started after the routes (the gateway) */
  extensions?: EngineExtension[];
}

export interface EngineExtension {
  name: string;
  documents?(ctx: { values: ValuesSet; services: EngineServices }): DocumentHandler[];
  start?(engine: RunningEngine): Promise<void> | void;
}

export interface RunningEngine {
  url: string;
  port: number;
  routes: CompiledRoute[];
  services: EngineServices;
  values: ValuesSet;
  http: HttpServer;
  sandboxUrls: Record<string, string>;
  /** the embedded simulators, when the environment runs the sandbox */
  sandbox?: import('../sandbox/index.ts').Sandbox;
  call(routeId: string, init: DirectCall): Promise<DirectResult>;
  close(): Promise<void>;
}

interface Prepared {
  values: ValuesSet;
  services: EngineServices;
  routes: CompiledRoute[];
  diagnostics: Diagnostic[];
  closers: (() => Promise<void> | void)[];
  sandboxUrls: Record<string, string>;
  sandbox?: import('../sandbox/index.ts').Sandbox;
}

async function prepare(opts: EngineOptions, lintOnly: boolean): Promise<Prepared> {
  const root = resolve(opts.root ?? process.cwd());
  const logger = opts.logger ?? createLogger();
  const values = loadValues({
    dir: resolve(root, opts.valuesDir ?? 'values'),
    env: opts.env,
    set: opts.set,
    secretsDir: opts.secretsDir,
    processEnv: opts.processEnv,
    lenient: lintOnly,
  });
  const closers: (() => Promise<void> | void)[] = [];
  const services: EngineServices = {
    root,
    logger,
    metrics: new Metrics(!lintOnly),
    http: new HttpClients(),
    schemas: new SchemaStore(),
    callRoute: async () => { throw new Error('routes are not loaded yet'); },
    settings: values.environment.engine,
    lintOnly,
    onClose: (fn) => { closers.push(fn); },
    readiness: new Map(),
  };
  let sandboxUrls: Record<string, string> = {};
  let sandbox: import('../sandbox/index.ts').Sandbox | undefined;
  const wantSandbox = opts.sandbox ?? values.environment.sandbox;
  if (wantSandbox && !lintOnly) {
    const { startSandbox } = await import('../sandbox/index.ts');
    sandbox = await startSandbox({ logger: logger.child({ component: 'sandbox' }), record: opts.sandboxRecord });
    sandboxUrls = sandbox.urls;
    closers.push(() => sandbox!.close());
  } else if (wantSandbox || lintOnly) {
    // lint resolves sandbox references without starting anything
    sandboxUrls = new Proxy({}, { get: (_t, name) => `http://127.0.0.1:9/${String(name)}` }) as Record<string, string>;
  }
  values.keys.setSandboxUrls(sandboxUrls);
  const docs = (opts.extensions ?? []).flatMap((x) => x.documents?.({ values, services }) ?? []);
  const { routes, diagnostics } = loadRoutes(opts.routes.map((r) => resolve(root, r)), values, services, docs);
  return { values, services, routes, diagnostics, closers, sandboxUrls, sandbox };
}

/** Compiles every route and document; returns all diagnostics. Starts nothing. */
export async function lintProject(opts: EngineOptions): Promise<Diagnostic[]> {
  try {
    const p = await prepare(opts, true);
    await p.services.http.close();
    return p.diagnostics;
  } catch (e) {
    if (e instanceof DiagnosticError) return e.diagnostics;
    throw e;
  }
}

export async function startEngine(opts: EngineOptions): Promise<RunningEngine> {
  const p = await prepare(opts, false);
  const { services, routes } = p;
  const closeAll = async () => {
    for (const c of p.closers.reverse()) await c();
    await services.http.close();
  };
  if (p.diagnostics.length) {
    await closeAll();
    throw new DiagnosticError(p.diagnostics);
  }
  const byId = new Map(routes.map((r) => [r.id, r]));
  const call = async (id: string, init: DirectCall): Promise<DirectResult> => {
    const route = byId.get(id);
    if (!route) throw new PlatformError({ kind: 'config', detail: `no route '${id}'` });
    const correlationId = init.correlationId ?? randomUUID();
    const ex = createExchange({
      routeId: id, correlationId, body: init.body, headers: init.headers, query: init.query, params: init.params,
      user: init.user, logger: services.logger, signal: init.signal,
    });
    const out = await runRoute(route, ex, services.metrics);
    services.metrics.route(id).request(out.error ? out.error.status : ex.status);
    if (out.error) throw out.error;
    return { status: ex.status, body: ex.body, headers: ex.responseHeaders };
  };
  services.callRoute = call;
  let started = false;
  const http: HttpServer = new HttpServer({
    logger: services.logger,
    metrics: services.metrics,
    bodyLimit: services.settings.server.bodyLimit,
    trustProxy: services.settings.server.trustProxy,
    ready: () => {
      const checks: Record<string, boolean> = { started };
      for (const [name, fn] of services.readiness) checks[name] = fn();
      return { ready: Object.values(checks).every(Boolean), checks };
    },
    openapi: (): unknown => openApiDocument(http.httpRoutes() as any, { title: 'Integration platform unified API', version: '1.0.0' }),
  });
  const engine: RunningEngine = {
    url: '',
    port: 0,
    routes,
    services,
    values: p.values,
    http,
    sandboxUrls: p.sandboxUrls,
    sandbox: p.sandbox,
    call,
    close: async () => {
      started = false;
      await http.close(opts.shutdownTimeoutMs ?? services.settings.server.shutdownTimeout);
      await closeAll();
    },
  };
  try {
    for (const route of routes) {
      const sk = SOURCE_KINDS.get(route.source.kind)!;
      await sk.start?.(route, route.source.compiled, { http, services });
    }
    for (const x of opts.extensions ?? []) await x.start?.(engine);
    const port = opts.port ?? services.settings.server.port;
    const host = opts.host ?? services.settings.server.host;
    const address = await http.listen(port, host);
    engine.url = address;
    engine.port = Number(new URL(address).port);
    started = true;
  } catch (e) {
    await engine.close();
    throw e;
  }
  return engine;
}
