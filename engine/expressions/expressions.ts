// JSONata expressions, compiled once when a route loads. `evaluate` returns a value, or a
// promise for expressions that need JSONata's asynchronous evaluator.
//
// A route expression must not freeze the process: JSONata's own guardrails (its `timeout` and
// `stack` options, checked on every node it evaluates, and by jsonata-guards.ts before every
// callback of a higher-order built-in) bound each evaluation on the fallback path, and a value
// nested deeper than the call stack fails the evaluation instead of the process. The fast path
// cannot recurse (it has no function values); its data-sized loops are timed against the same
// `timeout` (fast-jsonata/budget.ts) and fail with the same error. On both, a range of more than
// `maxRange` items is refused before it is built.

import jsonata from 'jsonata';
import { FUNCTIONS } from '../core/functions.ts';
import { ConfigError } from '../core/diagnostics.ts';
import { compileFast, type FastFn } from '@bank-integration-engine/fast-jsonata';
import { guardJsonata } from '@bank-integration-engine/fast-jsonata/jsonata-guards';
import { ENGINE_DEFAULTS, type ExpressionSettings } from '../config/engine-settings.ts';
import { cachedAst, rememberAst } from './ast-cache.ts';

export interface Expression {
  readonly source: string;
  /** true when the fast evaluator handles it without JSONata's async machinery */
  readonly fast: boolean;
  evaluate(input: unknown, bindings?: Record<string, unknown>): unknown | Promise<unknown>;
}

export interface ExpressionOptions extends Partial<ExpressionSettings> {
  /** where the expression is (route and YAML path), named when an evaluation exceeds a limit */
  where?: string;
}

/**
 * An evaluation went over a limit (time, depth, call stack). Not a PlatformError: the caller gets
 * the generic 500 of an internal error, the log gets this message naming the route and step.
 */
export class ExpressionLimitError extends Error {
  constructor(
    readonly where: string,
    readonly reason: string,
    cause?: unknown,
  ) {
    super(`expression at ${where}: ${reason}`, { cause });
    this.name = 'ExpressionLimitError';
  }
}

export function compileExpression(
  source: string,
  path: (string | number)[] = [],
  options: ExpressionOptions = {},
): Expression {
  const timeout = options.timeout ?? ENGINE_DEFAULTS.expressions.timeout;
  const maxDepth = options.maxDepth ?? ENGINE_DEFAULTS.expressions.maxDepth;
  const maxRange = options.maxRange ?? ENGINE_DEFAULTS.expressions.maxRange;
  const where = options.where ?? 'an expression';
  const { expr, fast } = parsed(source, { timeout, maxDepth, maxRange }, path);

  /** The limit an error reports, as an ExpressionLimitError; any other error as it is. */
  const relabel = (err: any): unknown => {
    let reason: string | undefined;
    if (err?.code === 'D1012') reason = `evaluation ran longer than ${timeout} ms (engine.expressions.timeout)`;
    else if (err?.code === 'D1011') reason = `evaluation nested deeper than ${maxDepth} (engine.expressions.maxDepth)`;
    else if (err?.code === 'D2015' || err?.code === 'D2014')
      reason = `a range has more than ${maxRange} items (engine.expressions.maxRange)`;
    else if (err instanceof RangeError && /call stack/i.test(err.message))
      reason = 'a value is nested too deeply to evaluate (call stack exhausted)';
    return reason ? new ExpressionLimitError(where, reason, err) : err;
  };
  const rethrow = (err: unknown): never => {
    throw relabel(err);
  };

  if (fast) {
    return {
      source,
      fast: true,
      evaluate: (input, bindings) => {
        let result: unknown;
        try {
          result = fast(input, bindings);
        } catch (err) {
          throw relabel(err);
        }
        // a value the fast path hands back to JSONata: that evaluation's limit errors too
        return isPromise(result) ? result.then(undefined, rethrow) : result;
      },
    };
  }
  return {
    source,
    fast: false,
    evaluate: (input, bindings) => expr!.evaluate(input, bindings).then(undefined, rethrow),
  };
}

/** An expression the fast path takes (`fast`), or the jsonata object that evaluates it (`expr`). */
interface Parsed {
  expr?: jsonata.Expression;
  fast: FastFn | undefined;
}

/**
 * Parsed and fast-compiled expressions by source and limits. The same transforms, templates and
 * rules appear in several routes (262 distinct of 510 when every shipped route starts); both forms are
 * stateless between evaluations (bindings come per call; functions are registered once here), so
 * one copy serves every use. Bounded, so reloads of a long `--dev` session do not keep every
 * version of every expression. Process-wide on purpose: keyed by text and limits, the same for any engine.
 */
const PARSED = new Map<string, Parsed>();
const PARSED_MAX = 4096;

function parsed(source: string, limits: ExpressionSettings, path: (string | number)[]): Parsed {
  const { timeout, maxDepth, maxRange } = limits;
  const key = `${timeout}\0${maxDepth}\0${maxRange}\0${source}`;
  const known = PARSED.get(key);
  if (known) return known;
  const p = fromCache(source, limits) ?? fromSource(source, limits, path);
  if (PARSED.size >= PARSED_MAX) PARSED.delete(PARSED.keys().next().value!);
  PARSED.set(key, p);
  return p;
}

/**
 * The fast form compiled from the tree a previous start stored (ast-cache.ts): jsonata is not
 * called, as nothing but the fast form needs its object. Undefined when there is no tree, or the
 * fast path does not take it (stored by an engine whose fast path took more): parsed then.
 */
function fromCache(source: string, limits: ExpressionSettings): Parsed | undefined {
  const ast = cachedAst(source);
  if (ast === undefined) return undefined;
  try {
    const fast = compileFast(ast, FUNCTIONS, limits);
    return fast && { fast };
  } catch {
    // not a tree the parser makes: the source says what it means
    return undefined;
  }
}

function fromSource(source: string, limits: ExpressionSettings, path: (string | number)[]): Parsed {
  const { timeout, maxDepth, maxRange } = limits;
  let expr: jsonata.Expression;
  try {
    expr = jsonata(source, { timeout, stack: maxDepth });
  } catch (e: any) {
    const pos = typeof e?.position === 'number' ? ` at character ${e.position}` : '';
    // the expression text is not quoted: placeholders may have put a resolved value in it
    throw new ConfigError(`JSONata: ${e?.message ?? e}${pos}`, path);
  }
  const ast = expr.ast();
  const fast = compileFast(ast, FUNCTIONS, limits);
  if (fast) {
    // the next start compiles the fast form from this tree, unparsed
    rememberAst(source, ast);
    return { fast };
  }
  // JSONata evaluates it: the engine's functions, its callbacks and ranges bounded too (the fast
  // path has its own fallback)
  for (const [name, f] of Object.entries(FUNCTIONS)) expr.registerFunction(name, f.fn, f.signature);
  guardJsonata(expr, maxRange);
  return { expr, fast: undefined };
}

/** Awaits only when the value is a promise, so fast expressions stay synchronous. */
export function isPromise(v: unknown): v is Promise<unknown> {
  return !!v && typeof (v as any).then === 'function';
}
