// What the console's Routes and Gateway pages show, computed from the running engine: each
// loaded route with its diagram, values (secrets masked), what it inherits (dsl/route-inheritance.ts,
// as `engine routes --explain` prints it) and the gateway tools that call it; lint diagnostics
// of the project on disk; the gateway's subscriptions and tools.

import { dirname, relative, resolve, sep } from 'node:path';
import type { RunningEngine, EngineExtension } from '../engine.ts';
import type { ValuesFile } from '../config/values.ts';
import { isSecretKey } from '../config/env-keys.ts';
import { maskSecret, maskText } from '../observability/mask.ts';
import { lintProject } from '../engine.ts';
import { createLogger } from '../observability/logger.ts';
import type { Diagnostic } from '../core/diagnostics.ts';
import type { GatewayExtension } from '../gateway/index.ts';
import { approvalState, readApprovals, type Tool } from '../gateway/tools.ts';
import { routeGraph, type GraphStep, type RouteGraph } from './route-graph.ts';
import { routeInheritance, type RouteInheritance } from '../dsl/route-inheritance.ts';

export interface RouteView {
  id: string;
  connector?: string;
  description?: string;
  file: string;
  source: { kind: string; label: string };
  valuesName?: string;
  values: { key: string; value: string; origin: string }[];
  tools: string[];
  graph?: RouteGraph;
  /** what it takes from elsewhere, as `engine routes --explain` prints it (secrets masked) */
  inherits: RouteInheritance;
}

/**
 * The gateway extension, when it loaded: the CLI's stands in for it until a load has a tools file
 * (engine/cli/extensions.ts), and that stand-in has no tools at all, so an engine of routes without
 * tools shows the gateway absent.
 */
const gatewayOf = (extensions: EngineExtension[]) => {
  const g = extensions.find((x) => x.name === 'gateway') as Partial<GatewayExtension> | undefined;
  return Array.isArray(g?.tools) ? (g as GatewayExtension) : undefined;
};

/** A tool the running gateway serves, by name (what the try-it form calls). */
export function servedTool(extensions: EngineExtension[], name: string): Tool | undefined {
  return gatewayOf(extensions)?.running?.served.find((t) => t.name === name);
}

export function routeViews(engine: RunningEngine, extensions: EngineExtension[]): RouteView[] {
  const tools = gatewayOf(extensions)?.tools ?? [];
  const root = engine.services.root;
  return engine.routes.map((r) => {
    const values = r.valuesName ? engine.values.find(r.valuesName) : undefined;
    const shown = values ? shownValues(values) : [];
    const graph = routeGraph(r.file, (k) => shown.find((v) => v.key === k)?.value, r.handlersFrom, r.instance, root);
    return {
      id: r.id,
      connector: r.connector,
      description: r.description,
      file: relative(root, r.file),
      source: graph?.source ?? { kind: r.source.kind, label: r.source.kind },
      valuesName: r.valuesName,
      values: shown,
      tools: tools.filter((t) => t.route === r.id).map((t) => t.name),
      graph,
      inherits: routeInheritance(r, engine.values, root),
    };
  });
}

/**
 * The files the console shows the source of (`GET /console/api/source`): those the diagrams open,
 * each loaded route's file, the connector documents of its handlers and the .jsonata its steps run.
 */
export function sourceFiles(views: RouteView[]): Set<string> {
  const out = new Set<string>();
  const walk = (nodes: GraphStep[]) => {
    for (const n of nodes) {
      if (n.source) out.add(n.source.file);
      for (const b of n.branches ?? []) walk(b.steps);
    }
  };
  for (const v of views) {
    out.add(v.file);
    if (v.graph?.source.file) out.add(v.graph.source.file);
    walk(v.graph?.steps ?? []);
    for (const h of v.graph?.onException ?? []) walk(h.steps);
  }
  return out;
}

/** A values file's properties as this environment resolves them, secrets masked. */
function shownValues(f: ValuesFile): RouteView['values'] {
  return f
    .keysList()
    .sort()
    .map((key) => {
      const p = f.props.get(key)!;
      const secret =
        isSecretKey(key) ||
        (typeof p.value === 'string' &&
          [...p.value.matchAll(/\$\{([A-Za-z0-9_.-]+)\}/g)].some((m) => isSecretKey(m[1]!)));
      let v: unknown;
      try {
        v = f.get(key);
      } catch {
        v = '<unset>';
      }
      const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
      return { key, value: secret ? maskSecret(text) : maskText(text), origin: p.origin };
    });
}

/**
 * The project's lint diagnostics (the files on disk, as `engine lint` reports them), with paths
 * relative to the project root. One run at a time; a request during a run shares it.
 */
export class LintView {
  private running?: Promise<Diagnostic[]>;
  constructor(
    private engine: () => RunningEngine,
    private extensions: () => EngineExtension[],
  ) {}

  run(): Promise<Diagnostic[]> {
    return (this.running ??= this.lint().finally(() => {
      this.running = undefined;
    }));
  }

  private async lint(): Promise<Diagnostic[]> {
    const e = this.engine();
    const root = e.services.root;
    const env = e.values.environment.file ? e.values.environment.name : undefined;
    const diags = await lintProject({
      // route files are named relative to the working directory, which need not be the root
      routes: [routeFolder(e.routes.map((r) => resolve(r.file)))],
      root,
      env,
      valuesDir: e.values.dir,
      logger: createLogger('silent'),
      extensions: this.extensions(),
      // the engine's own keys (its --set, --secrets) are not known here: a reload's lint checks them
      resolveKeys: false,
    });
    return diags.map((d) => ({ ...d, file: relative(root, d.file) }));
  }
}

/** The deepest folder holding every loaded route file (routes/ for the whole project). */
function routeFolder(files: string[]): string {
  if (!files.length) return '.';
  let dir = dirname(files[0]!);
  while (!files.every((f) => f.startsWith(dir + sep)) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export interface GatewayView {
  available: boolean;
  env?: string;
  subscriptions: { name: string; tools: string[]; keys: number }[];
  tools: {
    name: string;
    route: string;
    security: string;
    /** declared `confirm: required`: the user confirms each call */
    confirm: boolean;
    title?: string;
    description?: string;
    inputSchema?: unknown;
    outputSchema?: unknown;
    approval: string;
    served: boolean;
    file: string;
  }[];
}

export function gatewayView(engine: RunningEngine, extensions: EngineExtension[]): GatewayView {
  const g = gatewayOf(extensions);
  if (!g || !g.tools.length) return { available: false, subscriptions: [], tools: [] };
  const running = g.running;
  const env = running?.settings.env ?? engine.values.environment.name;
  const approvals = readApprovals(engine.values.dir);
  const served = new Set(running?.served.map((t) => t.name) ?? []);
  return {
    available: running !== undefined,
    env,
    subscriptions: (running?.settings.subscriptions ?? []).map((s) => ({
      name: s.name,
      keys: s.hashes.length,
      tools: s.tools.includes('*') ? [...served] : s.tools.filter((t) => served.has(t)),
    })),
    tools: g.tools.map((t) => {
      const d = t.definition as { title?: string; description?: string; inputSchema?: unknown; outputSchema?: unknown };
      return {
        name: t.name,
        route: t.route,
        security: t.security,
        confirm: t.confirm,
        title: d.title,
        description: d.description,
        inputSchema: d.inputSchema,
        outputSchema: d.outputSchema,
        approval: approvalState(t, approvals, env),
        served: served.has(t.name),
        file: relative(engine.services.root, t.file),
      };
    }),
  };
}
