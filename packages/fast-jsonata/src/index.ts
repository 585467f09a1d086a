// Fast evaluator for a subset of JSONata: compiles the AST to closures that run synchronously.
// Returns undefined for anything outside the subset, and the caller falls back to JSONata.
//
// The closures are ports of jsonata 2.x's evaluator (see fast-jsonata/compile.ts), so results are
// identical, including sequence flattening and singleton collapse, and errors carry JSONata's codes.
// The whole subset is tested differentially against JSONata (packages/fast-jsonata/test/).
//
// Supported: paths (names, backquotes, `$`, `$$`, variables, `*`, `**`, predicates/indexes,
// `[]`, `#$i` positional bindings), group-by `path{key: value}`, literals, array and object
// constructors (computed keys too), `&`, arithmetic, comparisons, `and`/`or`/`in`, `..` ranges,
// `? :`, blocks with `:=` statements, `x ~> $f(...)`, the built-ins in fast-jsonata/builtins.ts
// (regex literals where one takes them: `$contains`), the registered FUNCTIONS, `$map`/`$filter`
// with an inline lambda, and lambdas bound with `$f := function...` that are called or passed to
// `$map`/`$filter` outside lambda bodies. Not supported (falls back): other regex use, transforms,
// sort, parent `%`, `@` focus, partial application, other function values and higher-order use,
// recursion.
//
// An evaluation is bounded like JSONata's own: past `timeout` ms it fails with JSONata's timeout
// error (D1012), the clock being read only every so many items of data-sized work
// (fast-jsonata/budget.ts); a range of more than `maxRange` items fails with D2015. The subset has
// no recursion, so `maxDepth` only applies to the fallback.
//
// Rare values cannot be emulated synchronously (a binding that shadows a function the expression
// calls, a function or promise inside the data). Then the evaluation is redone by JSONata itself
// and the returned value is a promise, which the Expression interface already allows.

import jsonata from 'jsonata';
import { BAIL, Unsupported } from './errors.ts';
import { compileProgram, type CustomFunctions, type Program } from './compile.ts';
import { JSONATA_MAX_RANGE } from './budget.ts';
import { guardJsonata } from './jsonata-guards.ts';

export { FastJsonataError } from './errors.ts';
export type { CustomFunctions } from './compile.ts';

export type FastFn = (input: unknown, bindings?: Record<string, unknown>) => unknown;

/** JSONata's evaluation limits (its `timeout` and `stack` options); absent means unlimited. */
export interface FastLimits {
  /** ms */
  timeout?: number;
  /** deepest recursion of the fallback evaluation (JSONata's `stack`) */
  maxDepth?: number;
  /** the most items a range (`a..b`) may have; absent: JSONata's own 10 million */
  maxRange?: number;
}

export function compileFast(ast: unknown, functions: CustomFunctions, limits: FastLimits = {}): FastFn | undefined {
  let program: Program;
  try {
    program = compileProgram(ast, functions, limits.timeout, limits.maxRange);
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
  const slow = lazySlowPath(ast, functions, limits);
  const called = program.called;
  return (input, bindings) => {
    if (bindings !== undefined && shadowsAny(bindings, called)) return slow(input, bindings);
    try {
      return program.run(input, bindings);
    } catch (err) {
      if (err === BAIL) return slow(input, bindings);
      throw err;
    }
  };
}

/** JSONata looks variables up in the bindings before its functions, so a binding can replace one. */
function shadowsAny(bindings: Record<string, unknown>, names: readonly string[]): boolean {
  if (typeof bindings !== 'object' || bindings === null) return false;
  for (const name of names) if (Object.prototype.propertyIsEnumerable.call(bindings, name)) return true;
  return false;
}

/**
 * JSONata evaluating this very AST, built on first use. jsonata() only takes source text, so a
 * trivial expression is created and its AST (which `ast()` returns by reference and evaluate()
 * reads) is replaced with ours. ASTs are not modified by evaluation, so sharing is safe.
 */
function lazySlowPath(
  ast: unknown,
  functions: CustomFunctions,
  limits: FastLimits,
): (input: unknown, bindings?: Record<string, unknown>) => Promise<unknown> {
  let expr: jsonata.Expression | undefined;
  return (input, bindings) => {
    if (!expr) {
      // the same limits as the fast evaluation it replaces (JSONata ignores undefined ones)
      expr = jsonata('$', { timeout: limits.timeout, stack: limits.maxDepth });
      const holder = expr.ast() as unknown as Record<string, unknown>;
      for (const key of Object.keys(holder)) delete holder[key];
      Object.assign(holder, ast);
      for (const [name, f] of Object.entries(functions)) expr.registerFunction(name, f.fn as any, f.signature);
      // its callbacks and ranges are bounded like the fast evaluation's loops
      guardJsonata(expr, limits.maxRange ?? JSONATA_MAX_RANGE);
    }
    return expr.evaluate(input, bindings);
  };
}
