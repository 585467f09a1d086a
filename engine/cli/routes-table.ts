// `engine routes`: a table of the loaded routes (route-explain.ts: `--explain ID`, one route's inheritance).

import { routeTestDocuments } from '../dsl/route-test-documents.ts';
import { loadValues, type ValuesSet } from '../config/values.ts';
import { loadRoutes, type LoadResult } from '../dsl/route-loader.ts';
import { formatDiagnostic } from '../core/diagnostics.ts';
import { Metrics } from '../observability/metrics.ts';
import { HttpClients } from '../outbound/http-client.ts';
import { SchemaStore } from '../schemas/schemas.ts';
import { EngineTracing } from '../pipeline/tracing.ts';
import type { EngineOptions } from '../engine.ts';
import { resolve } from 'node:path';

/**
 * The routes of `opts` loaded as lint loads them (no server, simulator URLs stand-ins), with the values they
 * resolved from.
 */
export function loadForListing(opts: EngineOptions): LoadResult & { values: ValuesSet } {
  const root = resolve(opts.root ?? process.cwd());
  const values = loadValues({
    dir: resolve(root, opts.valuesDir ?? 'values'),
    env: opts.env,
    set: opts.set,
    secretsDir: opts.secretsDir,
    lenient: true,
    routes: opts.routes.map((r) => resolve(root, r)),
  });
  values.keys.setSimulatorUrls(
    new Proxy({}, { get: (_t, n) => `http://127.0.0.1:9/${String(n)}` }) as Record<string, string>,
  );
  const services = {
    root,
    logger: opts.logger!,
    metrics: new Metrics(false),
    http: new HttpClients(),
    schemas: new SchemaStore(),
    callRoute: async () => {
      throw new Error('not running');
    },
    settings: values.environment.engine,
    lintOnly: true,
    onClose: () => {},
    readiness: new Map(),
    tracing: new EngineTracing(),
  };
  // route-test files (`tests:`) live beside the routes in every project: a kind the engine knows itself
  const docs = [
    routeTestDocuments(),
    ...(opts.extensions ?? []).flatMap((x) => x.documents?.({ values, services }) ?? []),
  ];
  return {
    ...loadRoutes(
      opts.routes.map((r) => resolve(root, r)),
      values,
      services,
      docs,
    ),
    values,
  };
}

export async function listRoutes(opts: EngineOptions): Promise<string> {
  const { routes, diagnostics } = loadForListing(opts);
  const rows = routes.map((r) => {
    const c = r.source.config as { method?: string; path?: string; schedule?: string; queue?: string };
    const trigger =
      r.source.kind === 'http'
        ? `${c.method ?? 'POST'} ${c.path}`
        : r.source.kind === 'cron'
          ? `cron ${c.schedule}`
          : r.source.kind;
    return [r.id, trigger, r.connector ?? '', r.valuesName ?? '', r.file];
  });
  const head = ['ROUTE', 'SOURCE', 'CONNECTOR', 'VALUES', 'FILE'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  let out = [line(head), ...rows.map(line)].join('\n') + '\n';
  if (diagnostics.length)
    out += `\n${diagnostics.length} problem(s):\n` + diagnostics.map(formatDiagnostic).join('\n') + '\n';
  return out;
}
