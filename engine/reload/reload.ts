// Reload without restart: lint the project, compile it for serving, start what the new routes
// need beside the old ones, then swap (HTTP router, direct calls, extensions) in one step.
// Exchanges in flight finish on the routes they started on; the listener stays open. Sources of
// unchanged routes (AMQP consumers, schedules) keep running on the newly compiled route; those
// of changed and removed routes stop after the swap (their messages in flight finish first).
// A lint or compile problem keeps the last good routes and reports the diagnostics.

import type { Logger } from 'pino';
import type { ValuesSet } from '../config/values.ts';
import { DiagnosticError, formatDiagnostic, isError, type Diagnostic } from '../core/diagnostics.ts';
import type { HttpServer, RouteRegistrar } from '../http/server.ts';
import { SOURCE_KINDS } from '../sources/registry.ts';
import type { SourceHandle } from '../sources/source-kind.ts';
import type { EngineServices } from '../pipeline/compile-context.ts';
import type { CompiledRoute } from '../pipeline/route.ts';
import { describeChanges, diffRoutes, fingerprintRoutes, setRouteVersions, type RouteChanges } from './reload-diff.ts';

/** The routes being served and what runs them. */
export interface LiveRoutes {
  routes: CompiledRoute[];
  byId: Map<string, CompiledRoute>;
  /** running sources (consumers, schedules) by route id */
  handles: Map<string, SourceHandle>;
  fingerprints: Map<string, string>;
}

export type ReloadResult =
  ({ ok: true; ms: number } & RouteChanges) | { ok: false; ms: number; diagnostics: Diagnostic[] };

export interface ReloadHost {
  root: string;
  logger: Logger;
  http: HttpServer;
  live(): LiveRoutes;
  /** the project's diagnostics, as `engine lint` finds them */
  lint(): Promise<Diagnostic[]>;
  /** values and routes compiled for serving, with the services they were compiled with */
  load(): Promise<{ values: ValuesSet; services: EngineServices; routes: CompiledRoute[]; diagnostics: Diagnostic[] }>;
  /** makes the new routes current (direct calls, the engine's fields, extensions) */
  commit(live: LiveRoutes, values: ValuesSet, services: EngineServices): Promise<void>;
}

/** Starts the sources of `routes` (HTTP routes register on `http`); returns the running ones. */
export async function startSources(
  routes: CompiledRoute[],
  http: RouteRegistrar,
  services: EngineServices,
  keep: (route: CompiledRoute) => SourceHandle | undefined = () => undefined,
): Promise<{ handles: Map<string, SourceHandle>; started: SourceHandle[] }> {
  const handles = new Map<string, SourceHandle>();
  const started: SourceHandle[] = [];
  try {
    for (const route of routes) {
      const kept = keep(route);
      if (kept) {
        handles.set(route.id, kept);
        continue;
      }
      const h = await SOURCE_KINDS.get(route.source.kind)!.start?.(route, route.source.compiled, { http, services });
      if (h) {
        handles.set(route.id, h);
        started.push(h);
      }
    }
  } catch (e) {
    await Promise.allSettled(started.map((h) => h.stop()));
    throw e;
  }
  return { handles, started };
}

export async function reloadRoutes(host: ReloadHost, reason: string): Promise<ReloadResult> {
  const t0 = performance.now();
  const ms = () => Math.round(performance.now() - t0);
  const refused = (diagnostics: Diagnostic[]): ReloadResult => {
    const out = { ok: false as const, ms: ms(), diagnostics };
    host.logger.warn(
      { reason, problems: diagnostics.map(formatDiagnostic), ms: out.ms },
      `reload refused: ${diagnostics.length} problem(s); still serving the previous routes`,
    );
    return out;
  };
  const failed = (e: unknown): Diagnostic[] =>
    e instanceof DiagnosticError
      ? e.diagnostics
      : [{ file: host.root, line: 1, col: 1, message: `reload failed: ${e instanceof Error ? e.message : String(e)}` }];

  let next: Awaited<ReturnType<ReloadHost['load']>>;
  try {
    const lint = await host.lint();
    if (lint.some(isError)) return refused(lint);
    next = await host.load();
  } catch (e) {
    return refused(failed(e));
  }
  if (next.diagnostics.some(isError)) return refused(next.diagnostics);

  const prev = host.live();
  const fingerprints = fingerprintRoutes(next.routes, next.values, host.root);
  setRouteVersions(next.routes, fingerprints);
  const changes = diffRoutes(prev.fingerprints, fingerprints);
  const server = next.services.settings.server;
  host.http.setLimits(server);
  const stage = host.http.stage();
  const kept: [SourceHandle, CompiledRoute][] = [];
  let handles: Map<string, SourceHandle>;
  try {
    // a route whose fingerprint did not change keeps its running source (its AMQP connection)
    ({ handles } = await startSources(next.routes, stage, next.services, (route) => {
      const h = prev.handles.get(route.id);
      if (!h || prev.fingerprints.get(route.id) !== fingerprints.get(route.id)) return undefined;
      kept.push([h, route]);
      return h;
    }));
  } catch (e) {
    return refused(failed(e));
  }

  stage.commit();
  for (const [h, route] of kept) h.retarget(route);
  await host.commit(
    { routes: next.routes, byId: new Map(next.routes.map((r) => [r.id, r])), handles, fingerprints },
    next.values,
    next.services,
  );

  const stopped = [...prev.handles].filter(([id, h]) => handles.get(id) !== h);
  const results = await Promise.allSettled(stopped.map(([, h]) => h.stop()));
  results.forEach((r, i) => {
    if (r.status === 'rejected')
      host.logger.warn(
        { route: stopped[i][0], err: r.reason },
        'reload: the previous source of a route did not stop cleanly',
      );
  });
  const out: ReloadResult = { ok: true, ms: ms(), ...changes };
  const warnings = next.diagnostics.length ? { warnings: next.diagnostics.map(formatDiagnostic) } : {};
  host.logger.info(
    {
      reason,
      added: changes.added,
      removed: changes.removed,
      changed: changes.changed,
      routes: next.routes.length,
      ms: out.ms,
      ...warnings,
    },
    `routes reloaded in ${out.ms} ms: ${describeChanges(changes)}`,
  );
  return out;
}

/**
 * Runs reloads one at a time. A request while one runs is queued; further requests while one
 * is queued share it (a burst of triggers costs at most one more reload).
 */
export class ReloadQueue {
  private running?: Promise<ReloadResult>;
  private queued?: Promise<ReloadResult>;

  constructor(private run: (reason: string) => Promise<ReloadResult>) {}

  request(reason: string): Promise<ReloadResult> {
    if (this.queued) return this.queued;
    if (this.running) {
      const q = this.running
        .catch(() => undefined)
        .then(() => {
          this.queued = undefined;
          return this.start(reason);
        });
      this.queued = q;
      return q;
    }
    return this.start(reason);
  }

  /** Resolves once no reload runs or waits. */
  async idle(): Promise<void> {
    while (this.running || this.queued) await (this.queued ?? this.running)!.catch(() => undefined);
  }

  private start(reason: string): Promise<ReloadResult> {
    const p = this.run(reason).finally(() => {
      if (this.running === p) this.running = undefined;
    });
    this.running = p;
    return p;
  }
}
