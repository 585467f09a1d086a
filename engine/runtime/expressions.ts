// JSONata expressions, compiled once when a route loads. `evaluate` returns a value, or a
// promise for expressions that need JSONata's asynchronous evaluator.

import jsonata from 'jsonata';
import { FUNCTIONS } from './functions.ts';
import { ConfigError } from '../dsl/diagnostics.ts';
import { compileFast } from './fast-jsonata.ts';

export interface Expression {
  readonly source: string;
  /** true when the fast evaluator handles it without JSONata's async machinery */
  readonly fast: boolean;
  evaluate(input: unknown, bindings?: Record<string, unknown>): unknown | Promise<unknown>;
}

export function compileExpression(source: string, path: (string | number)[] = []): Expression {
  let expr: jsonata.Expression;
  try {
    expr = jsonata(source);
  } catch (e: any) {
    const where = typeof e?.position === 'number' ? ` at character ${e.position}` : '';
    // the expression text is not quoted: placeholders may have put a resolved value in it
    throw new ConfigError(`JSONata: ${e?.message ?? e}${where}`, path);
  }
  for (const [name, f] of Object.entries(FUNCTIONS)) expr.registerFunction(name, f.fn, f.signature);
  const fast = compileFast(expr.ast() as any, FUNCTIONS);
  if (fast) {
    return { source, fast: true, evaluate: fast };
  }
  return {
    source,
    fast: false,
    evaluate: (input, bindings) => expr.evaluate(input, bindings),
  };
}

/** Awaits only when the value is a promise, so fast expressions stay synchronous. */
export function isPromise(v: unknown): v is Promise<unknown> {
  return !!v && typeof (v as any).then === 'function';
}
