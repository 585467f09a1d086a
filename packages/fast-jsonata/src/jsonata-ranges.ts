// engine.expressions.maxRange on JSONata's own evaluator. JSONata allocates a range (`a..b`) of up
// to 10 million items before anything can stop it, and its only smaller bound (its `sequence`
// option) also caps every sequence and puts a function on each one. So an expression that JSONata
// evaluates has its ranges replaced by calls of RANGE, which refuses a range over the bound before
// allocating it and otherwise builds what evaluateRangeExpression builds (same checks, same errors).

/** A name no expression can write (a variable name has no space): the call the rewrite makes. */
export const RANGE = 'engine range';

/**
 * The AST with each `lhs..rhs` replaced by `$<RANGE>(lhs, rhs)`. Copy on write: nodes without a
 * range below them are shared, the AST given is never modified (the fast path compiled from it).
 */
export function boundRanges(node: any): any {
  if (node === null || typeof node !== 'object' || node instanceof RegExp) return node;
  if (Array.isArray(node)) {
    let copy: any[] | undefined;
    node.forEach((item, i) => {
      const bounded = boundRanges(item);
      if (bounded !== item) (copy ??= [...node])[i] = bounded;
    });
    return copy ?? node;
  }
  let copy: any;
  for (const key of Object.keys(node)) {
    const bounded = boundRanges(node[key]);
    if (bounded !== node[key]) (copy ??= { ...node })[key] = bounded;
  }
  const out = copy ?? node;
  if (out.type !== 'binary' || out.value !== '..') return out;
  // the node keeps its position, predicates and keepArray; only what it computes changes
  const { lhs, rhs, ...rest } = out;
  return {
    ...rest,
    type: 'function',
    value: '(',
    procedure: { type: 'variable', value: RANGE, position: out.position },
    arguments: [lhs, rhs],
  };
}

/**
 * JSONata's evaluateRangeExpression, refusing more than `max` items (D2015, JSONata's sequence
 * bound). Errors name the `..` operator, as evaluateBinary's do.
 */
export function rangeOf(max: number) {
  return function range(this: { createSequence?: () => unknown[] }, lhs: unknown, rhs: unknown): unknown[] | undefined {
    if (typeof lhs !== 'undefined' && !Number.isInteger(lhs))
      throw { code: 'T2003', token: '..', stack: new Error().stack, value: lhs };
    if (typeof rhs !== 'undefined' && !Number.isInteger(rhs))
      throw { code: 'T2004', token: '..', stack: new Error().stack, value: rhs };
    if (typeof lhs === 'undefined' || typeof rhs === 'undefined') return undefined;
    const from = lhs as number;
    const to = rhs as number;
    if (from > to) return undefined;
    const size = to - from + 1;
    if (size > 1e7) throw { code: 'D2014', token: '..', stack: new Error().stack, value: size };
    if (size > max) throw { code: 'D2015', token: '..', stack: new Error().stack, value: max };
    const result = new Array(size) as unknown[] & { sequence?: boolean };
    for (let item = from, index = 0; item <= to; item++, index++) result[index] = item;
    result.sequence = true;
    return result;
  };
}
