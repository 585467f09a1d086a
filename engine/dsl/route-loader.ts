// Loads route files: YAML with positions, structure checked against the step and source
// schemas, {{placeholders}} resolved from the route's values file, every step compiled. All
// problems of all files are collected, so one lint run shows everything. `clients:` documents
// (client profiles, clients.ts) load first, so a step taking a client profile (its kind's
// `withClient`) can name one from any file. Such a document is also the connector document of
// its folder: a route there without `values:` takes the document's, and a route without
// `on-exception:` its handlers. What a step kind needs besides its compile (client profiles,
// references to routes and clients, the route's input schema) the loader asks its StepKind's
// hooks (steps/step-kind.ts): no step kind is named here.

import { readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative, dirname, resolve, sep } from 'node:path';
import { parseYamlFile, diagAt, formatPath, placeOf, type YamlSource, type YamlPath } from '../core/yaml-source.ts';
import { ConfigError, DiagnosticError, didYouMean, type Diagnostic } from '../core/diagnostics.ts';
import { RoutePaths, type ReservedPath } from '../http/route-paths.ts';
import { checkConfig } from '../schemas/config-check.ts';
import { ClientRegistry, type ConnectorDoc } from './clients.ts';
import { connectorFilesIn, connectorFileDiagnostics } from './connector-file.ts';
import { ROUTE_KEYS, HANDLER_SCHEMA, DEFAULT_HANDLER_SCHEMA } from './route-schema.ts';
import { placeDiagnostics, resolvePlaceholders, type PlaceholderUse } from '../config/placeholders.ts';
import { routeInstances } from './route-instances.ts';
import { rememberClients } from './route-inheritance.ts';
import type { ValuesSet, ValuesFile } from '../config/values.ts';
import { CompileContext, type EngineServices, type RouteInfo } from '../pipeline/compile-context.ts';
import { compileOutputCheck, type OutputCheck } from '../pipeline/output-check.ts';
import type { RouteDeadline } from '../pipeline/deadline.ts';
import { STEP_KINDS } from '../steps/registry.ts';
import { SOURCE_KINDS } from '../sources/registry.ts';
import { pipeline } from '../pipeline/pipeline.ts';
import type { Step } from '../steps/step-kind.ts';
import type { CompiledRoute, ExceptionHandler, RouteMeta } from '../pipeline/route.ts';
import { describeStep } from '../pipeline/tracing.ts';
import type { Expression } from '../expressions/expressions.ts';
import { counted } from '../pipeline/coverage.ts';
import { guarded } from '../steps/guard.ts';
import {
  compileTemplate,
  compileProblem,
  unknownTemplateCodes,
  TEMPLATE_SCHEMA,
  type TemplateFile,
} from '../pipeline/error-templates.ts';

/** Other documents that live beside routes (gateway tool files), recognised by a top-level key. */
export interface DocumentHandler {
  key: string;
  /**
   * Files of this kind told by their path alone (route tests: `tests/*.yaml`), which `engine run`
   * does not use: a run leaves them unread; lint checks them.
   */
  lintOnlyFiles?: (file: string) => boolean;
  load(src: YamlSource, values: ValuesSet): Diagnostic[];
  /**
   * called once every file is loaded, with the routes (checks that need them: tool targets) and the
   * load's diagnostics so far (a check may keep quiet where an earlier error misleads it)
   */
  finish?(routes: CompiledRoute[], diagnostics: readonly Diagnostic[]): Diagnostic[];
}

export interface LoadResult {
  routes: CompiledRoute[];
  diagnostics: Diagnostic[];
  files: string[];
  /** the client profiles loaded (`engine routes --explain` shows those a route uses) */
  clients: ClientRegistry;
}

export function findYamlFiles(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) {
      for (const e of readdirSync(p).sort()) walk(join(p, e));
    } else if (/\.ya?ml$/.test(p)) out.push(p);
  };
  for (const p of paths) walk(p);
  return out;
}

export function loadRoutes(
  paths: string[],
  values: ValuesSet,
  services: EngineServices,
  docs: DocumentHandler[] = [],
  opts: { run?: boolean; reservedPaths?: ReservedPath[] } = {},
): LoadResult {
  const diagnostics: Diagnostic[] = [];
  const routes: CompiledRoute[] = [];
  // the method and path of each HTTP route, as the listener's router will match them
  const taken = new RoutePaths(opts.reservedPaths);
  const unused = opts.run ? docs.flatMap((d) => d.lintOnlyFiles ?? []) : [];
  const files = findYamlFiles(paths).filter((f) => !unused.some((u) => u(f)));
  const ids = new Map<string, string>();
  /** the routes steps call by id (`to-direct`), checked once every route is loaded */
  const directCalls: { src: YamlSource; path: YamlPath; target: string; kind: string }[] = [];
  // ids of route files that failed to load: a call to one is a consequence, not a typo
  const failed = new Set<string>();
  const parsed: YamlSource[] = [];
  /** folders of files that could not be read (YAML syntax): what they use is not known */
  const unreadable: string[] = [];
  for (const file of files) {
    const rel = relative(process.cwd(), file) || file;
    try {
      parsed.push(parseYamlFile(rel));
    } catch (e) {
      if (e instanceof DiagnosticError) {
        diagnostics.push(...e.diagnostics);
        unreadable.push(dirname(rel));
        continue;
      }
      throw e;
    }
  }
  // client profiles first: routes name them whatever the order of the files
  const clients = new ClientRegistry();
  const isClients = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v) && 'clients' in v;
  const loaded = new Set<string>();
  for (const src of parsed.filter((x) => isClients(x.value))) {
    loaded.add(src.file);
    diagnostics.push(...connectorFileDiagnostics(src.file), ...clients.load(src, values));
  }
  // a route file given alone still sees the connector.yaml beside it, and those of the folders
  // above it within the project (client templates, routes/connector.yaml); connector-file.ts
  // says which names are read
  const top = resolve(services.root);
  for (const src of parsed) {
    for (let dir = dirname(src.file); ; dir = dirname(dir)) {
      for (const beside of connectorFilesIn(dir)) {
        if (beside === src.file || loaded.has(beside)) continue;
        loaded.add(beside);
        try {
          const c = parseYamlFile(beside);
          if (isClients(c.value))
            diagnostics.push(...connectorFileDiagnostics(beside), ...clients.load(c, values, false));
        } catch (e) {
          if (e instanceof DiagnosticError) diagnostics.push(...e.diagnostics);
          else throw e;
        }
      }
      const abs = resolve(dir);
      if (abs === top || !abs.startsWith(top + sep) || dirname(dir) === dir) break;
    }
  }
  diagnostics.push(...clients.link());
  // the on-exception handlers of connector documents: compiled (and their problems reported) once
  const defaults = new Map<ConnectorDoc, ExceptionHandler[]>();
  /** connector documents some route takes its on-exception from */
  const inheriting = new Set<ConnectorDoc>();
  for (const c of clients.connectors()) {
    if (c.onException === undefined || c.onExceptionBroken) continue;
    const ctx = new CompileContext(services, { id: c.src.file, file: c.src.file }, c.values, [], [], () => []);
    try {
      defaults.set(c, compileHandlers(c.onException, ctx, c.src, `connector document ${c.src.file}`, true));
    } catch (e) {
      if (e instanceof DiagnosticError) diagnostics.push(...e.diagnostics);
      else if (e instanceof ConfigError) diagnostics.push(diagAt(c.src, e.path, e.message));
      else throw e;
    }
  }
  for (const src of parsed) {
    const rel = src.file;
    const v = src.value;
    if (isClients(v)) continue;
    if (!v || typeof v !== 'object' || Array.isArray(v)) {
      diagnostics.push({
        file: rel,
        line: 1,
        col: 1,
        message: 'a route file holds a mapping with `id`, `from` and `steps`',
      });
      continue;
    }
    const doc = docs.find((d) => d.key in (v as object));
    if (doc) {
      diagnostics.push(...doc.load(src, values));
      continue;
    }
    const connector = clients.connectorOf(rel);
    if (connector && !('on-exception' in (v as object))) inheriting.add(connector);
    // a route template is one route per instance; a problem of the template is said once
    const { sources, diagnostics: templateDiags } = routeInstances(src);
    diagnostics.push(...templateDiags);
    const said = new Set<string>();
    for (const { src: one, params } of sources) {
      const refs = findReferences(one.value);
      for (const r of refs) {
        if (r.to === 'route') directCalls.push({ src: one, path: r.path, target: r.name, kind: r.kind });
        else clients.markUsed(rel, r.name);
      }
      try {
        const route = compileRoute(one, values, services, clients, defaults);
        if (params) route.instance = params;
        const named = [...new Set(refs.filter((r) => r.to === 'client').map((r) => r.name))];
        if (named.length) route.clients = named;
        rememberClients(route, clients);
        const written = one.value as Record<string, unknown>;
        if (
          written['check-output'] !== undefined &&
          written['output-schema'] === undefined &&
          !said.has('check-output')
        ) {
          said.add('check-output');
          diagnostics.push({
            ...diagAt(one, ['check-output'], "'check-output' has no effect without 'output-schema'", true),
            severity: 'warning',
          });
        }
        const prev = ids.get(route.id);
        if (prev) diagnostics.push(diagAt(src, ['id'], `duplicate route id '${route.id}' (also in ${prev})`));
        else {
          ids.set(route.id, rel);
          routes.push(route);
          const clash = claimPath(taken, route, one);
          if (clash) diagnostics.push(clash);
        }
      } catch (e) {
        if (!(e instanceof DiagnosticError)) throw e;
        for (const d of e.diagnostics) {
          const key = `${d.file}:${d.line}:${d.col}:${d.message}`;
          if (!said.has(key)) {
            said.add(key);
            diagnostics.push(d);
          }
        }
        const id = (one.value as { id?: unknown }).id;
        if (typeof id === 'string') failed.add(id);
      }
    }
    if (templateDiags.length && typeof (v as { id?: unknown }).id === 'string') failed.add((v as { id: string }).id);
  }
  // a file that could not be read may be what takes a profile or on-exception: no false "not used"
  const unknowable = (d: Diagnostic) =>
    unreadable.some((dir) => {
      const own = dirname(d.file);
      return dir === own || dir.startsWith(own + sep) || dir.startsWith(own + '/');
    });
  diagnostics.push(...[...clients.unused(), ...clients.unusedOnException(inheriting)].filter((d) => !unknowable(d)));
  for (const d of docs) if (d.finish) diagnostics.push(...d.finish(routes, diagnostics));
  // the instances of a route template share their calls' places: each place is said once
  const calledAt = new Set<string>();
  for (const c of directCalls) {
    if (ids.has(c.target) || !c.target) continue;
    const place = `${c.src.file}\0${c.path.join('\0')}\0${c.target}`;
    if (calledAt.has(place)) continue;
    calledAt.add(place);
    if (failed.has(c.target)) {
      diagnostics.push(diagAt(c.src, c.path, `${c.kind}: route '${c.target}' did not load (see its problems above)`));
      continue;
    }
    const s = didYouMean(c.target, ids.keys());
    diagnostics.push(
      diagAt(c.src, c.path, `${c.kind}: no route '${c.target}' is loaded${s ? `; did you mean '${s}'?` : ''}`),
    );
  }
  return { routes, diagnostics, files, clients };
}

/** An HTTP route's method and path taken in `taken`: a diagnostic at its `path` when another has them. */
function claimPath(taken: RoutePaths, route: CompiledRoute, src: YamlSource): Diagnostic | undefined {
  if (route.source.kind !== 'http') return undefined;
  const cfg = route.source.compiled as { method: string; path: string };
  // placed only should the claim fail (placeOf)
  const path: YamlPath = ['from', 'http', 'path'];
  const at = Object.assign(placeOf(src, path), { message: '', path: formatPath(path) });
  return taken.claim({ route: route.id, method: cfg.method, path: cfg.path, at });
}

/** A route or client profile a step names: where, and the step's kind. */
interface Reference {
  to: 'route' | 'client';
  name: string;
  path: YamlPath;
  kind: string;
}

/**
 * The routes and client profiles the steps of a route file name (their kinds' `references`),
 * however deeply nested (choice, split, loop, on-exception), each with its place in the file.
 */
function findReferences(v: unknown, path: YamlPath = [], out: Reference[] = []): Reference[] {
  if (Array.isArray(v)) v.forEach((x, i) => findReferences(x, [...path, i], out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      for (const r of STEP_KINDS.get(k)?.references?.(x) ?? []) {
        out.push({ to: r.to, name: r.name, path: [...path, k, ...r.at], kind: k });
      }
      findReferences(x, [...path, k], out);
    }
  }
  return out;
}

function compileRoute(
  src: YamlSource,
  valuesSet: ValuesSet,
  services: EngineServices,
  clients: ClientRegistry,
  defaults: Map<ConnectorDoc, ExceptionHandler[]>,
): CompiledRoute {
  const raw = src.value as Record<string, unknown>;
  const diags: Diagnostic[] = [];
  // top-level keys
  for (const k of Object.keys(raw)) {
    if (!(k in ROUTE_KEYS)) {
      const s = didYouMean(k, Object.keys(ROUTE_KEYS));
      diags.push(
        diagAt(
          src,
          [k],
          `unknown key '${k}' in route${s ? `; did you mean '${s}'?` : `; allowed: ${Object.keys(ROUTE_KEYS).join(', ')}`}`,
          true,
        ),
      );
    }
  }
  if (typeof raw.id !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(raw.id))
    diags.push(
      diagAt(
        src,
        raw.id === undefined ? [] : ['id'],
        raw.id === undefined ? "route is missing required key 'id'" : "'id' must be kebab-case (a-z, 0-9, -)",
      ),
    );
  if (!raw.from) diags.push(diagAt(src, [], "route is missing required key 'from'"));
  if (raw.steps !== undefined && !Array.isArray(raw.steps))
    diags.push(diagAt(src, ['steps'], "'steps' must be a list"));
  // the connector document of the folder: values and on-exception of routes that say none
  const connector = clients.connectorOf(src.file);
  let values: ValuesFile | undefined;
  // the values file the connector document names is missing: said there, and here once, at the
  // first placeholder (a route with none needs no values)
  let inheritedMissing: string | undefined;
  if (raw.values !== undefined) {
    values = valuesSet.find(String(raw.values));
    if (!values) {
      const s = didYouMean(String(raw.values), [
        ...valuesSet.names(),
        ...valuesSet.names().map((n) => n.split('/').pop()!),
      ]);
      diags.push(
        diagAt(
          src,
          ['values'],
          `values file '${raw.values}' not found under ${valuesSet.dir}${s ? `; did you mean '${s}'?` : `; available: ${valuesSet.names().join(', ')}`}`,
        ),
      );
      // said once, here: every placeholder of the route (and what an unresolved one breaks) would say it again
      throw new DiagnosticError(diags);
    }
  } else if (connector?.valuesName !== undefined) {
    values = connector.values;
    if (!values)
      inheritedMissing = `values file '${connector.valuesName}' of ${connector.src.file} (the values of this folder's routes) is not found: see the problem reported there`;
  }
  // without a source or a step list there is nothing more to check
  if (!raw.from || (raw.steps !== undefined && !Array.isArray(raw.steps))) throw new DiagnosticError(diags);

  const uses: PlaceholderUse[] = [];
  const placeholders = resolvePlaceholders(
    raw,
    values,
    src,
    uses,
    'the route, or to the connector document (connector.yaml) of its folder',
  );
  const resolved = placeholders.value as Record<string, any>;
  // the route's own placeholders (files its steps name add theirs to `uses` as they compile)
  const ownUses = [...uses];
  // the output check is on wherever an output-schema is, unless the route says `check-output: false`
  const checkOutput = resolved['check-output'];
  if (checkOutput !== undefined && typeof checkOutput !== 'boolean')
    diags.push(
      diagAt(
        src,
        ['check-output'],
        "'check-output' must be true or false (default true: the answer is checked against output-schema)",
      ),
    );
  const deadline = routeDeadline(resolved.deadline, (m, path) => diags.push(diagAt(src, path, m)));
  const route: RouteInfo = {
    id: resolved.id as string,
    file: src.file,
    checksOutput: !!resolved['output-schema'] && checkOutput !== false,
    from: fromOf(resolved.from),
  };
  const meta: RouteMeta = {};

  const stepList = (list: unknown, path: YamlPath, parent: CompileContext): Step[] => {
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list)) throw new DiagnosticError([diagAt(src, path, 'expected a list of steps')]);
    const out: Step[] = [];
    const errs: Diagnostic[] = [];
    list.forEach((item, i) => {
      const p = [...path, i];
      try {
        out.push(compileStep(item, p, parent, src, meta, clients));
      } catch (e) {
        if (e instanceof DiagnosticError) errs.push(...e.diagnostics);
        else if (e instanceof ConfigError) errs.push(diagAt(src, e.path, e.message, e.key));
        else throw e;
      }
    });
    if (errs.length) throw new DiagnosticError(errs);
    return out;
  };
  const ctx = new CompileContext(services, route, values, [], uses, stepList);

  const missing =
    inheritedMissing && placeholders.diagnostics.length
      ? [{ ...placeholders.diagnostics[0], message: inheritedMissing }]
      : [];
  const unresolved = inheritedMissing ? missing : placeholders.diagnostics;
  const errs: Diagnostic[] = [...diags];
  const collect = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (e) {
      if (e instanceof DiagnosticError) errs.push(...e.diagnostics);
      else if (e instanceof ConfigError) errs.push(diagAt(src, e.path, e.message, e.key));
      else throw e;
      return undefined;
    }
  };

  const source = collect(() => compileSource(resolved.from, ctx, src));
  const steps = collect(() => stepList(resolved.steps ?? [], ['steps'], ctx)) ?? [];
  // a route with its own on-exception (even `[]`) uses only its own; one without, its folder's
  const inherits = raw['on-exception'] === undefined && connector?.onException !== undefined;
  const handlers = inherits
    ? (defaults.get(connector!) ?? [])
    : (collect(() => compileHandlers(resolved['on-exception'], ctx, src, `route ${route.id}`)) ?? []);
  let output: OutputCheck | undefined;
  if (resolved['output-schema']) {
    collect(() => {
      const s = ctx.schema(resolved['output-schema'], ['output-schema']);
      meta.outputSchema = s.schema;
      if (route.checksOutput)
        output = compileOutputCheck(s.validate, s.file ?? String(resolved['output-schema']), s.schema);
    });
  }
  // a check where a placeholder did not resolve is no problem of its own; a value's is said at the values file
  if (errs.length || unresolved.length)
    throw new DiagnosticError(placeDiagnostics(unresolved, errs, ownUses, src, values));
  const coverage = services.lintOnly ? undefined : services.coverage;
  const handlerFile = inherits ? connector!.src.file : src.file;
  const handlerPoints = coverage
    ? handlers.map((h, i) =>
        coverage.point(
          route.id,
          handlerFile,
          'handler',
          ['on-exception', i],
          h.when ? `when ${matchText(h.when)}` : 'any error',
        ),
      )
    : undefined;
  return {
    id: route.id,
    file: src.file,
    description: resolved.description,
    connector:
      resolved.connector ??
      connector?.connector ??
      (values?.has('connector') ? String(values.get('connector')) : undefined),
    valuesName: values?.name,
    source: source!,
    meta,
    pipeline: pipeline(steps, services.tracing),
    handlers,
    tracing: services.tracing,
    ...(handlerPoints ? { handlerPoints } : {}),
    ...(output ? { output } : {}),
    ...(deadline ? { deadline } : {}),
    ...(inherits ? { handlersFrom: connector!.src.file } : {}),
    ...(raw.values === undefined && values ? { valuesFrom: connector!.src.file } : {}),
  };
}

function oneKey(
  item: unknown,
  path: YamlPath,
  src: YamlSource,
  what: string,
  kinds: Iterable<string>,
): [string, unknown] {
  if (!item || typeof item !== 'object' || Array.isArray(item) || Object.keys(item).length !== 1) {
    throw new DiagnosticError([
      diagAt(
        src,
        path,
        `a ${what} is a mapping with exactly one key, its kind (${[...kinds].join(', ')})${what === 'step' ? ', and optionally `if`' : ''}`,
      ),
    ]);
  }
  const [k, v] = Object.entries(item)[0];
  return [k, v];
}

function compileStep(
  item: unknown,
  path: YamlPath,
  parent: CompileContext,
  src: YamlSource,
  meta: RouteMeta,
  clients: ClientRegistry,
): Step {
  // `if: <JSONata>` beside the kind: the step runs only when it is truthy (a one-branch choice)
  let condition: unknown;
  if (item && typeof item === 'object' && !Array.isArray(item) && 'if' in item && Object.keys(item).length === 2) {
    const { if: cond, ...rest } = item as Record<string, unknown>;
    condition = cond;
    item = rest;
  } else if (
    item &&
    typeof item === 'object' &&
    !Array.isArray(item) &&
    Object.keys(item).length === 1 &&
    'if' in item
  ) {
    throw new DiagnosticError([
      diagAt(
        src,
        [...path, 'if'],
        "'if' guards the step beside it: write it next to the step's kind (- if: <condition>, then <kind>: ...)",
        true,
      ),
    ]);
  } else if (item && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).length === 2) {
    // a kind beside a key that is neither `if` nor a kind: most likely a misspelt `if`
    const keys = Object.keys(item);
    const kinds = keys.filter((k) => STEP_KINDS.has(k));
    if (kinds.length === 1) {
      const other = keys.find((k) => !STEP_KINDS.has(k))!;
      const s = didYouMean(other, ['if']);
      throw new DiagnosticError([
        diagAt(
          src,
          [...path, other],
          `unknown key '${other}' beside the ${kinds[0]} step${s ? `; did you mean '${s}'?` : ': a step has its kind and optionally `if` (a JSONata condition)'}`,
          true,
        ),
      ]);
    }
  }
  const [kind, cfg] = oneKey(item, path, src, 'step', STEP_KINDS.keys());
  const sk = STEP_KINDS.get(kind);
  if (!sk) {
    const s = didYouMean(kind, STEP_KINDS.keys());
    throw new DiagnosticError([
      diagAt(
        src,
        [...path, kind],
        `unknown step kind '${kind}'${s ? `; did you mean '${s}'?` : `; kinds: ${[...STEP_KINDS.keys()].join(', ')}`}`,
        true,
      ),
    ]);
  }
  // `transform: <file>`: the string stands for the kind's shorthand key (diagnostics of that key point at the string)
  if (sk.shorthand && cfg != null && typeof cfg !== 'string' && (typeof cfg !== 'object' || Array.isArray(cfg))) {
    throw new DiagnosticError([
      diagAt(
        src,
        [...path, kind],
        `'${kind}' must be a mapping, or a string: its ${sk.shorthand} (${kind}: <${sk.shorthand}> is short for ${kind}: { ${sk.shorthand}: <${sk.shorthand}> })`,
      ),
    ]);
  }
  let config = typeof cfg === 'string' && sk.shorthand ? { [sk.shorthand]: cfg } : (cfg ?? {});
  const d = checkConfig(config, sk.schema, src, [...path, kind], `${kind} step`);
  if (d.length) throw new DiagnosticError(d);
  if (sk.withClient) {
    try {
      config = clients.expand(config as Record<string, unknown>, src.file, sk.withClient);
    } catch (e) {
      if (e instanceof ConfigError) throw new DiagnosticError([diagAt(src, [...path, kind, ...e.path], e.message)]);
      throw e;
    }
  }
  const ctx = parent.rebase([...path, kind]);
  let guard: Expression | undefined;
  if (condition !== undefined) {
    if (typeof condition !== 'string')
      throw new DiagnosticError([
        diagAt(src, [...path, 'if'], "'if' is a JSONata condition (a string): the step runs only when it is truthy"),
      ]);
    try {
      guard = parent.rebase(path).expr(condition, ['if']);
    } catch (e) {
      if (e instanceof ConfigError) throw new DiagnosticError([diagAt(src, e.path, e.message)]);
      throw e;
    }
  }
  // named by its kind and place, for trace spans
  let compiled = sk.compile(config, ctx);
  // with coverage asked for (route tests), the step counts when it runs (a guarded one: when its `if` held)
  const point = parent.rebase(path).point('step', [], kind);
  if (point) compiled = counted(compiled, point);
  const step = describeStep(guard ? guarded(guard, compiled) : compiled, kind, [...path, kind]);
  // the first input schema a top-level step (run whatever the input) gives describes the route's input (OpenAPI, MCP)
  if (sk.inputSchema && path.length === 2 && !guard && !meta.inputSchema) {
    const s = sk.inputSchema(config, ctx);
    if (s) {
      meta.inputSchema = s.schema;
      meta.inputSchemaFile = s.file;
    }
  }
  return step;
}

function compileSource(from: unknown, ctx: CompileContext, src: YamlSource): CompiledRoute['source'] {
  const [kind, cfg] = oneKey(from, ['from'], src, 'source', SOURCE_KINDS.keys());
  const sk = SOURCE_KINDS.get(kind);
  if (!sk) {
    const s = didYouMean(kind, SOURCE_KINDS.keys());
    throw new DiagnosticError([
      diagAt(
        src,
        ['from', kind],
        `unknown source kind '${kind}'${s ? `; did you mean '${s}'?` : `; kinds: ${[...SOURCE_KINDS.keys()].join(', ')}`}`,
        true,
      ),
    ]);
  }
  const config = cfg ?? {};
  const d = checkConfig(config, sk.schema, src, ['from', kind], `${kind} source`);
  if (d.length) throw new DiagnosticError(d);
  return { kind, config, compiled: sk.compile(config, ctx.at(['from', kind])) };
}

/**
 * The handlers of a route's `on-exception`, or with `shared` of a connector document's (which the
 * routes of its folder share: no steps). `owner` names whose they are in expression errors.
 */
function compileHandlers(
  list: unknown,
  ctx: CompileContext,
  src: YamlSource,
  owner: string,
  shared = false,
): ExceptionHandler[] {
  if (list === undefined) return [];
  if (!Array.isArray(list))
    throw new DiagnosticError([diagAt(src, ['on-exception'], "'on-exception' must be a list of handlers")]);
  const out: ExceptionHandler[] = [];
  // template expressions run under the same limits as the route's, and errors name where they are
  const limits = ctx.services.settings?.expressions;
  list.forEach((h, i) => {
    const path = ['on-exception', i];
    if (shared && h && typeof h === 'object' && 'steps' in h) {
      throw new DiagnosticError([
        diagAt(
          src,
          [...path, 'steps'],
          "a connector document's on-exception handler runs no steps (it is shared by the routes of the folder): give the routes that need them an on-exception of their own",
          true,
        ),
      ]);
    }
    const d = checkConfig(h, shared ? DEFAULT_HANDLER_SCHEMA : HANDLER_SCHEMA, src, path, 'on-exception handler');
    if (d.length) throw new DiagnosticError(d);
    const handler: ExceptionHandler = { when: h.when, log: h.log };
    if (h.template) {
      const t = ctx.readJson(h.template, [...path, 'template']) as TemplateFile;
      // the template's problems are said at its own lines, where they are fixed
      const file = ctx.file(h.template, [...path, 'template']);
      const tsrc = parseYamlFile(relative(process.cwd(), file) || file);
      const at = (d: Diagnostic[]) =>
        d.map((x) => ({ ...x, message: `${x.message} (the error template of ${owner})` }));
      const td = at(checkConfig(t, TEMPLATE_SCHEMA, tsrc, [], 'error template'));
      const codes = unknownTemplateCodes(t, `in the error template of ${owner}`);
      if (td.length || codes.length)
        throw new DiagnosticError([...td, ...codes.map((c) => diagAt(tsrc, c.path, c.message))]);
      try {
        handler.template = compileTemplate(t, {
          ...limits,
          where: `${owner}, on-exception[${i}].template ${h.template}`,
        });
      } catch (e) {
        if (e instanceof ConfigError) throw new DiagnosticError(at([diagAt(tsrc, e.path, e.message, e.key)]));
        throw e;
      }
    }
    ctx.platformCode(h.problem?.code, [...path, 'problem', 'code']);
    if (h.problem)
      handler.problem = compileProblem(h.problem, [...path, 'problem'], {
        ...limits,
        where: `${owner}, on-exception[${i}].problem`,
      });
    if (h.steps) handler.steps = pipeline(ctx.steps(h.steps, [...path, 'steps']), ctx.services.tracing);
    out.push(handler);
  });
  return out;
}

/** A handler's `when` in a line: `status 404, vendorCode E1|E2`. */
function matchText(when: ExceptionHandler['when'] & object): string {
  return Object.entries(when)
    .map(([k, v]) => `${k} ${([] as unknown[]).concat(v).join('|')}`)
    .join(', ');
}

/** The `from` kind of a route and, for http, its method and path (the outbox keeps them with a webhook). */
function fromOf(from: unknown): RouteInfo['from'] {
  if (!from || typeof from !== 'object' || Array.isArray(from)) return undefined;
  const [kind, cfg] = Object.entries(from)[0] ?? [];
  if (!kind) return undefined;
  const c = (cfg ?? {}) as { method?: unknown; path?: unknown };
  return {
    kind,
    ...(typeof c.method === 'string' ? { method: c.method.toUpperCase() } : {}),
    ...(typeof c.path === 'string' ? { path: c.path } : {}),
  };
}

/** The route's `deadline:` (checked for its type by the route schema), or undefined. */
function routeDeadline(
  d: { total?: unknown; header?: unknown } | undefined,
  fail: (message: string, path: YamlPath) => void,
): RouteDeadline | undefined {
  if (!d || typeof d !== 'object') return undefined;
  const ms = Number(d.total);
  if (!Number.isInteger(ms) || ms < 1) {
    fail(`deadline total must be an integer of ms >= 1, got ${String(d.total)}`, ['deadline', 'total']);
    return undefined;
  }
  return { ms, ...(typeof d.header === 'string' && d.header ? { header: d.header.toLowerCase() } : {}) };
}
