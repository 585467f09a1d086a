// What a step sees while it compiles: the route's values, file access relative to the project,
// the shared JSON Schema compiler, JSONata compilation, shared services. Everything costly
// (schemas, expressions, URL templates) is built here, once per route load.

import { readFileSync, existsSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import type { Context } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { ValidateFunction } from 'ajv';
import { ConfigError, DiagnosticError, textPosition } from '../core/diagnostics.ts';
import { formatPath, type YamlPath } from '../core/yaml-source.ts';
import { fileSuggestion, stepFile } from '../core/step-file.ts';
import type { ValuesFile } from '../config/values.ts';
import { resolveTextPlaceholders, type PlaceholderUse } from '../config/placeholders.ts';
import type { EngineSettings } from '../config/engine-settings.ts';
import { compileExpression, type Expression } from '../expressions/expressions.ts';
import { unknownCode } from '../core/error-catalog.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { HttpClients } from '../outbound/http-client.ts';
import { SchemaProblemsError, type SchemaStore } from '../schemas/schemas.ts';
import type { Step } from './pipeline.ts';
import type { EngineTracing } from './tracing.ts';
import type { Coverage, CoveragePoint, PointKind } from './coverage.ts';

/** Services shared by every route of an engine. */
export interface EngineServices {
  root: string;
  logger: Logger;
  metrics: Metrics;
  http: HttpClients;
  schemas: SchemaStore;
  /** calls a route in-process (direct routes); filled once all routes are loaded */
  callRoute: (id: string, init: DirectCall) => Promise<DirectResult>;
  /** engine-wide settings from the environment file's `engine:` section */
  settings: EngineSettings;
  /** lint mode: compile everything, start nothing */
  lintOnly: boolean;
  /** hooks run at shutdown (sources, pools, timers) */
  onClose: (fn: () => Promise<void> | void) => void;
  /** readiness checks (AMQP connections, ...) */
  readiness: Map<string, () => boolean>;
  /** this engine's tracer, span consumers and span detail (reloads keep it) */
  tracing: EngineTracing;
  /** every to-eventhub publishes directly, the outbox settings notwithstanding (route tests) */
  outboxOff?: boolean;
  /** set by `engine test --coverage`: the routes count the steps, branches and handlers that run */
  coverage?: Coverage;
}

export interface DirectCall {
  body?: unknown;
  headers?: Record<string, string | undefined>;
  query?: Record<string, string | undefined>;
  params?: Record<string, string>;
  user?: { id: string; authenticated: boolean };
  correlationId?: string;
  signal?: AbortSignal;
  /** the trace context the exchange continues (the caller's span), instead of a traceparent header */
  trace?: Context;
  /** the caller's stretch of synchronous work (Exchange.sliceStart): the called route's steps go on timing it */
  sliceStart?: number;
}

export interface DirectResult {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface RouteInfo {
  id: string;
  file: string;
  /**
   * the route's answer is checked against its output-schema: vendor calls keep their answer for the log of a
   * failed check
   */
  checksOutput?: boolean;
  /** the `from` kind (http, amqp, cron, direct) and, for http, its method and path template */
  from?: { kind: string; method?: string; path?: string };
}

export type StepListCompiler = (list: unknown, path: YamlPath, ctx: CompileContext) => Step[];

export class CompileContext {
  constructor(
    readonly services: EngineServices,
    readonly route: RouteInfo,
    readonly values: ValuesFile | undefined,
    /** absolute YAML path of the config being compiled */
    readonly base: YamlPath,
    private readonly uses: PlaceholderUse[],
    private readonly stepList: StepListCompiler,
  ) {}

  /** A context for the config at the absolute path `abs`. */
  rebase(abs: YamlPath): CompileContext {
    return new CompileContext(this.services, this.route, this.values, abs, this.uses, this.stepList);
  }

  at(path: YamlPath): CompileContext {
    return new CompileContext(
      this.services,
      this.route,
      this.values,
      [...this.base, ...path],
      this.uses,
      this.stepList,
    );
  }

  /** Throws a diagnostic at `path` below the current config. */
  fail(message: string, path: YamlPath = []): never {
    throw new ConfigError(message, [...this.base, ...path]);
  }

  /** A platform `code` a route gives (undefined when it gives none); one the catalog does not have is refused. */
  platformCode(code: string | undefined, path: YamlPath): string | undefined {
    const why = code === undefined ? undefined : unknownCode(code);
    if (why) this.fail(why, path);
    return code;
  }

  expr(source: unknown, path: YamlPath): Expression {
    if (typeof source !== 'string')
      this.fail(`expected a JSONata expression (a string), got ${JSON.stringify(source)}`, path);
    try {
      // the engine's limits bound every evaluation; a limit error names the route and step
      const where = `route ${this.route.id}, ${formatPath([...this.base, ...path])}`;
      return compileExpression(source as string, [], { ...this.services.settings?.expressions, where });
    } catch (e) {
      if (e instanceof ConfigError) this.fail(e.message, path);
      throw e;
    }
  }

  /**
   * A JSONata expression from a project file (transforms/...), compiled once; its syntax errors say
   * the file's line and column rather than a character position. `inline` tells, when the name is
   * no .jsonata file that exists, where an inline expression would go instead.
   */
  exprFile(name: unknown, path: YamlPath, inline: string): Expression {
    if (typeof name !== 'string')
      this.fail(`expected the path of a .jsonata file (a string), got ${JSON.stringify(name)}`, path);
    let text: string;
    try {
      text = this.readText(name, path);
    } catch (e) {
      if (e instanceof ConfigError && e.message.startsWith('file not found') && !name.endsWith('.jsonata')) {
        e.message += ` (${inline})`;
      }
      throw e;
    }
    // {{properties}} of the route's values, as in the route itself; problems at the file's line
    const resolved = resolveTextPlaceholders(
      text,
      this.values,
      relative(process.cwd(), stepFile(name, this.route.file, this.services.root)) || name,
      (key) => this.uses.push({ key, path: [...this.base, ...path] }),
    );
    if (resolved.diagnostics.length) {
      throw new DiagnosticError(
        resolved.diagnostics.map((d) => ({
          ...d,
          message: `${d.message} (the values of route ${this.route.id}, which names this file at ${formatPath([...this.base, ...path])})`,
        })),
      );
    }
    text = resolved.text;
    try {
      return this.expr(text, path);
    } catch (e) {
      const m = e instanceof ConfigError ? /^(JSONata: .*) at character (\d+)$/s.exec(e.message) : null;
      if (m && e instanceof ConfigError) {
        // JSONata's position points past the token
        const at = textPosition(text, Number(m[2]) - 1);
        e.message = `${name}:${at.line}:${at.col}: ${m[1]}`;
      }
      throw e;
    }
  }

  /**
   * Absolute path of a project file named in a route (`schemas/...`, `transforms/...`): beside the route first
   * (core/step-file.ts).
   */
  file(name: string, path: YamlPath): string {
    const abs = stepFile(name, this.route.file, this.services.root);
    if (!existsSync(abs))
      this.fail(`file not found: ${name}${fileSuggestion(name, this.route.file, this.services.root)}`, path);
    if (statSync(abs).isDirectory()) this.fail(`${name} is a folder, not a file`, path);
    return abs;
  }

  readText(name: string, path: YamlPath): string {
    return readFileSync(this.file(name, path), 'utf8');
  }

  readJson(name: string, path: YamlPath): unknown {
    const text = this.readText(name, path);
    try {
      return JSON.parse(text);
    } catch (e: any) {
      // at the file's own line: JSON.parse says only a character position
      const pos = /at position (\d+)/.exec(String(e.message));
      if (pos) {
        const file = relative(process.cwd(), this.file(name, path)) || name;
        const at = textPosition(text, Number(pos[1]));
        const why = String(e.message).replace(/ in JSON at position \d+.*$/s, '');
        throw new DiagnosticError([
          {
            file,
            ...at,
            message: `invalid JSON: ${why} (named at ${this.route.file}, ${formatPath([...this.base, ...path])})`,
          },
        ]);
      }
      this.fail(`${name}: invalid JSON: ${e.message}`, path);
    }
  }

  /** A compiled JSON Schema validator for a file or an inline schema. */
  schema(
    ref: string | Record<string, unknown>,
    path: YamlPath,
  ): { validate: ValidateFunction; schema: Record<string, unknown>; file?: string } {
    try {
      if (typeof ref === 'string') {
        const file = this.file(ref, path);
        // a schema file's problems are said at its own lines, naming the route that uses it
        const shown = relative(process.cwd(), file) || ref;
        const context = ` (named by route ${this.route.id} at ${formatPath([...this.base, ...path])})`;
        return {
          ...this.services.schemas.compileFile(file, shown, context),
          file: relative(this.services.root, file),
        };
      }
      return this.services.schemas.compileInline(ref);
    } catch (e: any) {
      if (e instanceof ConfigError || e instanceof DiagnosticError) throw e;
      // an inline schema: its first problem at its line in the route (the next one after the fix)
      if (e instanceof SchemaProblemsError) {
        const p = e.problems[0];
        throw new ConfigError(p.message, [...this.base, ...path, ...p.path], p.key);
      }
      this.fail(`schema: ${e.message}`, path);
    }
  }

  /** Compiles a nested list of steps (choice branches, split bodies). */
  steps(list: unknown, path: YamlPath): Step[] {
    return this.stepList(list, [...this.base, ...path], this);
  }

  /** The coverage point at `path` below the current config; undefined unless the engine counts what runs. */
  point(kind: PointKind, path: YamlPath, label: string): CoveragePoint | undefined {
    const c = this.services.coverage;
    if (!c || this.services.lintOnly) return undefined;
    return c.point(this.route.id, this.route.file, kind, [...this.base, ...path], label);
  }

  /** The properties whose placeholders were resolved at `path` (for messages naming the property). */
  propertiesAt(path: YamlPath): string[] {
    const abs = [...this.base, ...path].join('\u0000');
    return this.uses.filter((u) => u.path.join('\u0000') === abs).map((u) => u.key);
  }

  get log(): Logger {
    return this.services.logger;
  }
}
