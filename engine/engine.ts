// The engine: values, routes, services and the HTTP listener wired together. `lintProject`
// compiles everything and starts nothing; `startEngine` refuses to start on any diagnostic;
// `RunningEngine.reload` serves an edited project without a restart (reload/reload.ts).

import { performance } from 'node:perf_hooks';
import { routeTestDocuments } from './dsl/route-test-documents.ts';
import { newCorrelationId } from './core/correlation-id.ts';
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import { loadValues, type ValuesSet } from './config/values.ts';
import { checkEnvironment } from './config/environment-check.ts';
import { loadRoutes, type DocumentHandler } from './dsl/route-loader.ts';
import { selectConnectors } from './dsl/connector-selection.ts';
import { DiagnosticError, formatDiagnostic, isError, suggestion, type Diagnostic } from './core/diagnostics.ts';
import { shareYamlParses } from './core/yaml-source.ts';
import { createLogger, setLogSecrets } from './observability/logger.ts';
import { compileSecrets, valuesSecrets } from './observability/mask.ts';
import { Metrics, setRouteInfo } from './observability/metrics.ts';
import { HttpClients } from './outbound/http-client.ts';
import { SchemaStore } from './schemas/schemas.ts';
import { createExchange } from './pipeline/exchange.ts';
import { runRoute, type CompiledRoute } from './pipeline/route.ts';
import { PlatformError } from './core/errors.ts';
import type { DirectCall, DirectResult, EngineServices } from './pipeline/compile-context.ts';
import { HttpServer } from './http/server.ts';
import { ENGINE_PATHS, type ReservedPath } from './http/route-paths.ts';
import { ReloadQueue, reloadRoutes, startSources, type LiveRoutes, type ReloadResult } from './reload/reload.ts';
import { fingerprintRoutes, setRouteVersions } from './reload/reload-diff.ts';
import { startTracing, type TracingHandle } from './pipeline/tracing-sdk.ts';
import { EngineTracing } from './pipeline/tracing.ts';
import { announceEngineUrl } from './store/durable-for.ts';
import { checkReplicaStore } from './store/replica-check.ts';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

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
  /** run the environment on simulators an extension starts (default: the environment file's `simulated: true`) */
  simulated?: boolean;
  /** time allowed to in-flight exchanges at shutdown, ms */
  shutdownTimeoutMs?: number;
  /** extensions (the program's simulators, the gateway), in the order their hooks run */
  extensions?: EngineExtension[];
  /** spans go to this exporter (tests); otherwise tracing follows the OTEL_* variables of `processEnv` */
  tracing?: { exporter?: SpanExporter };
  /**
   * false: every to-eventhub step publishes directly, whatever its connector says (route tests, whose
   * event hub stub expects the event during the case); default: the connectors' `outbox` settings
   */
  outbox?: boolean;
  /**
   * lint: resolve the environmental keys as `startEngine` does (--set, the process environment, the
   * secrets directory, the environment file) and report each one missing, so that lint refuses what
   * a start would. Default: when `env` names an environment; without one lint checks the project alone.
   */
  resolveKeys?: boolean;
}

export interface PrepareContext {
  values: ValuesSet;
  services: EngineServices;
  /** lint, `engine routes`: nothing may be started */
  lintOnly: boolean;
  /** the environment runs on simulators (`simulated: true` or the `simulated` option) */
  simulated: boolean;
  /** the route files and directories being loaded (absolute): an extension may load its code only when they need it */
  routes: string[];
}

/** What an extension that simulates an environment's services declares, so the engine need not know them. */
export interface Simulation {
  /**
   * the environment it simulates (values/environments/<name>.yaml): route tests and the gateway's
   * tools commands default to it
   */
  environment: string;
  /**
   * the names of the simulators it starts (`simulator:NAME` references): lint, which starts none,
   * refuses a reference to any other, as a start would
   */
  simulators?: string[];
  /**
   * Simulators that are not plain HTTP services, by what a route test puts in their place:
   * `event-hub` the test's event hub stub (it records the published events), `amqp` a closed port
   * (a message source stays quiet). Route tests answer the other simulators with their catch-all.
   */
  standIns?: Record<string, 'event-hub' | 'amqp'>;
}

export interface EngineExtension {
  name: string;
  /** set by an extension that starts simulators (the program's embedded ones) */
  simulation?: Simulation;
  /**
   * Runs first, before the routes load. May start what the routes reach and return the base URLs
   * that `simulator:NAME` references resolve to. Closes what it starts through `services.onClose`.
   */
  prepare?(
    ctx: PrepareContext,
  ): Promise<{ simulatorUrls?: Record<string, string> } | void> | { simulatorUrls?: Record<string, string> } | void;
  /**
   * Paths the extension serves on the engine's listener (the gateway's /mcp), each with everything
   * under it: lint refuses a route on one, whether or not the extension is switched on.
   */
  paths?: string[];
  /** documents of other kinds in the route folders (the gateway's `tools:` files) */
  documents?(ctx: { values: ValuesSet; services: EngineServices }): DocumentHandler[];
  /**
   * The files of the values folder (relative paths) it reads for the documents of the last load:
   * `engine deploy-files` mounts them beside the connectors' values files
   */
  valuesFiles?(): string[];
  /** after the routes are registered, before the listener accepts connections */
  start?(engine: RunningEngine): Promise<void> | void;
  /** once the listener accepts connections: `engine.url` is known */
  listening?(engine: RunningEngine): Promise<void> | void;
  /**
   * After a reload swapped in new routes (`engine.routes`, `engine.values` and `engine.services`
   * are the new ones; `documents()` ran for this load): follow them (the gateway's tools).
   */
  reload?(engine: RunningEngine): Promise<void> | void;
}

export interface RunningEngine {
  url: string;
  port: number;
  /** the address it was told to listen on (`--host`, else engine.server.host) */
  host: string;
  routes: CompiledRoute[];
  services: EngineServices;
  values: ValuesSet;
  http: HttpServer;
  /**
   * The simulators' URLs by the extension that started them (`{ <extension>: { NAME: url } }`;
   * empty unless an extension supplied some): what `simulator:NAME` references resolved to
   */
  simulators: Record<string, Record<string, string>>;
  call(routeId: string, init: DirectCall): Promise<DirectResult>;
  /**
   * Lints the project again and, when clean, serves its routes without a restart; otherwise
   * keeps the last good ones. Reloads run one at a time; concurrent requests share one.
   * `reason` goes to the reload's log line (a signal, the files that changed).
   */
  reload(reason?: string): Promise<ReloadResult>;
  close(): Promise<void>;
}

interface Prepared {
  values: ValuesSet;
  services: EngineServices;
  routes: CompiledRoute[];
  diagnostics: Diagnostic[];
  closers: (() => Promise<void> | void)[];
  simulators: Record<string, Record<string, string>>;
  /** all of them, as `simulator:NAME` references resolve */
  simulatorUrls: Record<string, string>;
}

/** `lenient`: keys that do not resolve read as `<unresolved:KEY>` and are not reported (lint of the project alone). */
function readValues(opts: EngineOptions, root: string, lenient: boolean): ValuesSet {
  return loadValues({
    dir: resolve(root, opts.valuesDir ?? 'values'),
    env: opts.env,
    set: opts.set,
    secretsDir: opts.secretsDir,
    processEnv: opts.processEnv,
    lenient,
    // a scoped --set may name a property only a route placeholder uses
    routes: opts.routes.map((r) => resolve(root, r)),
  });
}

function loadProject(opts: EngineOptions, root: string, values: ValuesSet, services: EngineServices, run: boolean) {
  // route-test files (`tests:`) live beside the routes in every project: a kind the engine knows itself
  const docs = [
    routeTestDocuments(() => services.http.targets),
    ...(opts.extensions ?? []).flatMap((x) => x.documents?.({ values, services }) ?? []),
  ];
  // only the connectors the environment lists (`connectors:`), in a run, a reload and lint alike
  const selected = selectConnectors(
    opts.routes.map((r) => resolve(root, r)),
    values.environment,
  );
  const loaded = loadRoutes(selected.paths, values, services, docs, {
    run,
    reservedPaths: reservedPaths(opts.extensions ?? []),
  });
  return { ...loaded, diagnostics: [...selected.diagnostics, ...loaded.diagnostics] };
}

/** The paths no route may take: the engine's own and those its extensions serve. */
function reservedPaths(extensions: EngineExtension[]): ReservedPath[] {
  return [
    ...ENGINE_PATHS.map((path) => ({ path, owner: 'the engine' })),
    ...extensions.flatMap((x) => (x.paths ?? []).map((path) => ({ path, owner: `the ${x.name} extension` }))),
  ];
}

/**
 * `lintOnly`: nothing is started. `resolveKeys`: the environmental keys are resolved as a start
 * resolves them, each missing one a diagnostic (always so when something will start).
 */
async function prepare(opts: EngineOptions, lintOnly: boolean, resolveKeys = !lintOnly): Promise<Prepared> {
  const root = resolve(opts.root ?? process.cwd());
  const logger = opts.logger ?? createLogger();
  const values = readValues(opts, root, !resolveKeys);
  // each key that does not resolve is said once, after the load (config/missing-keys.ts)
  values.missing.collecting = true;
  const closers: (() => Promise<void> | void)[] = [];
  const services: EngineServices = {
    root,
    logger,
    metrics: new Metrics(!lintOnly),
    http: new HttpClients(),
    schemas: new SchemaStore(),
    callRoute: async () => {
      throw new Error('routes are not loaded yet');
    },
    settings: values.environment.engine,
    lintOnly,
    onClose: (fn) => {
      closers.push(fn);
    },
    readiness: new Map(),
    tracing: new EngineTracing(),
    ...(opts.outbox === false ? { outboxOff: true } : {}),
  };
  if (!lintOnly) services.http.guards.attach(services.metrics, logger);
  try {
    const simulated = opts.simulated ?? values.environment.simulated;
    let supplied: Record<string, string> | undefined;
    const simulators: Record<string, Record<string, string>> = {};
    for (const x of opts.extensions ?? []) {
      const out = await x.prepare?.({
        values,
        services,
        lintOnly,
        simulated,
        routes: opts.routes.map((r) => resolve(root, r)),
      });
      if (out?.simulatorUrls) {
        supplied = { ...supplied, ...out.simulatorUrls };
        simulators[x.name] = { ...simulators[x.name], ...out.simulatorUrls };
      }
    }
    const diagnostics: Diagnostic[] = [];
    if (!lintOnly && simulated && !supplied) {
      diagnostics.push({
        file: values.environment.file ?? resolve(root, opts.valuesDir ?? 'values'),
        line: 1,
        col: 1,
        message:
          `environment '${values.environment.name}' runs on simulators (simulated: true) but no extension ` +
          'starts the simulators; register the extension that does, as the engine program does',
      });
    }
    // lint (and a run missing its simulators, which stops on the diagnostic above) resolves
    // simulator references to stand-ins without starting anything
    values.keys.setSimulatorUrls(
      lintOnly || (simulated && !supplied) ? standIns(simulated, opts.extensions ?? []) : (supplied ?? {}),
    );
    diagnostics.push(...missingRoutePaths(opts.routes, root));
    const loaded = loadProject(opts, root, values, services, !lintOnly);
    // after the load: the routes' placeholders say which new properties an environment may add
    diagnostics.push(...checkEnvironment(values));
    values.missing.collecting = false;
    return {
      values,
      services,
      routes: loaded.routes,
      // the keys to set first: what else they break is not said again
      diagnostics: [...values.missing.diagnostics(opts.secretsDir), ...diagnostics, ...loaded.diagnostics],
      closers,
      simulators,
      simulatorUrls: supplied ?? {},
    };
  } catch (e) {
    // whatever an extension started (the simulators) stops again
    for (const c of closers.reverse())
      await Promise.resolve()
        .then(c)
        .catch(() => {});
    await services.http.close();
    throw e;
  }
}

const STAND_INS = new Proxy({}, { get: (_t, name) => `http://127.0.0.1:9/${String(name)}` }) as Record<string, string>;

/**
 * The URLs `simulator:NAME` references resolve to when nothing is started: in a simulated
 * environment only the simulators its extensions say they start, so lint refuses a name a start
 * would; elsewhere (or when no extension says) any name.
 */
function standIns(simulated: boolean, extensions: EngineExtension[]): Record<string, string> {
  const names = extensions.flatMap((x) => x.simulation?.simulators ?? []);
  if (!simulated || !names.length) return STAND_INS;
  return Object.fromEntries(names.map((n) => [n, STAND_INS[n]]));
}

/** A route file or folder named on the command line that does not exist: a typo, not an empty project. */
function missingRoutePaths(paths: string[], root: string): Diagnostic[] {
  return paths
    .filter((p) => !existsSync(resolve(root, p)))
    .map((p) => {
      const dir = dirname(resolve(root, p));
      const near = existsSync(dir) ? suggestion(basename(p), readdirSync(dir)) : '';
      return { file: p, line: 1, col: 1, message: `no such route file or folder${near}` };
    });
}

/** Compiles every route and document; returns all diagnostics. Starts nothing. */
export async function lintProject(opts: EngineOptions): Promise<Diagnostic[]> {
  try {
    const p = await prepare(opts, true, opts.resolveKeys ?? opts.env !== undefined);
    await p.services.http.close();
    return p.diagnostics;
  } catch (e) {
    if (e instanceof DiagnosticError) return e.diagnostics;
    throw e;
  }
}

/**
 * The routes as lint loads them (extensions prepared with `lintOnly`, simulators stand-ins, nothing
 * started), with the values they resolved from: `engine routes` and `--explain`. The extensions'
 * documents (the gateway's tools files) are read as in a run, so they are not taken for routes.
 */
export async function loadForListing(
  opts: EngineOptions,
): Promise<{ routes: CompiledRoute[]; diagnostics: Diagnostic[]; values: ValuesSet }> {
  const p = await prepare(opts, true);
  for (const c of p.closers.reverse()) await c();
  await p.services.http.close();
  return { routes: p.routes, diagnostics: p.diagnostics, values: p.values };
}

/** Runs a route for a `direct` source or a to-direct step: `lookup` gives the route as it is now. */
function directCaller(
  lookup: (id: string) => CompiledRoute | undefined,
  services: EngineServices,
): (id: string, init: DirectCall) => Promise<DirectResult> {
  return (id, init) => {
    const route = lookup(id);
    if (!route) return Promise.reject(new PlatformError({ kind: 'config', detail: `no route '${id}'` }));
    const correlationId = init.correlationId ?? newCorrelationId();
    const ex = createExchange({
      routeId: id,
      correlationId,
      body: init.body,
      headers: init.headers,
      query: init.query,
      params: init.params,
      user: init.user,
      logger: services.logger,
      signal: init.signal,
    });
    if (init.trace) ex.trace = init.trace;
    ex.sliceStart = init.sliceStart;
    const started = performance.now();
    // the outcome mapped inside runRoute's own promise (no async function of our own around it)
    return runRoute(route, ex, services.metrics, (out) => {
      // counted as an HTTP call of the route is: its status and its duration
      const rm = services.metrics.route(id);
      rm.request(out.error ? out.error.status : ex.status);
      rm.latency((performance.now() - started) / 1000);
      if (out.error) throw out.error;
      return { status: ex.status, body: ex.body, headers: ex.responseHeaders };
    });
  };
}

export interface OpenedEngine {
  routes: CompiledRoute[];
  services: EngineServices;
  values: ValuesSet;
  /** lint's findings: a caller that runs routes refuses on an error */
  diagnostics: Diagnostic[];
  close(): Promise<void>;
}

/**
 * The project as a run loads it (extensions prepared, routes compiled, direct calls wired) with no
 * source, listener or tracing started: `engine failed replay` runs routes in the CLI's own process.
 */
export async function openEngine(opts: EngineOptions): Promise<OpenedEngine> {
  const p = await prepare(opts, false);
  setLogSecrets(p.services.logger, compileSecrets(valuesSecrets(p.values)));
  const byId = new Map(p.routes.map((r) => [r.id, r]));
  p.services.callRoute = directCaller((id) => byId.get(id), p.services);
  return {
    routes: p.routes,
    services: p.services,
    values: p.values,
    diagnostics: p.diagnostics,
    close: async () => {
      for (const c of p.closers.reverse()) await c();
      await p.services.http.close();
    },
  };
}

export async function startEngine(opts: EngineOptions): Promise<RunningEngine> {
  // the route files parsed to compile them are parsed once more to fingerprint them: shared instead
  const releaseParses = shareYamlParses();
  try {
    return await start(opts, releaseParses);
  } finally {
    releaseParses();
  }
}

async function start(opts: EngineOptions, releaseParses: () => void): Promise<RunningEngine> {
  const p = await prepare(opts, false);
  const { services, routes } = p;
  setRouteInfo(services.metrics, routes);
  // the logger masks the configured secrets by value, in every form, compiled once per load
  setLogSecrets(services.logger, compileSecrets(valuesSecrets(p.values)));
  let live: LiveRoutes = {
    routes,
    byId: new Map(routes.map((r) => [r.id, r])),
    handles: new Map(),
    fingerprints: new Map(),
  };
  const closeAll = async () => {
    await Promise.allSettled([...live.handles.values()].map((h) => h.stop()));
    for (const c of p.closers.reverse()) await c();
    await services.http.close();
  };
  if (p.diagnostics.some(isError)) {
    await closeAll();
    throw new DiagnosticError(p.diagnostics);
  }
  if (p.diagnostics.length)
    services.logger.warn(
      { warnings: p.diagnostics.map(formatDiagnostic) },
      `${p.diagnostics.length} lint warning(s); starting`,
    );
  let tracing: TracingHandle | undefined;
  try {
    tracing = await startTracing({
      tracing: services.tracing,
      logger: services.logger,
      env: opts.processEnv,
      exporter: opts.tracing?.exporter,
    });
  } catch (e) {
    await closeAll();
    throw e;
  }
  const call = directCaller((id) => live.byId.get(id), services);
  services.callRoute = call;
  let started = false;
  const http: HttpServer = new HttpServer({
    logger: services.logger,
    metrics: services.metrics,
    bodyLimit: services.settings.server.bodyLimit,
    jsonDepthLimit: services.settings.server.jsonDepthLimit,
    connections: services.settings.server,
    ready: () => {
      const checks: Record<string, boolean> = { started };
      for (const [name, fn] of services.readiness) checks[name] = fn();
      return { ready: Object.values(checks).every(Boolean), checks };
    },
    // the OpenAPI generator loads on the first request for the document, not at every start
    openapi: async (): Promise<unknown> =>
      (await import('./http/openapi.ts')).openApiDocument(
        http.httpRoutes(),
        { title: 'Integration platform unified API', version: '1.0.0' },
        {
          serverUrl: engine.url || undefined,
          mcp: http.serves('POST', '/mcp'),
        },
      ),
  });
  let closed = false;
  const reloads = new ReloadQueue((reason) =>
    reloadRoutes(
      {
        root: services.root,
        logger: services.logger,
        http,
        live: () => live,
        lint: async () =>
          closed
            ? [{ file: services.root, line: 1, col: 1, message: 'the engine is shutting down' }]
            : lintProject({ ...opts, logger: createLogger('silent') }),
        load: async () => {
          const values = readValues(opts, services.root, false);
          values.keys.setSimulatorUrls(p.simulatorUrls);
          values.missing.collecting = true;
          // a new schema store: edited schema files compile again; pools, metrics and hooks are shared
          const next: EngineServices = {
            ...services,
            schemas: new SchemaStore(),
            settings: values.environment.engine,
            callRoute: call,
          };
          const loaded = loadProject(opts, services.root, values, next, true);
          values.missing.collecting = false;
          return {
            values,
            services: next,
            ...loaded,
            diagnostics: [...values.missing.diagnostics(opts.secretsDir), ...loaded.diagnostics],
          };
        },
        commit: async (next, values, nextServices) => {
          live = next;
          engine.routes = next.routes;
          setRouteInfo(services.metrics, next.routes);
          engine.values = values;
          engine.services = nextServices;
          setLogSecrets(services.logger, compileSecrets(valuesSecrets(values)));
          const was = services.settings.server;
          const now = nextServices.settings.server;
          if (was.port !== now.port || was.host !== now.host)
            services.logger.warn(
              { port: now.port, host: now.host },
              'reload: engine.server port and host apply at the next restart',
            );
          // the store (and its Redis connection) is kept across reloads; say so rather than ignore the edit
          if (JSON.stringify(services.settings.store) !== JSON.stringify(nextServices.settings.store))
            services.logger.warn('reload: engine.store applies at the next restart');
          for (const x of opts.extensions ?? []) {
            try {
              await x.reload?.(engine);
            } catch (err) {
              services.logger.error(
                { err, extension: x.name },
                `reload: extension '${x.name}' could not follow the new routes`,
              );
            }
          }
        },
      },
      reason,
    ),
  );
  let withdrawUrl = () => {};
  const engine: RunningEngine = {
    url: '',
    port: 0,
    host: opts.host ?? services.settings.server.host,
    routes,
    services,
    values: p.values,
    http,
    simulators: p.simulators,
    call,
    reload: (reason = 'requested') => reloads.request(reason),
    close: async () => {
      started = false;
      closed = true;
      withdrawUrl();
      await reloads.idle();
      await http.close(opts.shutdownTimeoutMs ?? services.settings.server.shutdownTimeout);
      await closeAll();
      // last: the spans of exchanges that finished during the shutdown are flushed too
      await tracing?.shutdown();
    },
  };
  try {
    // versions before the sources start: the first failed exchange already names its route's
    const fingerprints = fingerprintRoutes(routes, p.values, services.root);
    setRouteVersions(routes, fingerprints);
    // several replicas that would each remember keys on their own: refused before any source or
    // listener starts; one replica: warned of once (store/replica-check.ts)
    if (!(opts.simulated ?? p.values.environment.simulated))
      checkReplicaStore(services, p.values.environment.name, services.logger, opts.processEnv);
    const { handles } = await startSources(routes, http, services);
    live = { ...live, handles, fingerprints };
    releaseParses();
    for (const x of opts.extensions ?? []) await x.start?.(engine);
    const port = opts.port ?? services.settings.server.port;
    const address = await http.listen(port, engine.host);
    engine.url = address;
    engine.port = Number(new URL(address).port);
    // `engine failed` beside this engine works through its console API (docs/failed-exchanges.md)
    withdrawUrl = announceEngineUrl(services, address);
    for (const x of opts.extensions ?? []) await x.listening?.(engine);
    started = true;
  } catch (e) {
    await engine.close();
    throw e;
  }
  return engine;
}
